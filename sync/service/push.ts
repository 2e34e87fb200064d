/**
 * The push: building the plan from the dirty set (or a walk), and the
 * terminal handler that performs the writes through the per-write pipeline,
 * fences before the commit writes, updates the remote index, and commits the
 * dirty set and the synced manifest.
 *
 * @module
 */
import pMap from "p-map";
import {
  SluiceError,
  UNREADABLE_REASON,
  UnreadablePathError,
  VersionConflictError,
} from "../errors.ts";
import { PutModes } from "../ports.ts";
import type { LocalCache } from "../transfer/cache.ts";
import { SourceVanishedError } from "../transfer/body.ts";
import type { IndexEntry, IndexMemo } from "../transfer/remote_index.ts";
import type { PlanEntry, PushContext, WriteContext } from "../context.ts";
import type { PendingCommit } from "./push_commit.ts";
import { commitNow, mergePending } from "./push_commit_now.ts";
import { runDeletes } from "./push_delete_run.ts";
import { pushFailure } from "./push_failure.ts";
import type { PushResult, PushTally } from "./push_result.ts";
import { settleStrays } from "./push_settle.ts";
import { commitStep, MARKER_WITH_REFUSED_DELETION } from "./push_commit_step.ts";
import { holdConflicted, nameHeldAgain, reportDryRun } from "./push_holds.ts";

export { MARKER_WITH_REFUSED_DELETION };
import { type ProgressSoFar, PushProgress } from "./push_progress.ts";
import { clashesFirst, replacedFirst } from "./push_clash.ts";
import { settleMarkedDirs } from "./push_marked_dirs.ts";
import { pushOwnership } from "./push_own.ts";
import { storeHolds } from "./push_write.ts";
import { isFirstPush, makeIndexFirst } from "./push_first_index.ts";
import { settledAt, type SyncState } from "./state.ts";
import { isLeftoverLoss, leaveLeftover } from "./push_leftover.ts";
import {
  conflictRecorder,
  dropWithdrawn,
  markUnmarkedLeft,
  reportSkipped,
  settleLost,
} from "./push_outcome.ts";
import type { ConflictRecord } from "./conflicts.ts";

export { commitPrepared, type PendingCommit } from "./push_commit.ts";
export { emptyPushResult, pushLeftBehind, type PushResult } from "./push_result.ts";
export { terminalWrite } from "./push_write.ts";
export type { ProgressSoFar } from "./push_progress.ts";

/** Dependencies of the terminal handler. */
export interface TerminalDeps {
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly result: PushResult;
  readonly runWrite: (ctx: WriteContext) => Promise<void>;
  /** The service's last known index. */
  readonly indexMemo?: IndexMemo;
  /** Marked directories the plan expanded; cleaned once everything under them is handled. */
  readonly expandedDirs?: readonly string[];
  /**
   * Two-phase push: when set, the terminal uploads and deletes but leaves the
   * remote index and the local state alone, and stores what the commit needs
   * here (see {@link commitPrepared}).
   */
  readonly prepare?: { pending?: PendingCommit; lost?: unknown };
  /**
   * The commit of a prepared push: the terminal writes only the deferred
   * commit-step entries and commits them with this (`null`: a prepared push
   * with nothing else to commit).
   */
  readonly commitOnly?: PendingCommit | null;
  /** Check each create at the commit (see `PushOptions.checkCreates`). */
  readonly checkCreates?: boolean;
  /**
   * Where the `unpublished_before_commit` warning goes instead of the event
   * stream: the service writes those paths again at once, and warns only of
   * what that leaves unpublished.
   */
  readonly unpublishedWarning?: { warning?: { code: string; message: string; path: string } };
  /**
   * Where this pass's progress counts on from (a second pass goes on from
   * its first's figures instead of starting again at zero), and where it
   * leaves its own, each file's end included.
   */
  readonly progressSoFar?: ProgressSoFar;
}

/** The innermost handler of the push pipeline. */
export function pushTerminal(deps: TerminalDeps): (ctx: PushContext) => Promise<void> {
  return async (ctx) => {
    const { cache, state, result } = deps;
    // The commit of a prepared push writes only the commit step (markers,
    // index files), deferred to it so that a run refused in between never
    // leaves one behind; its uploads and deletes were done by the preparation.
    const committing = deps.commitOnly !== undefined;
    holdConflicted(ctx.plan, state.conflicts, result);
    if (ctx.dryRun) return reportDryRun(ctx.plan, state.conflicts, result);
    const found: ConflictRecord[] = [];
    const conflictOf = conflictRecorder(ctx, result, found);
    const active = ctx.plan.filter((e) => e.action !== "skip");
    // A write a preparation left to the commit (`atCommit`: its adoption of
    // another writer's object writes the index) is made by the commit.
    const uploads = active.filter((e) =>
      e.action === "put" && !e.commit && (!committing || e.atCommit)
    );
    const commits = deps.prepare ? [] : active.filter((e) => e.action === "put" && e.commit);
    // A deletion a preparation left to the commit (`atCommit`: its adoption
    // of another writer's object writes the index) is made by the commit.
    const deletes = active.filter((e) => e.action === "delete" && (!committing || e.atCommit));
    const preparing = deps.prepare !== undefined;
    const failures: { entry: PlanEntry; error: unknown }[] = [];
    // Data versions of an earlier run a run's push lost to another writer's:
    // set aside, said, and no failure of this run (see `push_leftover.ts`).
    const leftovers: VersionConflictError[] = [];
    const indexSet: Record<string, IndexEntry> = {};
    const indexRemove: string[] = [];
    // Writes that found their bytes already in the store: committed only while it holds them.
    const indexCheck: string[] = [];
    const baseGone: string[] = [];
    const namedBase: string[] = [];
    const keptBase: string[] = [];
    const foundGone: string[] = [];
    // The version each write or delete was conditional on (null: created), so
    // the commit never puts back an entry a peer has since replaced.
    const indexBase: Record<string, string | null> = {};
    const indexBaseHash: Record<string, string> = {};
    const indexBaseSize: Record<string, number> = {};
    const indexSynced: Record<
      string,
      {
        hash: string;
        version: string;
        size: number;
        mtimeMs?: number;
        ctimeMs?: number;
        own?: string;
      }
    > = {};
    const handled: string[] = [];
    const settled = new Set<string>();
    const counts = new PushProgress(ctx.events, {
      files: active.length,
      bytes: active.reduce((n, e) => n + (e.action === "put" ? e.size ?? 0 : 0), 0),
    }, deps.progressSoFar);

    const tally: PushTally = {
      result,
      failures,
      indexRemove,
      indexFoundGone: foundGone,
      indexBase,
      indexBaseHash,
      indexBaseSize,
      indexSynced,
      handled,
      settled,
      conflictOf,
      done: (failed = false) => counts.step(0, undefined, failed),
    };
    const { ownWriter, ownOf } = pushOwnership(deps.cache);
    // A write that could not reach the store (its attempts spent): the
    // store is gone for now, so no further write is started (each would
    // spend its own attempts, a time to fail growing with the files left).
    // The writes not started stay dirty, as the failed one does.
    let unreachable = false;
    const writeOne = async (entry: PlanEntry) => {
      if (unreachable) {
        entry.notTried = true;
        return;
      }
      const size = entry.size ?? 0;
      let finished = false;
      let failed = false;
      try {
        const read = await cache.readForPush(
          entry.path,
          ctx.config.streamThresholdBytes,
          (delivered) => {
            // An abandoned attempt may still be read after this write ended.
            if (finished) return;
            counts.moving(entry.path, delivered);
          },
        );
        if (!read) {
          entry.action = "skip";
          entry.keepDirty = true;
          entry.reason = "the file vanished during the push";
          return;
        }
        const { hash, size } = read;
        // Judged racy at its read, not at its record (a commit may come much
        // later): see `settledAt` in `state.ts`.
        const mtimeMs = settledAt(read.mtimeMs, state.fileClock());
        const ctimeMs = read.ctimeMs;
        // Unchanged since this cache synced it (a path marked dirty, or named,
        // again), and the store still holds that version: nothing to write.
        // (It may hold another: an upload of this cache's whose commit never
        // came, or a peer's; the write then goes through the gates as any
        // other.) Its mtime is recorded, so a walk need not hash it again. A
        // path to adopt is passed over only while the store holds exactly
        // that version (nothing stranded there to adopt); otherwise it goes
        // through the gates, which adopt what they meet.
        const adopting = ctx.adoptUncommitted.has(entry.path);
        if (
          entry.action === "put" && entry.syncedHash === hash &&
          entry.syncedVersion !== undefined &&
          await storeHolds(
            ctx,
            entry.path,
            entry.syncedVersion,
            !adopting && entry.strandedCheck && ownWriter,
          )
        ) {
          indexSynced[entry.path] = {
            hash,
            version: entry.syncedVersion,
            size,
            mtimeMs,
            ctimeMs,
            // The same version as synced: a data version this cache created stays its own.
            ...(state.synced(entry.path)?.own ? { own: state.synced(entry.path)!.own } : {}),
          };
          // An entry another client dropped from the index: named again,
          // while the store holds it.
          if (state.synced(entry.path)?.republish) {
            indexSet[entry.path] = { v: entry.syncedVersion, h: hash, s: size };
            indexCheck.push(entry.path);
            result.identical.push(entry.path);
          }
          handled.push(entry.path);
          return;
        }
        if (entry.nameOnly) {
          // The store holds another version now (a transaction landed), or
          // the copy here changed since the guard looked: never written, as
          // the guard leaves such a file out (a change here stays
          // unpublished, said so).
          entry.action = "skip";
          entry.keepDirty = false;
          if (hash !== entry.syncedHash) entry.unpublished = true;
          entry.reason = hash !== entry.syncedHash
            ? "managed lockfile: published only by the lockfile transaction (changed here while this push named it again)"
            : "only named again, and the datastore holds another version of it now (its own transaction published one): left out";
          return;
        }
        const wctx: WriteContext = {
          push: ctx,
          entry,
          key: entry.path,
          body: read.body,
          hash,
          size,
          mode: entry.mode ?? PutModes.overwrite,
          metadata: {},
        };
        await deps.runWrite(wctx);
        // Left to the commit by a gate (see `uploads`): nothing written here.
        if (preparing && entry.atCommit) return;
        if (entry.action === "skip") {
          // A write gate left it out; a conflict is recorded with both versions.
          if (entry.conflict) {
            conflictOf(entry, { location: entry.path, hash, size }, entry.conflict.theirs);
          }
          return;
        }
        const info = wctx.result;
        if (!info) throw new SluiceError("internal", `No result for the write of ${entry.path}.`);
        ctx.uploaded.push({
          path: entry.path,
          info,
          created: wctx.outcome === "written" && wctx.mode.kind === "create",
          outcome: wctx.outcome ?? "written",
        });
        indexSynced[entry.path] = {
          hash,
          version: info.version,
          size,
          mtimeMs,
          ctimeMs,
          // A data version this push created (or found in place as this
          // cache's own upload: a push whose commit was cut off, run again):
          // a later deletion on the datastore is not followed blindly.
          ...(entry.class === "data-version" ? await ownOf(wctx, info) : {}),
        };
        indexSet[entry.path] = { v: info.version, h: hash, s: size };
        if (wctx.mode.kind === "update") indexBase[entry.path] = wctx.mode.version;
        else if (wctx.mode.kind === "create") indexBase[entry.path] = null;
        if (wctx.baseGone) baseGone.push(entry.path);
        // Over the version synced here: named by the index then, or kept by a
        // pull as a dropped entry to name again (`keptBase`).
        if (wctx.mode.kind === "update" && wctx.mode.version === entry.syncedVersion) {
          (state.synced(entry.path)?.republish ? keptBase : namedBase).push(entry.path);
        }
        handled.push(entry.path);
        if (wctx.outcome === "identical") {
          result.identical.push(entry.path);
          indexCheck.push(entry.path);
        } else {
          result.uploaded.push(entry.path);
          result.bytes += size;
        }
      } catch (error) {
        if (error instanceof SourceVanishedError) {
          entry.action = "skip";
          entry.keepDirty = true;
          entry.reason = "the file vanished during the push";
        } else if (error instanceof UnreadablePathError) {
          // Made unreadable since the plan: left out like one the plan found so.
          entry.action = "skip";
          entry.keepDirty = true;
          entry.reason = UNREADABLE_REASON;
        } else if (isLeftoverLoss(ctx, entry, error)) {
          leaveLeftover(entry);
          leftovers.push(error as VersionConflictError);
        } else {
          failures.push({ entry, error });
          failed = true;
          if (error instanceof SluiceError && error.code === "unreachable") unreachable = true;
        }
      } finally {
        finished = true;
        counts.step(size, entry.path, failed);
      }
    };

    // Writes and deletions of paths not dirty by name (found by a walk, or
    // under a marked directory) are recorded before they are made: should
    // their commit never come, a later push that covers them but no longer
    // plans them (the file deleted, or put back as synced: a deletion whose
    // object is gone while the index still names it) still settles them. A
    // path dirty by name stays dirty until its commit, so the next push
    // plans it anyway; only a never-synced one is recorded too (with its
    // mark already, unless marked otherwise than by `markDirty`): replaced
    // by a directory of its name, it is no file the next push would check,
    // and the record tells that push to check its name (see `buildPlan`).
    const unnamed = [...uploads, ...commits, ...deletes].filter((e) =>
      e.source === "walk" || !ctx.snapshot.paths.has(e.path) ||
      (e.action === "put" && e.syncedVersion === undefined)
    ).map((e) => e.path);
    if (unnamed.length > 0) await state.markAttempted(unnamed);
    // A cache's first push of many files makes the index (where there is
    // none) beside its uploads, so that its commit need not list a bucket
    // they have filled; one request at a time (`concurrency` 1), before them.
    const early = ctx.config.firstIndexAtUploads;
    const indexFirst = early > 0 && uploads.length >= early && isFirstPush(state)
      ? makeIndexFirst(ctx, deps.indexMemo, ctx.plan.map((e) => e.path))
      : undefined;
    if (ctx.config.concurrency <= 1) await indexFirst;
    // A synced shape replaced by the other: its deletions first (never by a
    // run whose lock is lost: checked first, as before the commit), and the
    // new shape's writes held back when one is not made.
    const replaced = await replacedFirst(uploads, commits, deletes, async (first) => {
      for (const hook of ctx.beforeCommit) await hook();
      await runDeletes(ctx, first, tally, ownWriter, preparing);
    }, failures);
    // One a walk found: the whole cache stays marked for a walk (as a
    // plan's hold-back keeps it), never a mark of its name.
    if (replaced.held.some((e) => e.source === "walk")) await state.markDirty();
    const writes = replaced.uploads;
    try {
      await pMap(writes, writeOne, { concurrency: ctx.config.concurrency, signal: ctx.signal });
    } finally {
      await indexFirst;
    }
    const phase = { committing, preparing: !!deps.prepare };
    await clashesFirst(ctx.plan, failures, deletes, async (first, strays, again) => {
      await runDeletes(ctx, first, tally, ownWriter, preparing);
      await settleStrays(ctx, state, tally, ownWriter, phase, strays);
      if (failures.length > 0) return false;
      counts.again(again.length, again.reduce((n, e) => n + (e.size ?? 0), 0));
      await pMap(again, writeOne, { concurrency: ctx.config.concurrency, signal: ctx.signal });
      return true;
    });
    if (failures.length === 0) {
      for (const hook of ctx.beforeCommit) await hook();
      // A gate may have held a commit-step write back since the plan (a
      // marker naming a version another writer's upload is in the way of).
      await commitStep(replaced.commits.filter((e) => e.action !== "skip"), deletes, {
        write: (due) =>
          pMap(due, writeOne, { concurrency: ctx.config.concurrency, signal: ctx.signal }),
        remove: (gone) => runDeletes(ctx, gone, tally, ownWriter, preparing),
        deleted: () => tally.result.deleted,
      });
      await settleStrays(ctx, state, tally, ownWriter, phase);
    }
    reportSkipped(ctx.plan, tally, state.conflicts, phase.preparing);
    await markUnmarkedLeft(ctx, state, failures);
    const deferredDirs = settleMarkedDirs({
      plan: ctx.plan,
      dirs: [...deps.expandedDirs ?? [], ...deps.commitOnly?.deferredDirs ?? []],
      failures,
      settled,
      handled,
      committing,
      preparing: deps.prepare !== undefined,
      heldBack: ctx.holdBack,
    });
    await state.conflicts.record(found);
    const lost = await settleLost(ctx, state, failures, leftovers);
    dropWithdrawn(ctx, result, { set: indexSet, base: indexBase, synced: indexSynced }, [
      indexCheck,
      baseGone,
      result.uploaded,
      result.identical,
      handled,
    ]);
    nameHeldAgain(ctx.plan, indexSet, indexCheck);
    const pending = mergePending(deps.commitOnly ?? undefined, {
      set: indexSet,
      remove: indexRemove,
      base: indexBase,
      baseHash: indexBaseHash,
      baseSize: indexBaseSize,
      check: indexCheck,
      baseGone,
      namedBase,
      keptBase,
      foundGone,
      synced: indexSynced,
      handled,
      deferredDirs,
      snapshot: { paths: new Map(ctx.snapshot.paths), bulkSeq: ctx.snapshot.bulkSeq },
      walkDone: ctx.kind === "walk" && failures.length === 0,
    }, failures.length === 0);
    if (deps.prepare) deps.prepare.pending = pending;
    else {
      await commitNow(ctx, pending, {
        state,
        cache,
        result,
        indexMemo: deps.indexMemo,
        checkCreates: deps.checkCreates,
        unpublishedWarning: deps.unpublishedWarning,
        writerId: await ownWriter(),
        writtenNow: indexSynced,
      });
    }
    if (failures.length > 0) {
      // Committed by now unless a prepared push leaves its commit for later.
      const gone = new Set(lost);
      const committed = deps.prepare
        ? undefined
        : [...result.uploaded, ...result.identical, ...result.deleted]
          .filter((p) => !gone.has(p)).length;
      const error = pushFailure(failures, commits.length, committed);
      // A preparation whose only failures are data versions lost to another
      // writer's (set aside, settled): its pending commit of the rest stands,
      // for a caller that commits it as a plain push would have.
      if (deps.prepare && failures.every((f) => f.error instanceof VersionConflictError)) {
        deps.prepare.lost = error;
      }
      throw error;
    }
  };
}
