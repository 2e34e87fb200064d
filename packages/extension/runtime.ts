/**
 * One datastore as this process sees it: the Sluice provider (built on first
 * use, so that `createProvider` stays free of I/O and cheap however often the
 * tool calls it), the locks this process holds on it, and one Sluice sync
 * service per cache directory and namespace, shared by every sync service
 * the tool creates for that cache (the tool creates several per command;
 * sharing keeps their dirty marks and lock knowledge in one place).
 *
 * A namespaced service gets the cache directory `<cachePath>/<ns>` and a
 * store view whose keys are under `<ns>/`; locks always use the datastore's
 * own store with full keys.
 *
 * The services come from the factory in {@link ExtensionDeps}: the entry
 * file, a composition root of its own, passes the root's `createSluice`.
 *
 * @module
 */
import {
  type ConditionalWrites,
  defaultConditionalWrites,
  withConditionalFallback,
} from "../../sync/transfer/conditional.ts";
import { createEmitter, type SluiceEmitter, type WarningEvent } from "../../sync/events.ts";
import type { LockBackendRegistry } from "../../sync/locks/lock_registry.ts";
import type { Clock, Identity, ObjectStore } from "../../sync/ports.ts";
import {
  type BackendProviderDeps,
  type ServiceFactory,
  type StoreProvider,
  toSyncConfig,
} from "../provider/mod.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { EnvGetter } from "./env.ts";
import { HeldLocks } from "./held_locks.ts";
import { cliStoreUrl, type CliTarget, storeRecordOf } from "./left_behind.ts";
import { STORE_RECORD, type StoreRecord } from "../../sync/store_record.ts";
import { refuseOtherStore } from "./store_binding.ts";
import { errorLine, warningPrinter } from "./warnings.ts";
import { LOCKFILE_GUARDED } from "../../middleware/lockfile_guard.ts";
import { PrefixedStore } from "./prefixed_store.ts";
import { adoptEarlierState, refuseLinkedStateDir } from "./state_dirs.ts";
import { sharedStateDir } from "../../sync/transfer/cache.ts";
import { shellWord } from "../../sync/shell_word.ts";
import { STATE_DIR } from "../../sync/transfer/cache.ts";

/** Collaborators injected into an extension entry (tests); production leaves them all out. */
export interface InjectedExtensionDeps {
  /** Environment variables; default the process environment. */
  readonly env?: EnvGetter;
  /** Who writes and locks; default this process. */
  readonly identity?: Identity;
  /** Time; default the system clock. */
  readonly clock?: Clock;
  /** Events of every lock and service; default one emitter per datastore. */
  readonly events?: SluiceEmitter;
  /** Probe results and fallback warnings; default process-wide. */
  readonly conditional?: ConditionalWrites;
  /** Where `lock.backend` is looked up; default Sluice's registry. */
  readonly lockRegistry?: LockBackendRegistry;
  /**
   * Where warnings are written, one line each (see `warnings.ts`); default
   * nowhere. The entry files pass standard error: the tool prints no events.
   */
  readonly warn?: (line: string) => void;
  /**
   * Gate names left out of every push pipeline. For replays that show what a
   * gate prevents; never set it in production.
   */
  readonly disableGatesForTesting?: readonly string[];
}

/** What an extension is built with: the injected collaborators and the service factory. */
export interface ExtensionDeps extends InjectedExtensionDeps {
  /**
   * Creates the Sluice services and is passed on to the provider: the entry
   * passes `createSluice` of the composition root (the default gates).
   */
  readonly createService: ServiceFactory;
}

/** Builds the Sluice provider from the mapped config (the backend's `create…Provider`). */
export type ProviderBuilder = (
  config: Record<string, unknown>,
  deps: BackendProviderDeps,
) => StoreProvider;

/**
 * One datastore of this process.
 *
 * @example
 * ```ts ignore
 * import { DatastoreRuntime } from "./runtime.ts";
 * import { createS3Provider } from "../s3/provider.ts";
 * import { createSluice } from "../../mod.ts";
 * const rt = new DatastoreRuntime({ bucket: "b" }, createS3Provider, { createService: createSluice });
 * const svc = await rt.service("/tmp/cache", "");
 * ```
 */
export class DatastoreRuntime {
  /** The mapped Sluice config. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The locks this process holds on the datastore. */
  readonly held: HeldLocks = new HeldLocks();
  /** Events of the provider, its locks and its services. */
  readonly events: SluiceEmitter;
  readonly #build: ProviderBuilder;
  readonly #deps: ExtensionDeps;
  readonly #services = new Map<string, Promise<SyncService>>();
  /** The cache and store of the service each warning came from (see {@link cliTargetOf}). */
  readonly #warnedFrom = new WeakMap<WarningEvent, CliTarget>();
  /** The cache the tool first asked a solo service of, for warnings of no one service (its locks). */
  #soloCachePath?: string;
  readonly #type: string;
  #provider?: StoreProvider;
  #conditionalStore?: ObjectStore;

  /**
   * `type` labels the warnings written through `deps.warn` (the extension
   * type, e.g. `@sluice/s3-datastore`).
   */
  constructor(
    config: Record<string, unknown>,
    build: ProviderBuilder,
    deps: ExtensionDeps,
    type = "sluice",
  ) {
    this.config = config;
    this.#build = build;
    this.#deps = deps;
    this.events = deps.events ?? createEmitter();
    this.#type = type;
    // The lockfile guard's warning says a change was not pushed; here the
    // lockfile bridge publishes it right after (or says it could not:
    // `lockfile_change_unpublished`), so it is not written.
    if (deps.warn) {
      this.events.on(
        "warning",
        warningPrinter(
          type,
          deps.warn,
          Date.now,
          new Set([LOCKFILE_GUARDED]),
          (w) => this.cliTargetOf(w),
        ),
      );
    }
  }

  /**
   * The cache and store the Sluice commands a warning names are run on, as
   * the Sluice command line takes them: those of the service that warned;
   * for a warning of no one service (a lock's), the datastore's own store
   * with the first solo cache this process opened; undefined before any (a
   * namespace's cache takes its store under the namespace, where the lock
   * keys are not). A message that names its `--cache` already is written as
   * it is (see `withCliTarget`).
   */
  cliTargetOf(w: WarningEvent): CliTarget | undefined {
    const from = this.#warnedFrom.get(w);
    if (from) return from;
    return this.#soloCachePath === undefined ? undefined : this.cliTarget(this.#soloCachePath, "");
  }

  /**
   * The datastore's events as the service of `target` emits them: the same
   * emitter (its listeners, their counts and every event as before), but a
   * warning emitted through it is remembered as that service's.
   */
  #warningFrom(target: CliTarget): SluiceEmitter {
    const events = this.events;
    const warnedFrom = this.#warnedFrom;
    const emit = ((name: string, ...args: unknown[]) => {
      if (name === "warning" && args[0] && typeof args[0] === "object") {
        warnedFrom.set(args[0] as WarningEvent, target);
      }
      return (events.emit as (name: string, ...args: unknown[]) => boolean)(name, ...args);
    }) as SluiceEmitter["emit"];
    // Each method bound once (a push reads some of them per file).
    const bound = new Map<PropertyKey, unknown>();
    return new Proxy(events, {
      get(t, key) {
        if (key === "emit") return emit;
        const v = Reflect.get(t, key, t);
        if (typeof v !== "function") return v;
        let b = bound.get(key);
        if (b === undefined) bound.set(key, b = v.bind(t));
        return b;
      },
    });
  }

  /**
   * Writes `e` in full through `deps.warn` when the tool would cut its
   * message short (see `errorLine` in `warnings.ts`).
   */
  tellError(e: unknown): void {
    const line = errorLine(this.#type, e);
    if (line && this.#deps.warn) this.#deps.warn(line);
  }

  /** The cache and store URL the Sluice command line takes for `cachePath` and `namespace`. */
  cliTarget(cachePath: string, namespace: string): CliTarget {
    return {
      cacheDir: namespace ? `${cachePath}/${namespace}` : cachePath,
      storeUrl: cliStoreUrl(this.provider.resolveDatastorePath(""), this.config, namespace),
    };
  }

  /** The Sluice provider, built on first use (no I/O: clients connect on their first request). */
  get provider(): StoreProvider {
    return this.#provider ??= this.#build({ ...this.config }, {
      createService: this.#deps.createService,
      events: this.events,
      ...(this.#deps.identity ? { identity: this.#deps.identity } : {}),
      ...(this.#deps.clock ? { clock: this.#deps.clock } : {}),
      ...(this.#deps.conditional ? { conditional: this.#deps.conditional } : {}),
      ...(this.#deps.lockRegistry ? { lockRegistry: this.#deps.lockRegistry } : {}),
    });
  }

  /**
   * The datastore's store behind the conditional-write fallback, with the
   * probe results, setting and warning its locks and pushes use: for the
   * create-only and compare-and-swap writes made outside a sync service
   * (namespace manifests).
   */
  get conditionalStore(): ObjectStore {
    const p = this.provider;
    return this.#conditionalStore ??= withConditionalFallback(p.store, {
      setting: p.config.conditionalWrites,
      registry: this.#deps.conditional ?? defaultConditionalWrites,
      now: () => p.clock.now(),
      events: this.events,
    });
  }

  /** Who this process writes and locks as. */
  get identity(): Identity {
    return this.provider.identity;
  }

  /** The Sluice service of `cachePath` for `namespace` (`""`: solo), opened once. */
  service(cachePath: string, namespace: string): Promise<SyncService> {
    if (!namespace) this.#soloCachePath ??= cachePath;
    const cacheDir = namespace ? `${cachePath}/${namespace}` : cachePath;
    let svc = this.#services.get(cacheDir);
    if (!svc) {
      svc = this.#open(cachePath, cacheDir, namespace);
      this.#services.set(cacheDir, svc);
      svc.catch(() => this.#services.delete(cacheDir));
    }
    return svc;
  }

  async #open(cachePath: string, cacheDir: string, namespace: string): Promise<SyncService> {
    const p = this.provider;
    // Where the existing extensions, on the same cache, never upload it.
    const stateDir = sharedStateDir(cachePath, namespace);
    await refuseLinkedStateDir(cachePath, stateDir);
    if (await adoptEarlierState(cacheDir, stateDir) === "both") {
      const earlier = `${cacheDir}/${STATE_DIR}`;
      this.events.emit("warning", {
        code: "earlier_state_kept",
        message:
          `${earlier} holds a sync state of this cache, which now keeps it in ${stateDir}: it was left as it is and is not read: its dirty marks (changes made here and not pushed) and open conflicts are not acted on. The tool's existing S3 and GCS extensions, if ever run on this cache, would upload it. Nothing else was changed. Look through it (dirty.log names changes made here that it had not pushed: push those paths again; a copy under set-aside/ may be the only one of a change), then remove it (\`rm -r ${
            shellWord(earlier)
          }\`).`,
      });
    }
    // The store this cache mirrors, for the command line run on it (which a
    // warning may name): it takes that store and refuses another one, as
    // does this extension when its configuration names another datastore.
    const found = storeRecordOf(this.cliTarget(cachePath, namespace));
    // The command line run on this cache follows the configuration's classifier rules too.
    const record = found && p.config.classifierRules.length > 0
      ? { ...found, classifierRules: [...p.config.classifierRules] }
      : found;
    if (record) await refuseOtherStore(cacheDir, stateDir, record, cachePath);
    const svc = await this.#deps.createService({
      cacheDir,
      stateDir,
      store: namespace ? new PrefixedStore(p.store, namespace) : p.store,
      lockBackend: p.lockBackend,
      identity: p.identity,
      clock: p.clock,
      events: this.#warningFrom(this.cliTarget(cachePath, namespace)),
      // The tool writes a version's metadata.yaml last: a version without one
      // is still being written (unfinished-version-holder).
      config: { ...toSyncConfig(p.config), unfinishedVersions: "hold" },
      ...(this.#deps.conditional ? { conditional: this.#deps.conditional } : {}),
      ...(this.#deps.disableGatesForTesting ? { disable: this.#deps.disableGatesForTesting } : {}),
    });
    if (record) {
      const had = await svc.cache.readState<StoreRecord>(STORE_RECORD).catch(() => null);
      if (
        had?.url !== record.url || had?.identity !== record.identity ||
        had?.unfinishedVersions !== record.unfinishedVersions ||
        JSON.stringify(had?.classifierRules) !== JSON.stringify(record.classifierRules)
      ) {
        // Best effort: a cache this process may not write fails its sync with its own error.
        await svc.cache.writeState(STORE_RECORD, record).catch(() => {});
      }
    }
    return svc;
  }
}

/** Runtimes by config, so that every `createProvider` of one datastore shares one. */
export class RuntimeRegistry {
  readonly #runtimes = new Map<string, DatastoreRuntime>();
  readonly #build: ProviderBuilder;
  readonly #deps: ExtensionDeps;
  readonly #type: string;

  constructor(build: ProviderBuilder, deps: ExtensionDeps, type = "sluice") {
    this.#build = build;
    this.#deps = deps;
    this.#type = type;
  }

  /** The runtime of `config` (created on first request). */
  get(config: Record<string, unknown>): DatastoreRuntime {
    const key = stableJson(config);
    let rt = this.#runtimes.get(key);
    if (!rt) {
      rt = new DatastoreRuntime(config, this.#build, this.#deps, this.#type);
      this.#runtimes.set(key, rt);
    }
    return rt;
  }
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  const o = v as Record<string, unknown>;
  return `{${
    Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) =>
      `${JSON.stringify(k)}:${stableJson(o[k])}`
    ).join(",")
  }}`;
}
