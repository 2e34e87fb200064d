/**
 * The work a two-phase push's preparation left to its commit (a lost data
 * version's marker take-back, which may write the index), made under the
 * global lock when the push reaches no commit pass: old clients rewrite the
 * index under that lock from a read made before, without a
 * compare-and-swap, and would put back the entry naming the upload the
 * take-back deleted.
 *
 * @module
 */
import { isLockTimeout } from "../lock_errors.ts";
import { sayingGlobalLockWait } from "../locks/global_lock_wait.ts";
import { releaseOrWarn } from "../locks/lock_release.ts";
import type { SluiceEmitter } from "../events.ts";
import type { DistributedLock, Identity } from "../ports.ts";

/** One read of `lock`: true when it is gone or names another holder (a failed read says nothing). */
export async function namesAnotherHolder(
  lock: DistributedLock,
  identity?: Identity,
): Promise<boolean> {
  const info = await lock.inspect().catch(() => undefined);
  if (info === undefined) return false;
  if (info === null) return true;
  if (lock.nonce !== undefined) return info.nonce !== lock.nonce;
  return identity !== undefined &&
    (info.holder !== identity.holder || info.hostname !== identity.hostname ||
      info.pid !== identity.pid);
}

/**
 * Acquires `lock` (not held yet: acquired and released here, waiting as its
 * `maxWaitMs` says, after a `global_lock_wait` warning naming `what` waits),
 * runs `work` while it is still held, and releases it. False when the work
 * was not made: the lock was not had in time, or was found lost once had
 * (the work is then left to a later push). Any other failure to acquire it
 * (an abort, the store's) is thrown, the work not made.
 */
export async function underGlobalLockOrLeft(
  lock: DistributedLock,
  deps: { readonly events: Pick<SluiceEmitter, "emit">; readonly identity?: Identity },
  what: string,
  work: () => Promise<void>,
  signal?: AbortSignal,
): Promise<boolean> {
  const acquire = await sayingGlobalLockWait(lock, deps.events, what, signal);
  try {
    await lock.acquire(acquire);
  } catch (e) {
    if (!isLockTimeout(e)) throw e;
    return false;
  }
  try {
    // A lock that reports no loss of its own (a third party's may not) is read once.
    const held = !(lock.lost ||
      (lock.lost === undefined && await namesAnotherHolder(lock, deps.identity)));
    if (held) await work();
    return held;
  } finally {
    await releaseOrWarn(lock, deps.events);
  }
}
