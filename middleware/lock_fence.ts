/**
 * lock-fence: no push under a model lock that no longer names this run.
 *
 * Before any write of a push made under model locks, every lock is checked:
 * first its own loss flag (engine locks know when a heartbeat found the lock
 * gone or taken), then `inspect()`. The lock must exist and name this run's
 * holder, hostname and pid, and, when the lock knows its nonce, this
 * acquisition's nonce. Otherwise the push is refused with
 * `ModelLockLostError` (`model_lock_lost`, exit 1). A lock that cannot be
 * read is not a refusal: the push fails with a retryable `LockReadError` and
 * the write stays dirty. The check runs again right before the commit writes
 * (markers, indexes). A push without locks (a plain sync) is not fenced.
 *
 * @module
 */
import { AbortedError, preview } from "../sync/errors.ts";
import { LockReadError, type LostLock, ModelLockLostError } from "../sync/lock_errors.ts";
import { describeHolder } from "../sync/locks/lock_body.ts";
import type { PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import type { DistributedLock, Identity } from "../sync/ports.ts";

/** The gate's registered name. */
export const LOCK_FENCE = "lock-fence";

/** Why one lock no longer names this run, or null while it does. */
async function checkLock(
  lock: DistributedLock,
  identity: Identity,
  signal?: AbortSignal,
): Promise<LostLock | null> {
  if (lock.lost) {
    const loss = lock.loss;
    const newHolder = loss?.newHolder
      ? describeHolder(loss.newHolder)
      : loss?.kind === "taken"
      ? "another process"
      : null;
    return { key: lock.key, newHolder, ...(loss?.state ? { state: loss.state } : {}) };
  }
  let info;
  try {
    info = await lock.inspect({ signal });
  } catch (e) {
    if (e instanceof AbortedError || e instanceof LockReadError) throw e;
    throw new LockReadError(lock.key, preview(e instanceof Error ? e.message : String(e), 160), {
      cause: e,
    });
  }
  if (!info) return { key: lock.key, newHolder: null };
  if (
    info.holder !== identity.holder || info.hostname !== identity.hostname ||
    info.pid !== identity.pid
  ) {
    return { key: lock.key, newHolder: describeHolder(info) };
  }
  if (lock.nonce !== undefined && info.nonce !== lock.nonce) {
    return { key: lock.key, newHolder: `${describeHolder(info)} under another acquisition` };
  }
  return null;
}

/**
 * Checks every lock; throws `ModelLockLostError` naming each lost lock, or,
 * when none is known lost but one could not be read, that lock's retryable
 * `LockReadError`.
 *
 * @example
 * ```ts
 * import { verifyLocks } from "./lock_fence.ts";
 * import type { DistributedLock } from "../sync/ports.ts";
 * async function beforePush(locks: DistributedLock[]) {
 *   await verifyLocks(locks, { holder: "a@host", hostname: "host", pid: 1 });
 * }
 * ```
 */
export async function verifyLocks(
  locks: readonly DistributedLock[],
  identity: Identity,
  signal?: AbortSignal,
): Promise<void> {
  // One at a time: a push holds few locks (a step's, and the steps' beside
  // it), and its requests stay in the order they were made.
  const lost: LostLock[] = [];
  let failure: unknown;
  for (const l of locks) {
    try {
      const r = await checkLock(l, identity, signal);
      if (r) lost.push(r);
    } catch (e) {
      failure ??= e;
    }
  }
  // A lock known lost decides the run even when another one could not be read.
  if (lost.length > 0) throw new ModelLockLostError(lost);
  if (failure !== undefined) throw failure;
}

/**
 * The gate: fences the push before any write, and again right before the
 * commit writes.
 *
 * @example
 * ```ts
 * import { lockFence } from "./lock_fence.ts";
 * const gate = lockFence();
 * ```
 */
export function lockFence(): Middleware<PushContext> {
  return async function lockFenceGate(ctx, next) {
    if (ctx.locks.length === 0 || ctx.dryRun) return await next();
    const fence = async (when: string) => {
      await verifyLocks(ctx.locks, ctx.identity, ctx.signal);
      ctx.note(LOCK_FENCE, `${ctx.locks.length} model lock(s) still held by this run ${when}`);
    };
    await fence("before the uploads");
    ctx.beforeCommit.push(() => fence("before the commit"));
    await next();
  };
}

/**
 * The gate's default registration (phase `fence`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { lockFenceEntry } from "./lock_fence.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(lockFenceEntry());
 * ```
 */
export function lockFenceEntry(): MiddlewareEntry<PushContext> {
  return {
    name: LOCK_FENCE,
    phase: "fence",
    middleware: lockFence(),
    description: "no push under a model lock that no longer names this run (model_lock_lost)",
  };
}
