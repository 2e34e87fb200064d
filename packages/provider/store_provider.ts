/**
 * {@link StoreProvider}: the datastore provider over one `ObjectStore`, which
 * the S3 and GCS packages configure from the JSON a datastore setup passes.
 *
 * @module
 */
import { ConfigError } from "../../sync/errors.ts";
import { processIdentity, systemClock } from "../../sync/clock.ts";
import { createEmitter, type SluiceEmitter } from "../../sync/events.ts";
import {
  type ConditionalWrites,
  defaultConditionalWrites,
} from "../../sync/transfer/conditional.ts";
import {
  conditionalLockBackend,
  defaultLockRegistry,
  type LockBackendRegistry,
} from "../../sync/locks/lock_registry.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import type {
  Clock,
  DistributedLock,
  Identity,
  LockBackend,
  ObjectStore,
} from "../../sync/ports.ts";
import type { SyncService, SyncServiceOptions } from "../../sync/service/service.ts";
import type { DatastoreProvider, ProviderLockOptions, Verifier } from "./shapes.ts";
import { type CommonProviderConfig, toSyncConfig } from "./config.ts";
import { verifyStore } from "./verifier.ts";

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

/** What a {@link ServiceFactory} is given: the sync service options without the pipelines. */
export interface ServiceFactoryOptions extends Omit<SyncServiceOptions, "push" | "write"> {
  /** Probe results and warnings shared by the gates and the locks; default process-wide. */
  readonly conditional?: ConditionalWrites;
  /** Gate names to leave out (replays only; never in production). */
  readonly disable?: readonly string[];
}

/**
 * Creates a sync service from options. Packages never import the
 * composition root: whoever assembles the application passes its
 * `createSluice` (the default gates) in; `createSyncService` (no gates) fits
 * too.
 */
export type ServiceFactory = (options: ServiceFactoryOptions) => Promise<SyncService>;

/** {@link ProviderDeps} plus the service factory, which a backend's `create…Provider` requires. */
export interface BackendProviderDeps extends ProviderDeps {
  /** Creates the sync services: the composition root's `createSluice`, for the default gates. */
  readonly createService: ServiceFactory;
}

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
  /** Creates the sync services (`createSluice` from the composition root: the default gates). */
  readonly createService: ServiceFactory;
  /** Injected collaborators. */
  readonly deps?: ProviderDeps;
  /** Releases the store's client, if it holds one. */
  readonly close?: () => void;
}

/**
 * A {@link DatastoreProvider} over one store: the lock backend from the
 * registry by `lock.backend`, a verifier that times a read and probes
 * conditional writes, and sync services from the given factory (the
 * default gates with the composition root's `createSluice`).
 *
 * Paths: the datastore path is `<scheme>://<bucket>[/<prefix>]`; the cache is
 * `<repoDir>/.sluice-cache/<scheme>/<bucket>[/<prefix>]`, so two datastores
 * (also the same bucket name on two backends) never share a cache.
 *
 * @example
 * ```ts
 * import { StoreProvider } from "./store_provider.ts";
 * import { createSyncService } from "../../sync/service/service.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const p = new StoreProvider({
 *   scheme: "mem", bucket: "b", store: new InMemoryStore(), createService: createSyncService,
 *   config: {
 *     prefix: "", conditionalWrites: "auto", concurrency: 32, requestTimeoutMs: 1000,
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
    return this.#backend ??= conditionalLockBackend(this.store, {
      conditional: this.#conditional,
      setting: this.config.conditionalWrites,
      clock: this.clock,
      events: this.events,
      config: this.config.lock,
      factory: (ctx) => this.#registry.create(this.config.lock.backend, ctx),
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

  /** A sync service (from `createService`) over `cachePath`, sharing this provider's store and locks. */
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
