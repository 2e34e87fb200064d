/**
 * The lock engine as a {@link LockBackend}: {@link storeLockBackend} creates
 * {@link StoreLock}s over one store, with a backend's default lock options
 * under each lock's own, all sharing one emitter (and one `clock_skew`
 * warning: the machine's clock is the same for all of them).
 *
 * @module
 */
import { createEmitter, type SluiceEmitter } from "../events.ts";
import type { Identity, LockBackend, LockOptions, ObjectStore } from "../ports.ts";
import { lockOptionsOver } from "./lock_timings.ts";
import { StoreLock, type StoreLockOptions } from "./lock_engine.ts";

/** Options of {@link storeLockBackend}; `events` is shared by every lock of the backend. */
export interface StoreLockBackendOptions
  extends Pick<StoreLockOptions, "clock" | "random" | "events"> {
  /** Registry name; default `store`. */
  readonly name?: string;
  /** Lock options applied when `createLock` leaves them out. */
  readonly defaults?: LockOptions;
}

/** The engine's {@link LockBackend}: its locks are {@link StoreLock}s sharing one emitter. */
export interface StoreLockBackend extends LockBackend {
  /** Receives the events of every lock this backend creates. */
  readonly events: SluiceEmitter;
  /** Creates (does not acquire) the lock at `key` for `identity`. */
  createLock(key: string, identity: Identity, options?: LockOptions): StoreLock;
}

/**
 * The engine as a {@link LockBackend} over `store`, for any store with
 * conditional writes.
 *
 * @example
 * ```ts
 * import { storeLockBackend } from "./lock_engine.ts";
 * import type { ObjectStore } from "../ports.ts";
 * function locks(store: ObjectStore) {
 *   const backend = storeLockBackend(store, { defaults: { ttlMs: 30_000 } });
 *   backend.events.on("warning", (w) => console.error(w.message));
 *   return backend.createLock(".datastore.lock", { holder: "a@h", hostname: "h", pid: 1 });
 * }
 * ```
 */
export function storeLockBackend(
  store: ObjectStore,
  options: StoreLockBackendOptions = {},
): StoreLockBackend {
  const events = options.events ?? createEmitter();
  const { clock, random, defaults } = options;
  // One machine, one clock: `clock_skew` is told once by all of the backend's locks.
  const skewWarning = { warned: false };
  return {
    name: options.name ?? "store",
    events,
    createLock: (key: string, identity: Identity, lockOptions: LockOptions = {}) => {
      const merged = lockOptionsOver(defaults ?? {}, lockOptions);
      return new StoreLock(store, key, identity, {
        ...merged,
        clock,
        random,
        events,
        skewWarning,
      });
    },
  };
}
