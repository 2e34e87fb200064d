/**
 * The options of a push, and a push prepared for a later commit.
 *
 * @module
 */
import type { DistributedLock } from "../ports.ts";
import type { PlanEntry, UploadRecord } from "../context.ts";
import type { PendingCommit, PushResult } from "./push.ts";

/** Options of a push. */
export interface PushOptions {
  readonly signal?: AbortSignal;
  /** Model locks the push is made under (empty: a plain sync, not fenced). */
  readonly locks?: readonly DistributedLock[];
  /** Data version directories the run wrote (`data/…/<N>`). */
  readonly written?: readonly string[];
  /**
   * Version directories that existed before the run. Under `locks`, one of
   * them (not in `written`) lost to another writer's version
   * (`version_exists`: an earlier run's leftover) is set aside and warned
   * of, and the push goes on: the run is refused only for its own versions
   * (see `push_leftover.ts`).
   */
  readonly preexisting?: ReadonlySet<string>;
  /** Models (`type…/modelId`) the push is made for. */
  readonly models?: readonly string[];
  /** Compute the plan only; write nothing. */
  readonly dryRun?: boolean;
  /**
   * Push only these paths, marked dirty first (files, or directories that
   * stand for what is under them, deletions included), not the rest of the
   * dirty set: what else is marked, and a walk still pending from an
   * earlier push (a bulk `markDirty()`), stay for a later push.
   */
  readonly only?: readonly string[];
  /**
   * Paths where another writer's uncommitted object (its push stopped
   * before its index update, and it is gone for good) is published in the
   * index as that writer's change instead of waited for; a local change of
   * the path then meets it as a committed change (a conflict). Nothing is
   * written over it.
   */
  readonly adoptUncommitted?: readonly string[];
  /**
   * Old clients push to this bucket too: check each conditional write and
   * deletion this push makes (creates included) at its commit, one HEAD
   * each, since an old client may have replaced or deleted it meanwhile
   * without a compare-and-swap, never having seen it, and not yet written
   * its index (its push stopped, or is on its way). Such a path is then not
   * published and stays dirty as a conflict (see `overwritten` of the
   * result). Set by `pushUnderGlobalLock`; off by default, where only a
   * path whose index entry shows another writer costs a request.
   */
  readonly checkCreates?: boolean;
  /**
   * Directories left out of this push, dirty as they are: under the model
   * lock of another run of this process (a push for some models is fenced
   * by their locks only, or one held lock was found lost), whose own push
   * publishes them (or, its lock lost, is refused and erases what that run
   * wrote). Each is a model's data directory (`data/<type…>/<id>`, its
   * versions and markers, those written after the list was made included)
   * or a data version directory (with any `latest` marker naming it). A
   * model directory of this push's own `locks` inside one stays in it.
   * A function is called as the push has planned (a prepared push's
   * commit calls it again), so that the list can name the model locks
   * other runs took after these options were made.
   */
  readonly holdBack?: readonly string[] | (() => readonly string[]);
}

/** A push whose objects are written and whose commit is still to come (see {@link SyncService.preparePush}). */
export interface PreparedPush {
  /** What the push wrote and skipped. */
  readonly result: PushResult;
  /** The index change and local commit; absent when there was nothing to push. */
  readonly pending?: PendingCommit;
  /** The options it was prepared with (locks, written versions…), reused by the commit. */
  readonly options: Omit<PushOptions, "signal">;
  /** The objects it wrote. */
  readonly uploaded: readonly UploadRecord[];
  /** Its plan, as the gates left it. */
  readonly plan: readonly PlanEntry[];
  /**
   * Work its gates left to the commit, which runs it first, under the
   * global lock where the commit holds it: a lost data version's marker
   * take-back, which may write the index (see `PushContext.atCommit`).
   */
  readonly atCommit?: readonly (() => Promise<void>)[];
  /**
   * Set only for a preparation asked to keep the rest of a push beside such
   * a failure (`keepRestOnLoss` of {@link SyncService.preparePush}): the
   * error of data versions lost to another writer's (`version_exists`, each
   * set aside), which a plain push throws after committing the rest. The
   * rest is what this prepared push commits; the caller throws `lost` after.
   */
  readonly lost?: Error;
}
