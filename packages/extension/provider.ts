/**
 * The provider `createProvider` returns, and {@link defineDatastore}, which
 * builds a `datastore` export from a backend's schema, config mapping and
 * Sluice provider builder.
 *
 * `createProvider` validates the config (throwing a `ConfigError` naming the
 * field) and returns at once: no client is built and nothing is read until a
 * lock, a health check or a sync call needs it. Every provider of one config
 * in one `datastore` export shares one runtime (the Sluice provider, the
 * locks this process holds, the Sluice services per cache).
 *
 * @module
 */
import type { z } from "zod";
import { parseProviderConfig } from "../provider/mod.ts";
import {
  defaultLockRegistry,
  LOCK_TIMING_KEYS,
  type LockBackendRegistry,
  lockTimingsFromConfig,
} from "../../sync/locks/lock_registry.ts";
import type {
  SwampDatastoreExport,
  SwampDatastoreProvider,
  SwampLockOptions,
  SwampVerifier,
} from "./contract.ts";
import { type EnvGetter, ignoredTimeoutWarning, processEnv } from "./env.ts";
import { STORE_DEFAULTS } from "../store_kit/attempts.ts";
import { ExtensionLock } from "./lock.ts";
import { listNamespaces, registerNamespace } from "./namespaces.ts";
import {
  type DatastoreRuntime,
  type ExtensionDeps,
  type ProviderBuilder,
  RuntimeRegistry,
} from "./runtime.ts";
import { ExtensionSyncService } from "./sync_service.ts";
import { extensionVerifier } from "./verifier.ts";
import { closest } from "../../sync/closest.ts";

/** The default global lock key (solo mode). */
export const DEFAULT_LOCK_KEY = ".datastore.lock";

/**
 * The tool's provider over one datastore runtime.
 *
 * @example
 * ```ts ignore
 * const provider = datastore.createProvider({ bucket: "my-bucket" });
 * const lock = provider.createLock(provider.resolveDatastorePath("/repo"), { lockKey: "data/t/m/.lock" });
 * ```
 */
export class ExtensionProvider implements SwampDatastoreProvider {
  /** The runtime shared by every provider of this config. */
  readonly runtime: DatastoreRuntime;
  readonly #type: string;
  readonly #bucket: string;

  constructor(runtime: DatastoreRuntime, type: string, bucket: string) {
    this.runtime = runtime;
    this.#type = type;
    this.#bucket = bucket;
  }

  /** A lock for `options.lockKey` (default `.datastore.lock`); `datastorePath` is not used. */
  createLock(_datastorePath: string, options: SwampLockOptions = {}): ExtensionLock {
    const p = this.runtime.provider;
    const inner = p.lockBackend.createLock(options.lockKey ?? DEFAULT_LOCK_KEY, p.identity, {
      ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      ...(options.retryIntervalMs === undefined ? {} : { retryDelayMs: options.retryIntervalMs }),
      ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
    });
    return new ExtensionLock(inner, {
      observer: this.runtime.held,
      events: this.runtime.events,
      now: () => p.clock.now(),
    });
  }

  /** The health check (a timed read, then the conditional-write probe). */
  createVerifier(): SwampVerifier {
    return extensionVerifier({
      datastoreType: this.#type,
      bucket: this.#bucket,
      check: () => this.runtime.provider.createVerifier().verify(),
    });
  }

  /** A sync service over `cachePath`, returned at once; `repoDir` is not used. */
  createSyncService(_repoDir: string, cachePath: string): ExtensionSyncService {
    return new ExtensionSyncService(this.runtime, cachePath);
  }

  /** `<repoDir>/.swamp`. */
  resolveDatastorePath(repoDir: string): string {
    const root = repoDir.replace(/\/+$/, "");
    return `${root}/.swamp`;
  }

  /** Always `undefined`: the tool's default cache location is used. */
  resolveCachePath(_repoDir: string): string | undefined {
    return undefined;
  }

  /**
   * Registers `namespace` for `repoId`: writes `<ns>/.namespace.json`
   * create-only, refreshes it by compare-and-swap when `repoId` holds it,
   * and throws `namespace_taken` when another repository does
   * (`namespaces.ts`); `invalid_config` for a bad slug. `datastorePath` is
   * not used.
   */
  registerNamespace(_datastorePath: string, namespace: string, repoId: string): Promise<void> {
    const rt = this.runtime;
    return registerNamespace(
      { store: rt.conditionalStore, clock: rt.provider.clock },
      namespace,
      repoId,
    );
  }

  /** The sorted slugs of every `<ns>/.namespace.json`; `[]` when none. `datastorePath` is not used. */
  listNamespaces(_datastorePath: string): Promise<string[]> {
    return listNamespaces(this.runtime.provider.store);
  }
}

/** What {@link defineDatastore} builds an export from. */
export interface DatastoreDefinition<S extends z.ZodType> {
  /** `@collective/name`. */
  readonly type: string;
  /** Display name. */
  readonly name: string;
  /** One sentence. */
  readonly description: string;
  /** The extension's config schema. */
  readonly configSchema: S;
  /** The Sluice provider JSON of a parsed config. */
  readonly toSluiceConfig: (config: z.output<S>, env: EnvGetter) => Record<string, unknown>;
  /** The backend's Sluice provider factory. */
  readonly build: ProviderBuilder;
  /**
   * The environment variable that overrides the request timeout
   * (`SWAMP_S3_REQUEST_TIMEOUT_MS`), when the backend has one: a value it
   * cannot take is warned of (`config_env_ignored`).
   */
  readonly timeoutVar?: string;
}

/** A `datastore` export built by {@link defineDatastore}. */
export interface DefinedDatastore<S extends z.ZodType> extends SwampDatastoreExport {
  readonly configSchema: S;
  createProvider(config: Record<string, unknown>): ExtensionProvider;
}

/**
 * A `datastore` export: `createProvider` parses the config with the schema
 * (a `ConfigError` on a bad one), maps it with the environment read through
 * `deps.env`, and returns a provider sharing this export's runtime of that
 * config. The runtime's provider and services come from
 * `deps.createService` (`createSluice` of the composition root, which the
 * entry file passes in).
 *
 * @example
 * ```ts ignore
 * import { defineDatastore } from "./provider.ts";
 * import { s3ExtensionConfigSchema, toSluiceS3Config } from "./config.ts";
 * import { createS3Provider } from "../s3/provider.ts";
 * import { createSluice } from "../../mod.ts";
 * const ds = defineDatastore({
 *   type: "@acme/s3", name: "S3", description: "S3 with Sluice.",
 *   configSchema: s3ExtensionConfigSchema, toSluiceConfig: toSluiceS3Config, build: createS3Provider,
 * }, { createService: createSluice });
 * ```
 */
export function defineDatastore<S extends z.ZodType>(
  definition: DatastoreDefinition<S>,
  deps: ExtensionDeps,
): DefinedDatastore<S> {
  const runtimes = new RuntimeRegistry(definition.build, deps, definition.type);
  const env = deps.env ?? processEnv;
  const registry = deps.lockRegistry ?? defaultLockRegistry;
  return {
    type: definition.type,
    name: definition.name,
    description: definition.description,
    // The tool checks a config with `safeParse` before `createProvider`, and
    // reports only that check's failure as an invalid config.
    configSchema: withKnownLockBackend(definition.configSchema, registry),
    createProvider(config: Record<string, unknown>): ExtensionProvider {
      const parsed = parseProviderConfig(definition.configSchema, config);
      const sluiceConfig = definition.toSluiceConfig(parsed, env);
      // No I/O, but no deferred surprise either: an unknown lock backend or a
      // bad timing is refused here, not at the first lock or sync.
      const lock = (sluiceConfig.lock ?? {}) as Record<string, unknown>;
      registry.assertKnown(lock.backend ?? "store");
      lockTimingsFromConfig(lock);
      const runtime = runtimes.get(sluiceConfig);
      for (const w of unknownKeyWarnings(definition.configSchema, config)) {
        runtime.events.emit("warning", w);
      }
      for (const w of unknownLockKeyWarnings(lock)) runtime.events.emit("warning", w);
      const ignored = definition.timeoutVar === undefined ? undefined : ignoredTimeoutWarning(
        env,
        definition.timeoutVar,
        Number(sluiceConfig.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs),
      );
      if (ignored) runtime.events.emit("warning", ignored);
      return new ExtensionProvider(runtime, definition.type, String(sluiceConfig.bucket));
    },
  };
}

/**
 * `schema` refusing, at `lock.backend`, a lock backend `registry` does not
 * hold when the config is checked (a backend registered after the entry was
 * loaded is taken), as `createProvider` refuses it.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { withKnownLockBackend } from "./provider.ts";
 * import { defaultLockRegistry } from "../../sync/locks/lock_registry.ts";
 * const schema = withKnownLockBackend(
 *   z.object({ lock: z.object({ backend: z.string() }).optional() }),
 *   defaultLockRegistry,
 * );
 * console.log(schema.safeParse({ lock: { backend: "nope" } }).success); // false
 * ```
 */
export function withKnownLockBackend<S extends z.ZodType>(
  schema: S,
  registry: LockBackendRegistry,
): S {
  return schema.superRefine((value, ctx) => {
    const lock = (value as { lock?: unknown } | null)?.lock;
    const backend = lock !== null && typeof lock === "object"
      ? (lock as { backend?: unknown }).backend ?? "store"
      : "store";
    if (typeof backend === "string" && registry.has(backend)) return;
    const known = registry.names().map((n) => `"${n}"`).join(", ") || "none registered";
    ctx.addIssue({
      code: "custom",
      path: ["lock", "backend"],
      input: backend,
      message: `one of the registered lock backends (${known}), got ${
        JSON.stringify(backend)
      }; register a third-party backend with registerLockBackend() before setting up the datastore`,
    });
  });
}

/**
 * A warning for each key of the `lock` section the `store` backend (the
 * default) does not read: it takes only the engine's timings, so any other
 * key there (a mistyped `ttl`) would leave the lock at its default silently.
 * Another backend's section may hold keys of its own, and is left to it.
 */
export function unknownLockKeyWarnings(
  lock: Record<string, unknown>,
): { code: string; message: string }[] {
  if ((lock.backend ?? "store") !== "store") return [];
  const known = ["backend", ...LOCK_TIMING_KEYS];
  return Object.keys(lock).filter((k) => !known.includes(k)).map((k) => {
    const near = closest(k, known);
    return {
      code: "config_key_unknown",
      message: `The datastore config's key "lock.${k}" is not one this extension knows${
        near ? ` (did you mean "lock.${near}"?)` : ""
      }: it was ignored, and the lock keeps its default for what it meant. Known keys of "lock" with the store backend: ${
        known.join(", ")
      }. Fix it in the datastore config (.swamp.yaml, or SWAMP_DATASTORE).`,
    };
  });
}

/**
 * Keys one backend's datastore spells otherwise than the other's (and than
 * the store URL's query, whose `endpoint=` is GCS's `apiEndpoint`): too far
 * apart for the nearest-name guess, and yet what a user of the other most
 * likely meant.
 */
const OTHER_BACKEND_NAMES: Readonly<Record<string, string>> = {
  endpoint: "apiEndpoint",
  apiEndpoint: "endpoint",
};

/**
 * A warning for each key of `config` the schema does not know: dropped, as
 * the existing extensions drop them, but said (a mistyped `endpiont` would
 * otherwise send every request to the default endpoint), with the known key
 * it most resembles.
 */
export function unknownKeyWarnings(
  schema: z.ZodType,
  config: Record<string, unknown>,
): { code: string; message: string }[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  if (!shape || typeof config !== "object" || config === null) return [];
  const known = Object.keys(shape);
  return Object.keys(config).filter((k) => !known.includes(k)).map((k) => {
    const other = Object.hasOwn(OTHER_BACKEND_NAMES, k) ? OTHER_BACKEND_NAMES[k] : undefined;
    const near = closest(k, known) ?? (other && known.includes(other) ? other : undefined);
    return {
      code: "config_key_unknown",
      message: `The datastore config's key "${k}" is not one this extension knows${
        near ? ` (did you mean "${near}"?)` : ""
      }: it was ignored, as the existing extensions ignore unknown keys. Known keys: ${
        known.join(", ")
      }. Fix it in the datastore config (.swamp.yaml, or SWAMP_DATASTORE).`,
    };
  });
}
