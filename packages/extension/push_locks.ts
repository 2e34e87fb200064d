/**
 * The model locks a push of the tool runs under, as Sluice's push options
 * take them: the locks this process holds on the namespace (each seen with
 * its key relative to the namespace), their models, the versions written
 * since each was acquired and those not written by this run, so that the
 * lock fence and the refused-run eraser run as through Sluice's own API.
 *
 * - A push for some models (a run's flush) is fenced by their locks only;
 *   what is under other runs' locks (their models' data directories) stays
 *   out of it, for their own pushes. A push naming no model (no run's
 *   flush) is fenced only by the held locks found lost as it starts, and
 *   leaves out what is under the others (see `fenceOf`).
 * - A prepared push commits without the locks this process settled since
 *   its preparation (see {@link commitView}).
 * - A push refused for a lost lock tells the held locks that no version
 *   left in the cache is this run's, and that each lock it was fenced by is
 *   lost to its run from then on (see {@link fenced}).
 *
 * @module
 */
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { ErasureRefusedError } from "../../middleware/erasure.ts";
import type { DistributedLock, LockLoss } from "../../sync/ports.ts";
import type { PreparedPush, PushOptions } from "../../sync/service/service.ts";
import type { HeldLocks, HeldModelLock } from "./held_locks.ts";

/**
 * `path` as the service of namespace `ns` sees it: relative to the
 * namespace's directory when under it, as it is otherwise.
 *
 * @example
 * ```ts
 * import { inNamespace } from "./push_locks.ts";
 * inNamespace("team", "team/data/t/m"); // "data/t/m"
 * ```
 */
export function inNamespace(ns: string, path: string): string {
  return ns && path.startsWith(`${ns}/`) ? path.slice(ns.length + 1) : path;
}

/** Why a spent lock counts as lost (see `HeldLocks.spent`): it may still name the run. */
const SPENT: LockLoss = {
  kind: "absent",
  detectedAt: 0,
  state:
    "lost to this run when a push of this process was refused for it, a read of it having found it gone or failed: that refusal discarded this run's data versions under it",
};

/**
 * A lock seen by a namespace's service: the same lock, its key relative to
 * the namespace, and lost once `spent` (a push it fenced was refused, see
 * `HeldLocks.spent`), so that the lock fence refuses its run's push.
 */
function viewOf(
  lock: DistributedLock,
  namespace: string,
  spent: (lock: DistributedLock) => boolean,
): DistributedLock {
  const key = inNamespace(namespace, lock.key);
  return {
    key,
    get nonce() {
      return lock.nonce;
    },
    get lost() {
      return lock.lost || spent(lock);
    },
    get loss() {
      return !lock.lost && spent(lock) ? SPENT : lock.loss;
    },
    acquire: (o) => lock.acquire(o),
    release: () => lock.release(),
    withLock: (fn, o) => lock.withLock(fn, o),
    inspect: (o) => lock.inspect(o),
    forceRelease: (n) => lock.forceRelease(n),
  };
}

/** The lock options of a push and the held locks under them. */
export interface PushLocks {
  /** The held model locks (seen by the namespace), their models and versions; the model directories held back. */
  readonly options: Pick<PushOptions, "locks" | "written" | "preexisting" | "models"> & {
    /** What is under the held locks not fencing the push, as the push plans (see `PushOptions.holdBack`). */
    readonly holdBack?: () => readonly string[];
  };
  /** The held locks under `options.locks`, in the same order. */
  readonly held: DistributedLock[];
}

/**
 * The lock options of a push of namespace `ns` from the cache `cachePath`
 * (the model locks `locks` holds, seen by the namespace), and the held locks
 * under them, which are told that a push under them starts.
 *
 * @example
 * ```ts
 * import { pushLockOptions } from "./push_locks.ts";
 * import { HeldLocks } from "./held_locks.ts";
 * const { options } = await pushLockOptions(new HeldLocks(), "/tmp/cache", "");
 * options.holdBack?.(); // [] (no model lock held: nothing to leave out)
 * ```
 */
export async function pushLockOptions(
  locks: HeldLocks,
  cachePath: string,
  ns: string,
  scope?: PushScope,
): Promise<PushLocks> {
  const all = locks.models(ns);
  const fence = all.length ? await fenceOf(all, scope, (l) => locks.spent(l)) : null;
  const h = all.length
    ? await locks.pushOptions(cachePath, ns, fence ?? (() => true))
    : { locks: [], written: [], preexisting: new Set<string>() };
  const strip = (p: string) => inNamespace(ns, p);
  // What is under a held lock not fencing this push stays out of it, dirty,
  // for the push of the run that holds it (fenced by it): the whole model
  // directory, so that a version that run writes once this push has looked
  // stays out of it too; and the locks are those held as the push plans,
  // so that a run which takes its lock after this look has its versions
  // left out as well.
  const fencing = new Set(h.locks.map((l: HeldModelLock) => l.lock));
  const holdBack = () =>
    locks.models(ns).filter((l) => !fencing.has(l.lock)).map((l) => strip(l.prefix));
  // A version written under a held lock not fencing this push since it was
  // taken is that lock's run's, even where a lock fencing it covers the
  // same directory (the same model's lock, broken, then taken again by
  // another run of this process): never this push's to erase on a refusal.
  const others = all.filter((l) => !fencing.has(l.lock));
  const othersRun = (d: string) =>
    others.some((o) =>
      d.startsWith(`${o.prefix}/`) && !(o.preexisting.get(cachePath) ?? new Set()).has(d)
    );
  const written = h.written.filter((d) => !othersRun(d));
  // Fenced by none of them (no lock held, or a push naming no model with
  // no held lock lost): a plain sync, which leaves out what is under them.
  if (h.locks.length === 0) return { options: { holdBack }, held: [] };
  const held = h.locks.map((l: HeldModelLock) => l.lock);
  locks.pushing(held);
  return {
    options: {
      locks: h.locks.map((l: HeldModelLock) => viewOf(l.lock, ns, (x) => locks.spent(x))),
      models: h.locks.map((l) => l.model),
      written: written.map(strip),
      preexisting: new Set([...h.preexisting].map(strip)),
      holdBack,
    },
    held,
  };
}

/**
 * Which held locks fence a push for `scope` (null: all of them); what is
 * under the others is held back from it.
 *
 * - A push for some models (a run's flush names them, `context.models`) is
 *   fenced by those models' locks only: another model's lock held by this
 *   process is another run's (a workflow's parallel step, or another
 *   command of the process), which that run's own push is fenced by. Its
 *   release (after its run's push committed, or otherwise) or its loss
 *   never refuses this push, nor does this push's refusal erase what was
 *   written under it: its model's directory is held back from this push.
 * - Where none of the held locks is of the push's models, every held lock
 *   fences it, but one found lost as it starts (another run's, broken by
 *   an operator): this push is not refused for it, and that run's own push
 *   is; what is under it stays out of this push as above.
 * - A push naming no model is no run's flush (the tool's flush of a
 *   structural command: the tool flushes a run naming its models, as the
 *   extension syncs scoped). It is fenced by the held locks found lost as
 *   it starts only: it is refused for them, and its refusal erases only
 *   what was written under them, so that a driver whose run's flush names
 *   no model never publishes a refused run's versions later either. What
 *   is under every other held lock is held back, for its run's own flush:
 *   such a lock lost while this push runs refuses nothing of it, nor of
 *   any run (nothing under it is in this push).
 * - With no scope (no way to tell a lost lock), every held lock fences it.
 * - A spent lock (a push it fenced was refused: `HeldLocks.spent`) counts
 *   as found lost, but never fences a push naming no model: its run's own
 *   push is refused for it (its view reports it lost), not that one again.
 */
async function fenceOf(
  held: readonly HeldModelLock[],
  scope: PushScope | undefined,
  spent: (lock: DistributedLock) => boolean,
): Promise<((l: HeldModelLock) => boolean) | null> {
  if (!scope) return null;
  if (scope.models.length) {
    const ours = (l: HeldModelLock) => scope.models.includes(l.model);
    if (held.some(ours)) return held.every(ours) ? null : ours;
  }
  // A spent lock (a push it fenced was refused) is lost to its run, whose
  // own push it refuses; a push naming no model is not refused for it again.
  const lost = new Set<DistributedLock>();
  for (const l of held) if (spent(l.lock) || await scope.lost(l.lock)) lost.add(l.lock);
  if (scope.models.length === 0) return (l) => lost.has(l.lock) && !spent(l.lock);
  return lost.size ? (l) => !lost.has(l.lock) : null;
}

/** The models a push is for (`type…/id`, as the tool's context names them), and how a held lock is found lost. */
export interface PushScope {
  /** None: a push naming no model (no run's flush). */
  readonly models: readonly string[];
  /** True when the lock no longer names this process; throws when it cannot be read. */
  lost(lock: DistributedLock): Promise<boolean>;
}

/** A prepared push and the held locks under its `options.locks`, in the same order. */
export interface HeldPreparedPush {
  readonly prepared: PreparedPush;
  readonly held: readonly DistributedLock[];
}

/**
 * The prepared push `data` as its commit runs it: without the model locks
 * `locks` has settled since the preparation (another step's, released
 * after its own push committed: see `HeldLocks.settled`), their models and
 * the versions written under them. The tool runs a workflow's steps in
 * parallel over one service, and each step's prepared push is given every
 * lock held then; a step whose lock is released before another's commit
 * would otherwise make that commit refuse as for a lost lock, and erase
 * the other step's run.
 */
export function commitView(
  data: HeldPreparedPush,
  locks: HeldLocks,
): { prepared: PreparedPush; held: DistributedLock[] } {
  const { prepared } = data;
  const keep = data.held.map((l) => !locks.settled(l));
  if (!keep.includes(false)) return { prepared, held: [...data.held] };
  const o = prepared.options;
  const optLocks = o.locks ?? [];
  const gone = optLocks.filter((_, i) => !keep[i]).map((l) =>
    `${l.key.slice(0, -"/.lock".length)}/`
  );
  return {
    prepared: {
      ...prepared,
      options: {
        ...o,
        locks: optLocks.filter((_, i) => keep[i]),
        ...(o.models ? { models: o.models.filter((_, i) => keep[i]) } : {}),
        ...(o.written
          ? { written: o.written.filter((w) => !gone.some((g) => w.startsWith(g))) }
          : {}),
      },
    },
    held: data.held.filter((_, i) => keep[i]),
  };
}

/**
 * Runs `push`, a push of namespace `ns` from the cache `cachePath` under
 * the held locks `fence` (all, when not given); when the pipeline refuses
 * it for a lost model lock, `locks` learns that no version left in the cache
 * under those locks is this run's, and that those locks are spent: each
 * later push fenced by one is refused (see `HeldLocks.refused`).
 *
 * @example
 * ```ts
 * import { fenced } from "./push_locks.ts";
 * import { HeldLocks } from "./held_locks.ts";
 * await fenced(new HeldLocks(), "/tmp/cache", "", () => Promise.resolve(1)); // 1
 * ```
 */
export async function fenced<T>(
  locks: HeldLocks,
  cachePath: string,
  ns: string,
  push: () => Promise<T>,
  fence?: readonly DistributedLock[],
): Promise<T> {
  try {
    return await push();
  } catch (e) {
    if (e instanceof ModelLockLostError || e instanceof ErasureRefusedError) {
      await locks.refused(cachePath, ns, fence);
    }
    throw e;
  }
}
