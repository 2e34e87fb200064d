/**
 * The warning said before a wait for the global lock (`global_lock_wait`):
 * a wait can be long, and is never silent.
 *
 * @module
 */
import type { WarningEvent } from "../events.ts";
import type { AcquireOptions, DistributedLock, Identity, LockInfo } from "../ports.ts";
import { lockReleaseCommand } from "./lock_object.ts";
import { unreadableProblem } from "./lock_body.ts";
import { StoreLock } from "./lock_engine.ts";

/**
 * Before waiting for the global lock `lock`: a `global_lock_wait` warning
 * through `events` when something holds it (a wait can be long, a minute by
 * default), naming the holder and `what` waits. An object there that is no
 * lock is described, not thrown: it is waited for as well, until it is stale.
 * A failed look says nothing (the wait itself reports what it meets).
 * True when it said so. Before an acquisition, use
 * {@link sayingGlobalLockWait}: the lock may be taken between the look and
 * the attempt.
 */
export async function sayGlobalLockWait(
  lock: DistributedLock,
  events: { emit(type: "warning", w: WarningEvent): unknown },
  what: string,
  signal?: AbortSignal,
  self?: Identity,
): Promise<boolean> {
  const holder =
    await (lock instanceof StoreLock ? lock.describe({ signal }) : lock.inspect({ signal }))
      .catch(() => null);
  if (!holder || isSelf(holder, self)) return false;
  events.emit("warning", waitWarning(lock, holder, what));
  return true;
}

/**
 * {@link sayGlobalLockWait}, and the options for the acquisition of `lock`
 * that follows: when the look found it free but another takes it before
 * this process's attempt, the attempt that finds it held says so then
 * (`onWait`, for locks that tell). Said once either way.
 */
export async function sayingGlobalLockWait(
  lock: DistributedLock,
  events: { emit(type: "warning", w: WarningEvent): unknown },
  what: string,
  signal?: AbortSignal,
  self?: Identity,
): Promise<AcquireOptions> {
  let told = await sayGlobalLockWait(lock, events, what, signal, self);
  return {
    ...(signal ? { signal } : {}),
    onWait: (holder) => {
      if (told || isSelf(holder, self)) return;
      told = true;
      events.emit("warning", waitWarning(lock, holder, what));
    },
  };
}

/** Held by this very process (the tool's command holds it, and lends it): no wait. */
function isSelf(holder: LockInfo, self: Identity | undefined): boolean {
  return self !== undefined && holder.holder === self.holder &&
    holder.hostname === self.hostname && holder.pid === self.pid;
}

function waitWarning(lock: DistributedLock, holder: LockInfo, what: string): WarningEvent {
  const problem = unreadableProblem(holder);
  return {
    code: "global_lock_wait",
    message: problem === undefined
      ? `Waiting for the global lock ${lock.key}, held by ${holder.holder} on ${holder.hostname} (pid ${holder.pid}), last renewed ${holder.acquiredAt}: ${what}.`
      : `Waiting for the global lock ${lock.key}: an object is there that is no lock (${problem}), last written ${holder.acquiredAt}, so it is held by an unknown holder; it is taken over once it is older than the lock's time to live (${holder.ttlMs} ms). Meanwhile ${what}. If nothing holds it, remove it now with \`${
        lockReleaseCommand(lock.key)
      }\`.`,
    path: lock.key,
  };
}
