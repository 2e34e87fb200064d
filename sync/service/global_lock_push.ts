/**
 * A push whose commit holds the datastore's global lock, for buckets that
 * old swamp clients push to as well ({@link pushUnderGlobalLock}).
 *
 * An old client rewrites the index without a compare-and-swap: it reads
 * the index, then writes it back with its change, relying on the global
 * lock (which swamp core holds around its pushes) to keep other writers out
 * in between. A Sluice commit that lands in that window is overwritten:
 * its objects stay in the store, but the index no longer names them, so
 * peers never see them. Holding the same lock around the commit closes the
 * window.
 *
 * @module
 */
import { SluiceError, VersionConflictError } from "../errors.ts";
import { isLockTimeout } from "../lock_errors.ts";
import { lockReleaseCommand } from "../locks/lock_object.ts";
import { sayingGlobalLockWait } from "../locks/global_lock_wait.ts";
import { releaseOrWarn } from "../locks/lock_release.ts";
import type { DistributedLock, Identity } from "../ports.ts";
import type { PreparedPush, PushOptions } from "./push_options.ts";
import type { PushResult } from "./push_result.ts";
import type { SyncService } from "./service.ts";
import { dropRefusedCopies, lostAndDiscarded } from "./refused_lost_copies.ts";
import { namesAnotherHolder, underGlobalLockOrLeft } from "./left_work_lock.ts";

/** What a push whose commit did not run left: its uploads, and the deletions its preparation made. */
function notPublished(deleted: number): string {
  return `Its files were uploaded but not published: the index was not changed, and the paths stay dirty${
    deleted > 0
      ? `; its ${deleted} deletion(s) were made on the store (outside the lock, as old clients make theirs), and the index names those files until the push runs again`
      : ""
  }`;
}

/**
 * The `global_lock_lost` warning for a commit made while the global lock
 * `key` was lost (taken over or deleted while held): a client that took it
 * may have rewritten the index without the commit's entries.
 */
export function globalLockLostWarning(key: string): { code: "global_lock_lost"; message: string } {
  return {
    code: "global_lock_lost",
    message:
      `The global lock ${key} was lost by the end of this push's commit (taken over or deleted while held): a client that took it over may have rewritten the index without this push's entries. Run \`sluice pull\`: it finds any entry dropped so (\`index_entry_dropped\`), and the push after it names them again.`,
  };
}

/**
 * True when `lock`, held around a commit, was lost by its end: its
 * heartbeat saw it gone, or (with `look`) it was taken over faster than a
 * heartbeat and the lock object names another holder now (one read; a
 * failed read says nothing). A lock that knows no nonce (a third party's
 * may not) is judged by the holder it names, against `identity`, as the
 * lock fence judges one; without `identity` it is not read.
 */
export async function globalLockLostNow(
  lock: DistributedLock,
  look: boolean,
  identity?: Identity,
): Promise<boolean> {
  if (lock.lost === true) return true;
  if (!look || (lock.nonce === undefined && identity === undefined)) return false;
  return await namesAnotherHolder(lock, identity);
}

/**
 * Pushes as a two-phase push does in swamp core: the objects are written
 * outside the lock (`preparePush`, deletions included, as swamp's
 * extensions make theirs), then the commit (`commitPush`: the commit-step
 * writes, the take-back of this cache's own uploads an earlier push left,
 * whose index entry it takes out, and the index update) runs under `lock`,
 * which is acquired (waiting as the lock's `maxWaitMs` says) and released
 * here: give it a lock of its own, not one held already (refused with
 * `invalid_config`). A push with nothing planned takes no lock. A lock found lost before
 * the commit refuses it (`global_lock_lost`); one lost during it is
 * reported with a `global_lock_lost` warning.
 *
 * @example
 * ```ts
 * import { createSluice } from "../../sluice.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * import { pushUnderGlobalLock } from "./global_lock_push.ts";
 * const identity = { holder: "me@host", hostname: "host", pid: 1 };
 * const svc = await createSluice({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore(), identity });
 * const lock = svc.lockBackend!.createLock(".datastore.lock", identity);
 * await pushUnderGlobalLock(svc, lock);
 * ```
 */
export async function pushUnderGlobalLock(
  service: SyncService,
  lock: DistributedLock,
  options: PushOptions = {},
): Promise<PushResult> {
  if (lock.nonce !== undefined) {
    // Acquiring a held engine lock returns at once, and the release below
    // would end another holder's hold: one lock per push.
    throw new SluiceError(
      "invalid_config",
      `pushUnderGlobalLock was given the lock ${lock.key} already held: it acquires and releases its lock itself. Nothing was pushed. Create a lock for each push (\`lockBackend.createLock(globalLockKey(namespace), identity)\`).`,
    );
  }
  // Old clients push beside it: each create is checked at the commit.
  // A data version lost to another writer's (version_exists): the rest of the
  // push is committed all the same, then that failure thrown, as a plain push
  // does (its uploads were left named by no index otherwise).
  // A preparation that fails all the same (not only for lost versions)
  // makes what its gates left to the commit under this lock, acquired and
  // released there.
  const prepared = await service.preparePush({ ...options, checkCreates: true }, {
    keepRestOnLoss: true,
    leftWorkLock: lock,
  });
  const lost = prepared.lost;
  const p = prepared.pending;
  // Nothing else to commit: the loss is thrown, as a plain push whose writes
  // lost their versions ends. What the preparation's gates left to the
  // commit (a lost version's marker take-back, which may write the index) is
  // made first under the lock, and alone: no commit pass, whose fence would
  // refuse a run whose model lock was lost meanwhile, though the copies of
  // its lost version stay set aside (a refusal leaves none of its bytes).
  const leftOnly = lost !== undefined &&
    (!p || Object.keys(p.set).length + p.remove.length + p.handled.length === 0);
  if (leftOnly && !prepared.atCommit?.length) throw lost;
  try {
    if (leftOnly) return await leftWorkUnderLock(service, lock, prepared, lost, options.signal);
    return await commitUnderLock(service, lock, options, prepared, lost);
  } catch (e) {
    // The rest not committed (the lock not had, lost, or its commit failed):
    // its failure tells of the data version lost all the same, which was set
    // aside, not left dirty, and which no later push publishes.
    if (lost && e !== lost && e instanceof Error) {
      // A run refused at the commit for its lost model lock: its lost
      // versions' copies go with its discarded versions.
      const dropped = await dropRefusedCopies(service.cache.stateDir, lost, e).catch(() => []);
      const all = lost instanceof VersionConflictError && dropped.length > 0 &&
        dropped.length === lost.setAsideTo.length;
      e.message += ` Besides: ${all ? lostAndDiscarded(lost) : lost.message}`;
    }
    throw e;
  }
}

/**
 * A preparation whose data versions were all lost (`lost`), with nothing
 * else to commit: only what its gates left to the commit (a lost version's
 * marker take-back, which may write the index) is made, under `lock`, then
 * `lost` is thrown. That work is best effort, as it is in a plain push: a
 * lock that cannot be had in time, or is found lost, leaves it to a later
 * push's check of the writes this cache left, and the loss is thrown all
 * the same.
 */
async function leftWorkUnderLock(
  service: SyncService,
  lock: DistributedLock,
  prepared: PreparedPush,
  lost: Error,
  signal?: AbortSignal,
): Promise<never> {
  await underGlobalLockOrLeft(
    lock,
    service,
    "this push lost its data versions to another writer's, and the take-back of its marker upload waits for the lock",
    () => service.commitLeftWork(prepared),
    signal,
  );
  throw lost;
}

async function commitUnderLock(
  service: SyncService,
  lock: DistributedLock,
  options: PushOptions,
  prepared: PreparedPush,
  lost: Error | undefined,
): Promise<PushResult> {
  const signal = options.signal;
  // Nothing planned: no index write to guard (the commit still clears a bulk mark).
  if (prepared.plan.length === 0) return await service.commitPush(prepared, { signal });
  const deleted = prepared.plan.filter((e) => e.action === "delete").length;
  const acquire = await sayingGlobalLockWait(
    lock,
    service.events,
    "this push's files are uploaded, and its commit waits for the lock",
    signal,
  );
  try {
    await lock.acquire(acquire);
  } catch (e) {
    if (!isLockTimeout(e)) throw e;
    const what = (e instanceof Error ? e.message : String(e)).replace(
      /\.? Nothing was changed\..*$/,
      "",
    );
    throw new SluiceError(
      "lock_timeout",
      `${what}. ${
        notPublished(deleted)
      }. Run the push again once the lock is free; if its holder is gone for good, break it with \`${
        lockReleaseCommand(lock.key)
      }\`.`,
      { cause: e, retryable: true },
    );
  }
  try {
    // A lock that reports no loss of its own (a third party's may not) is read once.
    if (
      lock.lost || (lock.lost === undefined && await namesAnotherHolder(lock, service.identity))
    ) {
      throw new SluiceError(
        "global_lock_lost",
        `The global lock ${lock.key} was lost before this push's commit (taken over or deleted while it was held). ${
          notPublished(deleted)
        }. Run the push again.`,
        { retryable: true },
      );
    }
    const result = await service.commitPush(prepared, { signal });
    // Taken over faster than a heartbeat: one read of the lock tells.
    if (await globalLockLostNow(lock, true, service.identity)) {
      service.events.emit("warning", globalLockLostWarning(lock.key));
    }
    if (lost) {
      const committed = result.uploaded.length + result.identical.length + result.deleted.length;
      lost.message += committed > 0
        ? ` The push's other ${committed} file(s) were pushed and committed.`
        : " Nothing else of this push was committed.";
      throw lost;
    }
    return result;
  } finally {
    // A release that fails is a warning: the commit's outcome stands.
    await releaseOrWarn(lock, service.events);
  }
}
