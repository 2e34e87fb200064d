/**
 * The pull: fetches what changed remotely (by version), verifies each
 * download against the index hash, writes atomically, never overwrites a
 * locally dirty file, and refuses unsafe remote keys before writing anything.
 * Its look at the copies here is in `pull_local.ts`, what it fetches (and
 * the conflicts it records) in `pull_plan.ts`, its fetches in
 * `pull_fetch.ts`, the local copies it sets aside in `pull_aside.ts`, the
 * paths it finds blocked in `pull_blocked.ts`, its result in `pull_result.ts`.
 *
 * @module
 */
import { isManagedLockfilePath } from "../locks/lockfile_change.ts";
import { lockfileWatch } from "./pull_lockfile.ts";
import pMap from "p-map";
import { NotFoundError, PathBlockedError } from "../errors.ts";
import type { ObjectStore } from "../ports.ts";
import type { LocalCache } from "../transfer/cache.ts";
import { LocalChangedError } from "../transfer/file_identity.ts";
import type { SyncConfig } from "../context.ts";
import { classifyPath } from "../path_class.ts";
import type { SluiceEmitter } from "../events.ts";
import type { IndexEntry, IndexMemo } from "../transfer/remote_index.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import type { SyncState } from "./state.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { keepDropped, warnDroppedHere } from "./dropped_entries.ts";
import { fetchers } from "./pull_fetch.ts";
import { removeDeletedRemotely } from "./pull_removals.ts";
import { moreUncommittedWarning, type ResolvingTheirs, skippedWarning } from "./pull_warnings.ts";
import { localSide } from "./pull_local.ts";
import { PullAsides } from "./pull_aside.ts";
import {
  emptyPullResult,
  type PullResult,
  standingConflicts,
  UNCOMMITTED_WARNINGS,
} from "./pull_result.ts";

export { pullLeftBehind, type PullResult } from "./pull_result.ts";
export { under } from "./pull_plan.ts";
import { planFetches, under } from "./pull_plan.ts";
import { ownWriteChecker } from "./pull_own_write.ts";
import { conflictRecorder } from "./pull_conflict_recorder.ts";
import { keepBlocked } from "./pull_blocked.ts";
import { removeDangling } from "./dangling_entries.ts";
import { clearRecordedTemps } from "./left_temps.ts";
import { indexForPull } from "./pull_index.ts";
import { marksElsewhere, underMarkedDirectory, underMarks } from "./pull_elsewhere.ts";

/** Dependencies of a pull. */
export interface PullDeps {
  readonly store: ObjectStore;
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly config: SyncConfig;
  readonly events: SluiceEmitter;
  readonly signal: AbortSignal;
  /** Internal paths are never pulled. */
  readonly isInternal: (path: string) => boolean;
  /** Where the index read is kept for the next push. */
  readonly indexMemo?: IndexMemo;
  /** Time of recorded conflicts; default the system clock. */
  readonly now?: () => number;
  /**
   * Take back the datastore's copy of each synced file deleted here (and not
   * marked dirty, as a deletion to push is): see `restoreDeleted` of `pullChanged`.
   */
  readonly restoreDeleted?: boolean;
  /** Paths not fetched while this cache has nothing at them: see `defer` of `pullChanged`. */
  readonly defer?: (path: string) => boolean;
  /**
   * Paths the caller adopts if this pull skips them as uncommitted (see
   * `adoptUncommitted` of `pullChanged`): no warning of their own, the
   * adoption says what it did.
   */
  readonly adopting?: (path: string) => boolean;
  /**
   * Paths left as they are (see `holdBack` of `pullChanged`): nothing
   * fetched, set aside or removed there, and no index token kept.
   */
  readonly holdBack?: (path: string) => boolean;
  /**
   * The path of the `resolve --theirs` this pull is run by: skipped as
   * uncommitted at the version of theirs its conflict recorded, the warning
   * says what the resolution does then (see `uncommittedTheirsWarning`).
   */
  readonly resolvingTheirs?: ResolvingTheirs;
}

/** Pulls everything (or only `prefixes`). */
export async function pull(deps: PullDeps, prefixes?: readonly string[]): Promise<PullResult> {
  const found: ConflictRecord[] = [];
  const agreed: string[] = [];
  const asides = new PullAsides(deps.cache, deps.events, found);
  try {
    return await pullInto(deps, prefixes, found, agreed, asides);
  } catch (err) {
    // Whatever failed, what the pull did is kept, as a failed fetch keeps
    // it: the conflicts found (so a local copy left set aside is named by
    // its record, never left unnamed), the paths found agreeing, and the
    // files written. A copy set aside for a fetch that never started goes
    // back first, while nothing is at its path.
    const { state } = deps;
    asides.failing(() => stoppedBy(err));
    await state.conflicts.record(found).catch(() => {});
    await state.conflicts.settle(agreed).catch(() => {});
    await state.saveManifest().catch(() => {}); // the pull's own error is the one to report
    throw err;
  } finally {
    deps.state.release(); // a log held open for records written ahead (a save that failed)
  }
}

/** Why a pull that failed with `err` wrote nothing at a path it had not fetched yet. */
function stoppedBy(err: unknown): string {
  return `the pull failed before it fetched that copy: ${(err as Error)?.message ?? String(err)}`;
}

/**
 * {@link pull}, adding the conflicts it finds to `found`, the paths found
 * agreeing to `agreed`, and the local copies it sets aside to `asides`.
 */
async function pullInto(
  deps: PullDeps,
  prefixes: readonly string[] | undefined,
  found: ConflictRecord[],
  agreed: string[],
  asides: PullAsides,
): Promise<PullResult> {
  const lockfiles = lockfileWatch(deps);
  const { cache, state, config, events, signal } = deps;
  const result = emptyPullResult(asides.locations);
  // Directories checked (not links) or made count for this pull only.
  cache.resetChecks();
  // Temporary files of streamed downloads a pull killed part way left (by
  // their records: no walk of the cache), removed once an hour untouched.
  await clearRecordedTemps(cache, Date.now(), events);
  // Others' marks, then records, then the index (a push clears its marks and
  // saves its records in one step): a mark gone is a record taken in, else a
  // file deleted here was fetched back (chaos seed 222000015); one read is kept.
  const marksBefore = await marksElsewhere(state);
  await state.refreshSynced();
  const read = await indexForPull(deps, prefixes);
  if (read === "unchanged") {
    result.unchanged = true;
    result.conflicts.push(...standingConflicts(deps, prefixes));
    return result;
  }
  const { index } = read;
  const entries: Record<string, IndexEntry> = index?.entries ?? {};
  // This process's marks, and those of the other processes over this cache
  // that still run: a change of theirs is one made here, never overwritten,
  // set aside or taken back by this pull; what lies under a directory one of
  // them marked is left as it is (see `pull_elsewhere.ts`).
  const elsewhere = await marksElsewhere(state);
  for (const p of marksBefore) elsewhere.add(p);
  const dirty = new Set([...state.dirtyPaths(), ...elsewhere]);
  if (elsewhere.size > 0) {
    const held = deps.holdBack;
    deps = { ...deps, holdBack: (p) => underMarkedDirectory(elsewhere, p) || !!held?.(p) };
  }
  // Paths left as they are for another process's mark made after the plan.
  let heldLate = false;
  const links = result.links ?? [];
  const { changedLocally, localCopy, leftOut, probeHere, planned } = localSide({
    cache,
    state,
    dirty,
    events,
    unreadable: result.unreadable,
    links,
  });
  const conflict = conflictRecorder(deps, found);
  // Deleted here, unmarked, their entries rolled back: told apart in the warning.
  const rolledBack: string[] = [];
  const { todo, ownKept, heldLate: heldInPlan, leftToPush, restored } = await planFetches({
    deps,
    prefixes,
    entries,
    dirty,
    local: { probeHere, localCopy, leftOut },
    conflict,
    ownWriteOver: ownWriteChecker(deps),
    agreed,
    asides,
    deferred: result.deferred!,
    dropped: result.dropped,
    droppedHere: rolledBack,
  });
  result.droppedHere!.push(...rolledBack);
  planned();
  if (heldInPlan) heldLate = true;
  await state.markDirtyMany(ownKept);
  const bytesTotal = todo.reduce((n, [, e]) => n + e.s, 0);
  let done = 0;
  // Bytes of large objects on their way down, by path (a retry starts its object again).
  const moving = new Map<string, number>();
  const progress = () => {
    let inFlight = 0;
    for (const b of moving.values()) inFlight += b;
    events.emit("progress", {
      op: "pull",
      filesDone: done,
      filesTotal: todo.length,
      bytesDone: result.bytes + inFlight,
      bytesTotal,
    });
  };
  const { fetchWhole, fetchStreamed } = fetchers(deps, moving, progress);
  // Entries of this cache's kind whose object the store no longer holds.
  const vanished: [string, IndexEntry][] = [];
  // Paths a file or directory here is in the way of (see `PullResult.blocked`):
  // told of once the pull's removals had their turn (one of them may clear the way).
  const blockedBy = new Map<string, PathBlockedError>();
  const leftBlocked = (path: string, err: PathBlockedError) => void blockedBy.set(path, err);
  let warnedUncommitted = 0;
  const skipUncommitted = (path: string, version: string, e: IndexEntry) => {
    // The object was replaced after the index was written: a writer's push
    // is in flight, or stopped between its uploads and its index commit
    // (possibly a refused run). Its bytes are not committed: never pull them.
    result.uncommitted.push(path);
    // Its way out follows its class, by the cache's rules (as the adoption's).
    const cls = classifyPath(path, deps.config.classifierRules);
    if (cls !== "other") (result.uncommittedClass ??= {})[path] = cls;
    if (deps.adopting?.(path)) return;
    // One warning each for the first few; the rest are told at the end.
    if (++warnedUncommitted > UNCOMMITTED_WARNINGS) return;
    // A copy set aside by this pull goes back to its path (see `pull_aside.ts`).
    const here = deps.cache.exists(path) || asides.holds(path);
    events.emit("warning", skippedWarning(path, version, e.v, here, cls, deps.resolvingTheirs));
  };
  // A fetch that fails part way keeps what it did: the files written are
  // recorded as synced (a later deletion of one by hand is then a local
  // change, not a file to fetch again) and the conflicts found (whose local
  // copies may be set aside already) are recorded; the index token is not.
  const keepProgress = async () => {
    await state.saveManifest();
    await state.conflicts.settle(agreed);
    await state.conflicts.record(found);
  };
  // A local edit, deletion or new file saved while the pull fetched the
  // datastore's copy over it: kept, and a conflict (unless its copy was set
  // aside already, a conflict then, and this new file stays as it is).
  const changedMeanwhile = async (path: string, e: IndexEntry) => {
    if (found.some((r) => r.path === path)) return;
    let local: Awaited<ReturnType<typeof localCopy>>;
    try {
      local = await localCopy(path);
    } catch (err) {
      if (leftOut(path, err)) return;
      throw err;
    }
    if (underMarks(await marksElsewhere(state), path)) {
      // Another process that still runs marked it since the plan, and wrote
      // it: its change, left as it is (no conflict recorded here).
      heldLate = true;
      return;
    }
    if (local && local.hash === e.h) {
      // The same bytes as the datastore's: they agree.
      state.setSynced(path, { hash: e.h, version: e.v, size: e.s });
      agreed.push(path);
      return;
    }
    conflict(
      path,
      local ? { location: path, ...local } : null,
      e,
      "changed here while the pull fetched the datastore's copy",
    );
  };
  /** Why the fetch of `path` (a copy of which was set aside) wrote nothing there. */
  const notWritten = (path: string) =>
    result.uncommitted.includes(path)
      ? "another writer's push has not committed it"
      : vanished.some(([p]) => p === path)
      ? "the datastore no longer holds its object"
      : blockedBy.has(path)
      ? "a file or directory in the cache is in its way"
      : "the path changed while it was fetched";
  // The fetches failed: those still running write no record ahead.
  let failed = false;
  const fetchOne = async ([path, e, seen]: (typeof todo)[number]) => {
    let version: string;
    let hash: string;
    let mtimeMs: number | undefined;
    let ctimeMs: number | undefined;
    try {
      [version, hash, mtimeMs, ctimeMs] = e.s > config.streamThresholdBytes
        ? await fetchStreamed(path, e, seen)
        : await fetchWhole(path, e, seen);
    } catch (err) {
      if (err instanceof LocalChangedError) return await changedMeanwhile(path, e);
      if (err instanceof NotFoundError) {
        // Deleted since the index was written, or named again after its deletion.
        vanished.push([path, e]);
        return;
      }
      if (err instanceof PathBlockedError) return leftBlocked(path, err);
      throw err;
    } finally {
      moving.delete(path);
    }
    if (isUnversioned(e) ? version.endsWith("~") : version !== e.v) {
      // The store holds the very version this cache synced (its own commit
      // named it), and the index an older one: the entry was rolled back by
      // another client's rewrite of the index, not replaced. Kept, to publish again.
      if (!isUnversioned(e) && version === state.synced(path)?.version) {
        if (!(await changedLocally(path))) {
          result.dropped.push(path);
          return;
        }
      }
      return skipUncommitted(path, version.replace(/~$/, ""), e);
    }
    asides.taken(path);
    if (mtimeMs === undefined) {
      const st = await cache.stat(path);
      mtimeMs = st?.mtimeMs;
      ctimeMs = st?.ctimeMs;
    }
    // On disk before the pull goes on: a deletion by hand from now on is a
    // local change, even if this process dies before the pull ends. A fetch
    // ending after the pull failed (and saved) is left to the next save.
    const synced = {
      hash,
      version,
      size: e.s,
      mtimeMs,
      ...(ctimeMs !== undefined ? { ctimeMs } : {}),
    };
    if (failed) state.setSynced(path, synced);
    else state.noteSynced(path, synced);
    result.fetched.push(path);
    if (lockfiles.watches(path)) await lockfiles.after(path);
    result.bytes += e.s;
    done++;
    progress();
  };
  // The fetches under way: a cancelled pull waits for them to end (each is
  // cancelled too, and a cancelled download removes its temporary file)
  // before it answers, so that a process ending on that answer leaves none
  // behind.
  const running = new Set<Promise<void>>();
  const fetchAll = (items: typeof todo) =>
    pMap(items, (item) => {
      const fetching = (async () => {
        const path = item[0];
        asides.fetching(path);
        try {
          await fetchOne(item);
        } catch (err) {
          asides.notTaken(
            path,
            () => `the fetch failed: ${(err as Error)?.message ?? String(err)}`,
          );
          throw err;
        }
        // A copy set aside for it, and nothing written there: put back, or told of.
        asides.notTaken(path, () => notWritten(path));
      })();
      running.add(fetching);
      const ended = () => void running.delete(fetching);
      fetching.then(ended, ended);
      return fetching;
    }, { concurrency: config.concurrency, signal }).catch(async (err) => {
      if (signal.aborted) await Promise.allSettled([...running]);
      failed = true;
      asides.failing(() => stoppedBy(err));
      await keepProgress().catch(() => {}); // the fetch's own error is the one to report
      throw err;
    });
  if (todo.length > 0) await state.readyToNote();
  // The managed lockfile alone (no await per file of a large pull).
  for (const [path] of todo) if (isManagedLockfilePath(path)) await lockfiles.before(path);
  await fetchAll(todo);
  result.dropped.push(...restored.filter((p) => result.fetched.includes(p)));
  // Marks by name or by a directory above (a bulk mark is none).
  const marks = new Set([...dirty].map((p) => p.replace(/\/+$/, "")));
  const restore = !index ? [] : await removeDeletedRemotely({
    deps,
    inScope: (path) =>
      under(path, prefixes) && !Object.hasOwn(entries, path) && !deps.holdBack?.(path),
    probeHere,
    localCopy,
    marked: (path) => underMarks(marks, path),
    conflict: (path, mine, reason) => void conflict(path, mine, null, reason),
    agreed,
    result,
    keepProgress,
  });
  // Deleted here, their entries dropped, taken back (`restoreDeleted`) at
  // the version synced: kept then as a dropped entry is, for the next push
  // to name again.
  if (restore.length > 0) {
    await state.readyToNote();
    for (const p of restore) if (isManagedLockfilePath(p)) await lockfiles.before(p);
    await fetchAll(restore.map((path) => {
      const { version: v, hash: h, size: s } = state.synced(path)!;
      return [path, { v, h, s }, null];
    }));
    result.dropped.push(...restore.filter((p) => result.fetched.includes(p)));
  }
  // A file blocked by one this pull removed (a synced file `a` deleted on the
  // datastore, which now holds `a/b`, or the other way round): fetched now.
  if (blockedBy.size > 0 && result.removed.length > 0) {
    const again = todo.filter(([path]) => blockedBy.delete(path));
    await fetchAll(again);
  }
  const blocked = result.blocked ?? [];
  await keepBlocked({
    state,
    cache,
    events,
    entries,
    prefixes,
    blockedBy,
    blocked,
    uncommitted: result.uncommitted,
  });
  await keepDropped(state, events, result.dropped);
  warnDroppedHere(events, result.droppedHere ?? [], rolledBack);
  const more = warnedUncommitted - UNCOMMITTED_WARNINGS;
  if (more > 0) events.emit("warning", moreUncommittedWarning(more));
  // A removal that failed is tried again by the next pull, and a file
  // skipped as uncommitted is looked at again: neither keeps the token (a
  // pull that kept it would take the index as unchanged, and stay behind).
  const unnamed: string[] = [];
  const repaired = await removeDangling(
    deps,
    vanished,
    (path) => under(path, prefixes) && !deps.holdBack?.(path),
    unnamed,
  );
  // Their entries removed: nothing left behind there (as a peer's deletion).
  result.vanished!.push(...vanished.map(([p]) => p).filter((p) => !unnamed.includes(p)).sort());
  if (!prefixes) {
    const skipped = result.uncommitted.length + result.unreadable.length + blocked.length +
      links.length + result.deferred!.length + result.vanished!.length;
    // What was held back is looked at again by the next pull.
    const whole = skipped === 0 && !deps.holdBack && !heldLate && !leftToPush;
    state.indexVersion = repaired && whole ? index?.version : undefined;
  }
  deps.indexMemo?.remember(index);
  await deps.indexMemo?.persist();
  await state.saveManifest();
  // A path fetched holds a peer's committed version on the store: no upload
  // of this cache's an earlier push left there (a lost data version, say).
  await state.settleAttempted(result.fetched);
  await state.conflicts.settle(agreed);
  await state.conflicts.record(found);
  result.conflicts.push(...standingConflicts(deps, prefixes));
  return result;
}
