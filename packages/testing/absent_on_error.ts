/**
 * A test double for the weakest third-party lock the core must survive.
 *
 * @module
 */
import type { DistributedLock } from "../../sync/ports.ts";

/**
 * Wraps `lock` so it behaves as some third-party lock backends do: any failed
 * read is reported as "absent" (`inspect()` returns null), and no nonce or
 * loss flag is exposed, so the lock fence must decide from `inspect()` alone.
 * The core must still hold: a refused run leaves its data on no clone.
 *
 * @example
 * ```ts
 * import { absentOnError } from "./absent_on_error.ts";
 * import type { DistributedLock } from "../../sync/ports.ts";
 * const weak = (locks: DistributedLock[]) => locks.map(absentOnError);
 * ```
 */
export function absentOnError(lock: DistributedLock): DistributedLock {
  return {
    key: lock.key,
    acquire: (o) => lock.acquire(o),
    release: () => lock.release(),
    withLock: (fn, o) => lock.withLock(fn, o),
    inspect: async (o) => {
      try {
        return await lock.inspect(o);
      } catch {
        return null;
      }
    },
    forceRelease: (nonce) => lock.forceRelease(nonce),
  };
}
