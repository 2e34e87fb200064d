/**
 * The third-party lock hook: {@link LockBackend} factories registered by name
 * and chosen by name in the datastore setup config (`lock.backend`).
 *
 * A registry is an ordinary instance, so tests and embedders make their own;
 * {@link defaultLockRegistry} is the process-wide one, pre-populated with
 * `store` (the lock engine over the datastore's own store).
 * {@link conditionalLockBackend} puts a backend over a store behind the
 * conditional-write fallback, as every service and provider does.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { SluiceEmitter } from "../events.ts";
import { lockOptionsOver, storeLockBackend } from "./lock_engine.ts";
import {
  type ConditionalWrites,
  type ProbeCache,
  withConditionalFallback,
} from "../transfer/conditional.ts";
import type { ConditionalWritesSetting } from "../context.ts";
import { systemClock } from "../clock.ts";
import type { Clock, LockBackend, LockOptions, ObjectStore } from "../ports.ts";

/** What a lock backend factory is given. */
export interface LockBackendContext {
  /** The datastore's own object store. */
  readonly store: ObjectStore;
  /** The injected clock; locks must take all their time from it. */
  readonly clock: Clock;
  /** The `lock` section of the datastore setup config (backend-specific keys included). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Where lock events should go, when the caller forwards them. */
  readonly events?: SluiceEmitter;
}

/** Creates a {@link LockBackend}; throws `ConfigError` on bad config. */
export type LockBackendFactory = (ctx: LockBackendContext) => LockBackend;

/** The keys of the `lock` section the `store` backend reads: the engine's timings. */
export const LOCK_TIMING_KEYS = ["ttlMs", "heartbeatMs", "maxWaitMs", "retryDelayMs"] as const;
const TIMINGS = LOCK_TIMING_KEYS;

/**
 * Reads the engine's timing options (`ttlMs`, `heartbeatMs`, `maxWaitMs`,
 * `retryDelayMs`) from a lock config section; `ConfigError` on a wrong type.
 *
 * @example
 * ```ts
 * import { lockTimingsFromConfig } from "./lock_registry.ts";
 * const options = lockTimingsFromConfig({ ttlMs: 10_000 }); // { ttlMs: 10000 }
 * ```
 */
export function lockTimingsFromConfig(config: Readonly<Record<string, unknown>>): LockOptions {
  const out: Record<string, number> = {};
  for (const field of TIMINGS) {
    const v = config[field];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new ConfigError(`lock.${field}`, `a number of milliseconds, got ${JSON.stringify(v)}`);
    }
    out[field] = v;
  }
  return out;
}

/**
 * Lock backend factories by name.
 *
 * @example
 * ```ts
 * import { LockBackendRegistry } from "./lock_registry.ts";
 * import { storeLockBackend } from "./lock_engine.ts";
 * const registry = new LockBackendRegistry();
 * registry.register("mine", ({ store, clock }) => storeLockBackend(store, { name: "mine", clock }));
 * console.log(registry.names()); // ["mine"]
 * ```
 */
export class LockBackendRegistry {
  readonly #factories = new Map<string, LockBackendFactory>();

  /**
   * Registers `factory` under `name`. Registering a taken name throws
   * `ConfigError` unless `replace` is set (to override a built-in on purpose).
   */
  register(name: string, factory: LockBackendFactory, options: { replace?: boolean } = {}): this {
    if (typeof name !== "string" || name.trim() === "" || name !== name.trim()) {
      throw new ConfigError(
        "lock.backend",
        `a non-empty name without surrounding spaces, got ${JSON.stringify(name)}`,
      );
    }
    if (typeof factory !== "function") {
      throw new ConfigError("lock.backend", `a factory function for "${name}"`);
    }
    if (this.#factories.has(name) && !options.replace) {
      throw new ConfigError(
        "lock.backend",
        `a name not registered yet; "${name}" is already registered (pass { replace: true } to override it)`,
      );
    }
    this.#factories.set(name, factory);
    return this;
  }

  /** Removes a registration; true if there was one. */
  unregister(name: string): boolean {
    return this.#factories.delete(name);
  }

  /** True when `name` is registered. */
  has(name: string): boolean {
    return this.#factories.has(name);
  }

  /**
   * Throws the `ConfigError` {@link create} would for an unknown `name`,
   * without creating anything: for a setup that checks its config before any
   * lock is made.
   */
  assertKnown(name: unknown): void {
    this.#known(name);
  }

  #known(name: unknown): LockBackendFactory {
    const factory = typeof name === "string" ? this.#factories.get(name) : undefined;
    if (factory) return factory;
    const known = this.names().map((n) => `"${n}"`).join(", ") || "none registered";
    throw new ConfigError(
      "lock.backend",
      `one of the registered lock backends (${known}), got ${
        JSON.stringify(name)
      }; register a third-party backend with registerLockBackend() before setting up the datastore`,
    );
  }

  /** The registered names, sorted. */
  names(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /**
   * Creates the backend registered as `name`. An unknown name, or a factory
   * that returns something without `createLock`, is a `ConfigError` at
   * `lock.backend` listing the known names.
   */
  create(name: string, ctx: LockBackendContext): LockBackend {
    const factory = this.#known(name);
    const backend = factory(ctx);
    if (typeof backend?.createLock !== "function") {
      throw new ConfigError(
        "lock.backend",
        `a backend whose factory returns a LockBackend with createLock(); "${name}" returned ${typeof backend}`,
      );
    }
    return backend;
  }
}

/** The `store` factory: the lock engine over the datastore's own store, timings from config. */
export function storeLockFactory(
  { store, clock, config, events }: LockBackendContext,
): LockBackend {
  return storeLockBackend(store, { clock, events, defaults: lockTimingsFromConfig(config) });
}

/** The process-wide registry, pre-populated with `store`. Tests make their own instead. */
export const defaultLockRegistry: LockBackendRegistry = new LockBackendRegistry().register(
  "store",
  storeLockFactory,
);

/**
 * Registers a lock backend in {@link defaultLockRegistry}.
 *
 * @example
 * ```ts
 * import { registerLockBackend } from "./lock_registry.ts";
 * import { storeLockBackend } from "./lock_engine.ts";
 * registerLockBackend("my-lock", ({ store, clock }) => storeLockBackend(store, { name: "my-lock", clock }));
 * ```
 */
export function registerLockBackend(
  name: string,
  factory: LockBackendFactory,
  options: { replace?: boolean } = {},
): void {
  defaultLockRegistry.register(name, factory, options);
}

/**
 * Creates the backend `name` from {@link defaultLockRegistry}; `ConfigError`
 * at `lock.backend` for an unknown name.
 *
 * @example
 * ```ts
 * import { createLockBackend } from "./lock_registry.ts";
 * import { systemClock } from "../clock.ts";
 * import type { ObjectStore } from "../ports.ts";
 * function backendFor(store: ObjectStore) {
 *   return createLockBackend("store", { store, clock: systemClock, config: {} });
 * }
 * ```
 */
export function createLockBackend(name: string, ctx: LockBackendContext): LockBackend {
  return defaultLockRegistry.create(name, ctx);
}

/** Options of {@link conditionalLockBackend}. */
export interface ConditionalLockBackendOptions {
  /** Probe results and the once-per-endpoint fallback warning; default the process-wide registry. */
  readonly conditional?: ConditionalWrites;
  /** The datastore's `conditionalWrites` setting; default `auto`. */
  readonly setting?: ConditionalWritesSetting;
  /** Where probe results are cached (a cache's internal state); default the in-process memo only. */
  readonly cache?: ProbeCache;
  /** Time of the locks; default the system clock. */
  readonly clock?: Clock;
  /** Where the fallback warning and the lock events go. */
  readonly events?: SluiceEmitter;
  /** The `lock` section of the datastore setup config; default none (the engine's own timings). */
  readonly config?: Readonly<Record<string, unknown>>;
  /**
   * Creates the backend over the wrapped store; default {@link storeLockFactory}
   * (the lock engine). A provider passes the registry's backend named by `lock.backend`.
   */
  readonly factory?: LockBackendFactory;
}

/**
 * The lock backend over `store` behind the conditional-write fallback
 * (`withConditionalFallback`), so that the engine's create-only acquire and
 * compare-and-swap heartbeat get the same fallback, the same probe results
 * and the same one warning per endpoint as the pushes. The one place this
 * wiring is made: the composition root's default backend and every
 * provider's backend come from here.
 *
 * @example
 * ```ts
 * import { conditionalLockBackend, defaultLockRegistry } from "./lock_registry.ts";
 * import { ConditionalWrites } from "../transfer/conditional.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const conditional = new ConditionalWrites();
 * // The lock engine itself, with the engine's own timings:
 * const engine = conditionalLockBackend(new InMemoryStore(), { conditional });
 * // The backend a datastore config names, with its timings:
 * const lock = { backend: "store", ttlMs: 10_000 };
 * const named = conditionalLockBackend(new InMemoryStore(), {
 *   conditional,
 *   setting: "required",
 *   config: lock,
 *   factory: (ctx) => defaultLockRegistry.create(lock.backend, ctx),
 * });
 * console.log(engine.name, named.name); // store store
 * ```
 */
export function conditionalLockBackend(
  store: ObjectStore,
  options: ConditionalLockBackendOptions = {},
): LockBackend {
  const { conditional, setting, cache, events } = options;
  const factory = options.factory ?? storeLockFactory;
  const config = options.config ?? {};
  const backend = factory({
    store: withConditionalFallback(store, { registry: conditional, setting, events, cache }),
    clock: options.clock ?? systemClock,
    config,
    events,
  });
  // The config's timings reach every backend, a third party's too, as the
  // defaults of each lock (what the caller passes still wins).
  const timings = lockTimingsFromConfig(config);
  if (Object.keys(timings).length === 0) return backend;
  return {
    name: backend.name,
    createLock: (key, identity, o = {}) =>
      backend.createLock(key, identity, lockOptionsOver(timings, o)),
  };
}
