/**
 * The datastore provider: our own declaration of the shape datastore
 * extensions implement ({@link DatastoreProvider}, with the
 * {@link SyncServiceContract} and {@link LockShape} it hands out), the zod
 * pieces every backend's provider config shares, and {@link StoreProvider},
 * the provider over one {@link ObjectStore} that the S3 and GCS packages
 * configure.
 *
 * A provider is configured from the JSON a datastore setup passes. Bad config
 * is a `ConfigError` naming the field path and what is expected
 * ({@link parseProviderConfig}).
 *
 * @module
 */
import { z } from "zod";
import { ConfigError } from "./errors.ts";
import { processIdentity, systemClock } from "./clock.ts";
import { createEmitter, type SluiceEmitter } from "./events.ts";
import { isSafeRelPath } from "./paths.ts";
import {
  type ConditionalWrites,
  defaultConditionalWrites,
  probeConditionalWrites,
  type ProbeResult,
  withConditionalFallback,
} from "./conditional.ts";
import { defaultLockRegistry, type LockBackendRegistry } from "./lock_registry.ts";
import { globalLockKey } from "./model_locks.ts";
import type { ClassifierRule, SyncConfig } from "./context.ts";
import {
  classifierRuleSchema,
  concurrencySchema,
  conditionalWritesSchema,
  PATH_CLASSES,
  probeTtlSchema,
  retryConfigSchema,
  streamThresholdSchema,
  wholeMs,
} from "./config_schema.ts";
import type {
  CallOptions,
  Clock,
  DistributedLock,
  Identity,
  LockBackend,
  LockOptions,
  ObjectStore,
} from "./ports.ts";
import type { SyncService, SyncServiceOptions } from "./service.ts";
import { DEFAULT_RETRY } from "./retry.ts";

// ---------------------------------------------------------------------------
// The extension shapes
// ---------------------------------------------------------------------------

/** The lock shape datastore extensions implement (what `createLock` returns). */
export interface LockShape {
  /** Store key of the lock object. */
  readonly key: string;
  /** Waits until the lock is ours. */
  acquire(options?: CallOptions): Promise<void>;
  /** Releases the lock if still ours; safe to call twice. */
  release(): Promise<void>;
  /** Runs `fn` under the lock and always releases. */
  withLock<T>(fn: () => Promise<T>, options?: CallOptions): Promise<T>;
  /** The lock body, `null` only when absent; a failed read throws. */
  inspect(options?: CallOptions): Promise<
    {
      readonly holder: string;
      readonly hostname: string;
      readonly pid: number;
      readonly acquiredAt: string;
      readonly ttlMs: number;
      readonly nonce: string;
    } | null
  >;
  /** Breakglass: deletes the lock if it carries `nonce`. */
  forceRelease(nonce: string): Promise<boolean>;
}

/** The sync service contract a datastore extension calls. */
export interface SyncServiceContract {
  /** Pulls what changed remotely. */
  pullChanged(options?: { signal?: AbortSignal; prefixes?: readonly string[] }): Promise<{
    readonly fetched: readonly string[];
    readonly removed: readonly string[];
    readonly conflicts: readonly string[];
  }>;
  /** Pushes what is dirty locally. */
  pushChanged(options?: { signal?: AbortSignal }): Promise<{
    readonly uploaded: readonly string[];
    readonly deleted: readonly string[];
  }>;
  /** Marks one path, several, or (with neither) everything dirty. */
  markDirty(
    options?: { relPath?: string; relPaths?: readonly string[]; signal?: AbortSignal },
  ): Promise<void>;
  /** What the service can do. */
  capabilities(): { readonly push: boolean; readonly pull: boolean; readonly locks: boolean };
}

/** What a health check reports. */
export interface VerifyResult {
  /** True when the store answered and its conditional writes satisfy the config. */
  readonly ok: boolean;
  /** Round trip of one metadata read, in ms (`-1` when the store did not answer). */
  readonly latencyMs: number;
  /** The conditional-write probe's finding; `null` when not probed (`off`, or unreachable). */
  readonly conditionalWrites: ProbeResult | null;
  /** One line saying what was found and, when not ok, what to do. */
  readonly message: string;
  /** The store's endpoint description. */
  readonly endpoint: string;
}

/** A datastore health check. */
export interface Verifier {
  /** Runs the check; never throws for store failures (they make `ok` false). */
  verify(options?: { signal?: AbortSignal }): Promise<VerifyResult>;
}

/** Options of {@link DatastoreProvider.createLock}: lock timings plus who and which lock. */
export interface ProviderLockOptions extends LockOptions {
  /** Who locks; default the provider's identity. */
  readonly identity?: Identity;
  /** Lock key; default the global datastore lock (`.datastore.lock`). */
  readonly key?: string;
}

/** The provider shape datastore extensions implement. */
export interface DatastoreProvider {
  /** Creates (does not acquire) a lock of the datastore at `datastorePath`. */
  createLock(datastorePath: string, options?: ProviderLockOptions): LockShape;
  /** A health check of the store. */
  createVerifier(): Verifier;
  /** A sync service mirroring the store into `cachePath`. */
  createSyncService(repoDir: string, cachePath: string): Promise<SyncServiceContract>;
  /** The datastore's path, e.g. `s3://bucket/prefix`. */
  resolveDatastorePath(repoDir: string): string;
  /** Where the repository's cache of this datastore lives. */
  resolveCachePath(repoDir: string): string;
}

// ---------------------------------------------------------------------------
// Shared config pieces
// ---------------------------------------------------------------------------

/** The `lock` section: a backend by name, the engine's timings, backend-specific keys kept. */
export const lockConfigSchema = z.looseObject({
  backend: z.string({ error: 'a lock backend name, e.g. "store"' })
    .min(1, { error: "a non-empty lock backend name" })
    .default("store"),
  ttlMs: wholeMs("the lock time to live").min(1_000, { error: "a TTL of at least 1000 ms" })
    .optional(),
  heartbeatMs: wholeMs("the heartbeat interval").min(1, { error: "a positive interval" })
    .optional(),
  maxWaitMs: wholeMs("the acquire wait").min(0, { error: "a wait of 0 ms or more" }).optional(),
  retryDelayMs: wholeMs("the acquire retry delay").min(1, { error: "a positive delay" }).optional(),
});

/** The key prefix inside the bucket: relative, `/`-separated, no `..`; a trailing `/` is dropped. */
export const prefixSchema = z.string({ error: 'a key prefix string, e.g. "team/datastore"' })
  .default("")
  .transform((p) => p.replace(/\/+$/, ""))
  .refine((p) => p === "" || isSafeRelPath(p), {
    error: 'a relative key prefix without "..", ".", empty segments or a leading "/"',
  });

/** Config keys every store provider accepts (spread into each backend's strict object). */
export const commonProviderShape = {
  prefix: prefixSchema,
  conditionalWrites: conditionalWritesSchema.default("auto"),
  concurrency: concurrencySchema.default(8),
  requestTimeoutMs: wholeMs("the per-request timeout").min(1, { error: "a positive timeout" })
    .default(30_000),
  probeTtlMs: probeTtlSchema.optional(),
  streamThresholdBytes: streamThresholdSchema.optional(),
  retry: retryConfigSchema.default({}),
  lock: lockConfigSchema.default({ backend: "store" }),
  classifierRules: z.array(classifierRuleSchema, { error: "a list of {pattern, class} rules" })
    .default([]),
};

/** The parsed form of {@link commonProviderShape}. */
export interface CommonProviderConfig {
  readonly prefix: string;
  readonly conditionalWrites: "auto" | "required" | "off";
  readonly concurrency: number;
  readonly requestTimeoutMs: number;
  readonly probeTtlMs?: number;
  readonly streamThresholdBytes?: number;
  readonly retry: { retries?: number; minTimeoutMs?: number; maxTimeoutMs?: number };
  readonly lock: { backend: string; [key: string]: unknown };
  readonly classifierRules: readonly ClassifierRule[];
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function describeIssue(input: unknown, issue: z.core.$ZodIssue): { field: string; text: string } {
  if (issue.code === "unrecognized_keys") {
    const field = fieldPath([...issue.path, issue.keys[0]]);
    return {
      field,
      text: `no such setting (unknown key${issue.keys.length > 1 ? "s" : ""} ${
        issue.keys.map((k) => `"${k}"`).join(", ")
      }); check the spelling`,
    };
  }
  const got = valueAt(input, issue.path);
  const shown = got === undefined ? "nothing" : JSON.stringify(got)?.slice(0, 80);
  return { field: fieldPath(issue.path) || "(root)", text: `${issue.message}, got ${shown}` };
}

/**
 * Parses `input` with `schema`; on failure throws a `ConfigError` at the first
 * offending field path (e.g. `lock.ttlMs`, `classifierRules[0].class`),
 * saying what is expected and what was given, and listing any further issues.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { parseProviderConfig } from "./provider.ts";
 * const schema = z.strictObject({ bucket: z.string({ error: "a bucket name" }) });
 * parseProviderConfig(schema, { bucket: "b" }); // { bucket: "b" }
 * ```
 */
export function parseProviderConfig<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new ConfigError("(root)", `a JSON object of settings, got ${JSON.stringify(input)}`);
  }
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const [first, ...rest] = r.error.issues.map((i) => describeIssue(input, i));
  const more = rest.length ? `; also ${rest.map((i) => `"${i.field}": ${i.text}`).join("; ")}` : "";
  throw new ConfigError(first.field, `${first.text}${more}`, { cause: r.error });
}

/**
 * The sync configuration a parsed provider config implies.
 *
 * @example
 * ```ts
 * import { toSyncConfig } from "./provider.ts";
 * const c = toSyncConfig({
 *   prefix: "", conditionalWrites: "auto", concurrency: 4, requestTimeoutMs: 1000,
 *   retry: {}, lock: { backend: "store" }, classifierRules: [],
 * });
 * console.log(c.concurrency); // 4
 * ```
 */
export function toSyncConfig(config: CommonProviderConfig): Partial<SyncConfig> {
  return {
    concurrency: config.concurrency,
    conditionalWrites: config.conditionalWrites,
    classifierRules: config.classifierRules,
    retry: { ...DEFAULT_RETRY, ...config.retry },
    ...(config.probeTtlMs === undefined ? {} : { probeTtlMs: config.probeTtlMs }),
    ...(config.streamThresholdBytes === undefined
      ? {}
      : { streamThresholdBytes: config.streamThresholdBytes }),
  };
}

// ---------------------------------------------------------------------------
// The provider over one store
// ---------------------------------------------------------------------------

/** Injected collaborators of a provider (none of them comes from the config JSON). */
export interface ProviderDeps {
  /** Who writes and locks; default this process. */
  readonly identity?: Identity;
  /** Time; default the system clock. */
  readonly clock?: Clock;
  /** Shared by the lock backend and every sync service; default a new emitter. */
  readonly events?: SluiceEmitter;
  /** Where `lock.backend` is looked up; default {@link defaultLockRegistry}. */
  readonly lockRegistry?: LockBackendRegistry;
  /** Probe results and the once-per-endpoint fallback warning; default the process-wide registry. */
  readonly conditional?: ConditionalWrites;
}

/** Creates a sync service from options (the composition root's `createSluice` fits). */
export type ServiceFactory = (
  options: Omit<SyncServiceOptions, "push" | "write"> & {
    readonly conditional?: ConditionalWrites;
  },
) => Promise<SyncService>;

/** What {@link StoreProvider} is built from. */
export interface StoreProviderParts {
  /** URL scheme of the datastore path: `s3` or `gs`. */
  readonly scheme: string;
  /** The bucket. */
  readonly bucket: string;
  /** The validated config. */
  readonly config: CommonProviderConfig;
  /** The store over `bucket`/`prefix`. */
  readonly store: ObjectStore;
  /** Creates sync services (with the default gates). */
  readonly createService: ServiceFactory;
  /** Injected collaborators. */
  readonly deps?: ProviderDeps;
  /** Releases the store's client, if it holds one. */
  readonly close?: () => void;
}

/**
 * A {@link DatastoreProvider} over one store: the lock backend from the
 * registry by `lock.backend`, a verifier that times a read and probes
 * conditional writes, and sync services with the default gates.
 *
 * Paths: the datastore path is `<scheme>://<bucket>[/<prefix>]`; the cache is
 * `<repoDir>/.sluice-cache/<scheme>/<bucket>[/<prefix>]`, so two datastores
 * (also the same bucket name on two backends) never share a cache.
 *
 * @example
 * ```ts
 * import { StoreProvider } from "./provider.ts";
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../packages/testing/mod.ts";
 * const p = new StoreProvider({
 *   scheme: "mem", bucket: "b", store: new InMemoryStore(), createService: createSyncService,
 *   config: {
 *     prefix: "", conditionalWrites: "auto", concurrency: 8, requestTimeoutMs: 1000,
 *     retry: {}, lock: { backend: "store" }, classifierRules: [],
 *   },
 * });
 * console.log(p.resolveDatastorePath("/repo")); // mem://b
 * ```
 */
export class StoreProvider implements DatastoreProvider {
  /** The store every lock and service of this provider uses. */
  readonly store: ObjectStore;
  /** The validated config. */
  readonly config: CommonProviderConfig;
  /** Events of the lock backend and of every service created here. */
  readonly events: SluiceEmitter;
  /** The provider's default identity. */
  readonly identity: Identity;
  /** The provider's clock. */
  readonly clock: Clock;
  readonly #scheme: string;
  readonly #bucket: string;
  readonly #registry: LockBackendRegistry;
  readonly #conditional: ConditionalWrites;
  readonly #createService: ServiceFactory;
  readonly #close?: () => void;
  #backend?: LockBackend;

  constructor(parts: StoreProviderParts) {
    this.store = parts.store;
    this.config = parts.config;
    this.#scheme = parts.scheme;
    this.#bucket = parts.bucket;
    this.#createService = parts.createService;
    this.#close = parts.close;
    this.events = parts.deps?.events ?? createEmitter();
    this.identity = parts.deps?.identity ?? processIdentity();
    this.clock = parts.deps?.clock ?? systemClock;
    this.#registry = parts.deps?.lockRegistry ?? defaultLockRegistry;
    this.#conditional = parts.deps?.conditional ?? defaultConditionalWrites;
    // Fail at setup, not at the first lock, on an unknown backend name.
    void this.lockBackend;
  }

  /**
   * The lock backend named by `lock.backend` (created once), over the store
   * behind the same conditional-write fallback as pushes.
   */
  get lockBackend(): LockBackend {
    return this.#backend ??= this.#registry.create(this.config.lock.backend, {
      store: withConditionalFallback(this.store, {
        registry: this.#conditional,
        setting: this.config.conditionalWrites,
        events: this.events,
      }),
      clock: this.clock,
      config: this.config.lock,
      events: this.events,
    });
  }

  /**
   * Creates (does not acquire) a lock of this datastore: the global lock
   * unless `options.key` names another (e.g. a model lock). `datastorePath`
   * must be this provider's datastore path (a `ConfigError` otherwise, so a
   * lock is never taken on the wrong datastore).
   */
  createLock(datastorePath: string, options: ProviderLockOptions = {}): DistributedLock {
    const mine = this.resolveDatastorePath("");
    if (datastorePath.replace(/\/+$/, "") !== mine) {
      throw new ConfigError(
        "datastorePath",
        `the path of this datastore, ${mine}, got ${JSON.stringify(datastorePath)}`,
      );
    }
    const { identity, key, ...timings } = options;
    return this.lockBackend.createLock(
      key ?? globalLockKey(),
      identity ?? this.identity,
      timings,
    );
  }

  /** A health check: one timed read, then (unless `conditionalWrites` is `off`) the probe. */
  createVerifier(): Verifier {
    return {
      verify: (options = {}) => verifyStore(this.store, this.config.conditionalWrites, options),
    };
  }

  /** A sync service (default gates) over `cachePath`, sharing this provider's store and locks. */
  async createSyncService(_repoDir: string, cachePath: string): Promise<SyncService> {
    return await this.#createService({
      cacheDir: cachePath,
      store: this.store,
      lockBackend: this.lockBackend,
      identity: this.identity,
      clock: this.clock,
      events: this.events,
      config: toSyncConfig(this.config),
      conditional: this.#conditional,
    });
  }

  /** `<scheme>://<bucket>[/<prefix>]`; the same for every repository. */
  resolveDatastorePath(_repoDir: string): string {
    const p = this.config.prefix;
    return `${this.#scheme}://${this.#bucket}${p ? `/${p}` : ""}`;
  }

  /** `<repoDir>/.sluice-cache/<scheme>/<bucket>[/<prefix>]`. */
  resolveCachePath(repoDir: string): string {
    const root = repoDir.replace(/\/+$/, "") || "/";
    const p = this.config.prefix;
    return `${root === "/" ? "" : root}/.sluice-cache/${this.#scheme}/${this.#bucket}${
      p ? `/${p}` : ""
    }`;
  }

  /** Releases the store's client (safe to call twice). */
  close(): void {
    this.#close?.();
  }
}

/**
 * Times one metadata read of `store`, then probes conditional writes (unless
 * `setting` is `off`). Not ok when the store does not answer, or when
 * `setting` is `required` and either form of conditional write is not
 * honoured.
 *
 * @example
 * ```ts
 * import { verifyStore } from "./provider.ts";
 * import { InMemoryStore } from "../packages/testing/mod.ts";
 * const r = await verifyStore(new InMemoryStore(), "required");
 * console.log(r.ok, r.latencyMs, r.conditionalWrites?.create); // true … "honoured"
 * ```
 */
export async function verifyStore(
  store: ObjectStore,
  setting: "auto" | "required" | "off",
  options: { signal?: AbortSignal; now?: () => number } = {},
): Promise<VerifyResult> {
  const endpoint = store.endpoint;
  const t0 = performance.now();
  try {
    await store.head(".sluice/verify", { signal: options.signal });
  } catch (e) {
    return {
      ok: false,
      latencyMs: -1,
      conditionalWrites: null,
      endpoint,
      message: `${endpoint} did not answer: ${
        e instanceof Error ? e.message : String(e)
      }. Check the endpoint, bucket and credentials, then run the check again.`,
    };
  }
  const latencyMs = Math.round(performance.now() - t0);
  if (setting === "off") {
    return {
      ok: true,
      latencyMs,
      conditionalWrites: null,
      endpoint,
      message:
        `${endpoint} answered in ${latencyMs} ms; conditional writes are off in the config, not probed.`,
    };
  }
  let probe: ProbeResult;
  try {
    probe = await probeConditionalWrites(store, { signal: options.signal, now: options.now });
  } catch (e) {
    return {
      ok: false,
      latencyMs,
      conditionalWrites: null,
      endpoint,
      message: `${endpoint} answered in ${latencyMs} ms but the conditional-write probe failed: ${
        e instanceof Error ? e.message : String(e)
      }. Check write permission on the bucket, then run the check again.`,
    };
  }
  const honoured = probe.create === "honoured" && probe.update === "honoured";
  const found = `create-only writes ${probe.create}, compare-and-swap ${probe.update}`;
  if (honoured) {
    return {
      ok: true,
      latencyMs,
      conditionalWrites: probe,
      endpoint,
      message: `${endpoint} answered in ${latencyMs} ms; ${found}.`,
    };
  }
  const ok = setting !== "required";
  return {
    ok,
    latencyMs,
    conditionalWrites: probe,
    endpoint,
    message: ok
      ? `${endpoint} answered in ${latencyMs} ms; ${found}: Sluice falls back to check-then-write, which narrows but cannot close races between writers.`
      : `${endpoint} answered in ${latencyMs} ms; ${found}, but the config requires conditional writes: pushes will be refused. Use an endpoint that honours them, or set conditionalWrites to "auto".`,
  };
}

export { classifierRuleSchema, PATH_CLASSES, retryConfigSchema };
