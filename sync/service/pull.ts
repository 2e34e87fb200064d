/**
 * The pull: fetches what changed remotely (by version), verifies each
 * download against the index hash, writes atomically, never overwrites a
 * locally dirty file, and refuses unsafe remote keys before writing anything.
 * Its look at the copies here is in `pull_local.ts`, its fetches in
 * `pull_fetch.ts`, the local copies it sets aside in `pull_aside.ts`, its
 * result in `pull_result.ts`.
 *
 * @module
 */
import pMap from "p-map";
import { NotFoundError, PathBlockedError } from "../errors.ts";
import type { ObjectStore } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { type LocalCache, shownStatePath } from "../transfer/cache.ts";
import { type FileIdentity, LocalChangedError } from "../transfer/file_identity.ts";
import { CopyVanishedError } from "../transfer/cache_state.ts";
import type { SyncConfig } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import type { IndexEntry, IndexMemo } from "../transfer/remote_index.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import { isOwnUncommitted, readWriterId } from "../transfer/writer_id.ts";
import type { SyncState } from "./state.ts";
import { type ConflictRecord, PULL_SET_ASIDE_REASON } from "./conflicts.ts";
import { keepDropped } from "./dropped_entries.ts";
import { fetchers } from "./pull_fetch.ts";
import { removeDeletedRemotely } from "./pull_removals.ts";
import {
  blockedWarning,
  moreUncommittedWarning,
  pullConflictWarning,
  uncommittedWarning,
} from "./pull_warnings.ts";
import { localSide } from "./pull_local.ts";
import { type HeldConflict, PullAsides } from "./pull_aside.ts";
import { type PullResult, UNCOMMITTED_WARNINGS } from "./pull_result.ts";

export { pullLeftBehind, type PullResult } from "./pull_result.ts";
import { removeDangling } from "./dangling_entries.ts";
import { indexForPull } from "./pull_index.ts";

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
}

/** True when `path` is one of `prefixes` or lies under one (every path without them). */
export function under(path: string, prefixes: readonly string[] | undefined): boolean {
  return !prefixes ||
    prefixes.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`));
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
  const { store, cache, state, config, events, signal } = deps;
  const result: PullResult = {
    fetched: [],
    removed: [],
    conflicts: [],
    setAside: asides.locations,
    uncommitted: [],
    unreadable: [],
    links: [],
    blocked: [],
    dropped: [],
    deferred: [],
    vanished: [],
    lost: [],
    undecided: [],
    unchanged: false,
    bytes: 0,
  };
  // Directories checked (not links) or made count for this pull only.
  cache.resetChecks();
  const read = await indexForPull(deps, prefixes);
  if (read === "unchanged") {
    result.unchanged = true;
    result.conflicts.push(...standingConflicts(deps, prefixes));
    return result;
  }
  const { index } = read;
  const entries: Record<string, IndexEntry> = index?.entries ?? {};
  const dirty = new Set(state.dirtyPaths());
  const links = result.links ?? [];
  const { changedLocally, localCopy, leftOut, probeHere } = localSide({
    cache,
    state,
    dirty,
    events,
    unreadable: result.unreadable,
    links,
  });
  /** Records a conflict, and tells of it now, or (`later`) by the `tell` returned. */
  const conflict = (
    path: string,
    mine: ConflictRecord["mine"],
    theirs: IndexEntry | null,
    reason: string,
    later = false,
  ): HeldConflict => {
    const rec: ConflictRecord = {
      path,
      mine,
      theirs: theirs ? { version: theirs.v, hash: theirs.h, size: theirs.s } : null,
      base: state.synced(path)?.version,
      foundBy: "pull",
      at: (deps.now ?? Date.now)(),
      reason,
    };
    const known = state.conflicts.get(path);
    found.push(rec);
    // Reported once per version of theirs, not at every pull.
    const told = known && known.theirs?.version === rec.theirs?.version;
    const tell = (taken: boolean) => {
      if (!told) warnConflict(path, mine, theirs, taken, reason);
    };
    if (!later) tell(true);
    return { rec, tell };
  };
  const warnConflict = (
    path: string,
    mine: ConflictRecord["mine"],
    theirs: IndexEntry | null,
    taken: boolean,
    reason?: string,
  ) =>
    events.emit(
      "warning",
      pullConflictWarning(
        path,
        mine,
        theirs,
        taken,
        reason,
        (l) => shownStatePath(cache.dir, cache.stateDir, l),
      ),
    );
  let writer: Promise<string | null> | undefined;
  /** True when the store holds this cache's own uncommitted write at `path`, other than `e`'s. */
  const ownWriteOver = async (path: string, e: IndexEntry): Promise<boolean> => {
    if (isUnversioned(e)) return false;
    const id = await (writer ??= readWriterId(cache));
    if (id === null) return false;
    // A failed look counts as no: the path is then a conflict.
    const now = await withRetry(() => store.head(path, { signal }), config.retry, signal)
      .catch(() => null);
    return now !== null && isOwnUncommitted(now, e.v, id);
  };
  // Each path to fetch, with what was at it locally when the pull decided to
  // (checked again just before the write: an edit saved meanwhile stays).
  const todo: [string, IndexEntry, FileIdentity | undefined][] = [];
  // Never-synced paths holding this cache's own uncommitted write (see below).
  const ownKept: string[] = [];
  for (const [path, e] of Object.entries(entries)) {
    if (!under(path, prefixes) || deps.isInternal(path)) continue;
    const synced = state.synced(path);
    if (
      deps.restoreDeleted && synced && !dirty.has(path) &&
      (synced.version === e.v || synced.hash === e.h) && !cache.exists(path)
    ) {
      // Deleted here, unchanged there: the datastore's copy is taken back.
      todo.push([path, e, null]);
      continue;
    }
    if (synced?.version === e.v) continue;
    // Written by another client of the layout (no object version recorded):
    // unchanged while the content hash (or, without one, the size) is.
    if (isUnversioned(e) && synced && (e.h ? synced.hash === e.h : synced.size === e.s)) continue;
    // Looked at before the copy's bytes are: an edit after this look is seen at the write.
    let seen = synced ? cache.identity(path) : undefined;
    const here = await probeHere(path);
    if (!here) continue;
    let { local } = here;
    if (here.changed) {
      if (local && local.hash === e.h) {
        state.setSynced(path, { hash: e.h, version: e.v, size: e.s });
        agreed.push(path);
        continue;
      }
      // The store holds this cache's own write at another version than the
      // entry names: a push of it was cut off before its index update. That
      // write replaced the entry's version by compare-and-swap, which it does
      // only over a version this cache synced or wrote itself, so the local
      // change is based on the entry, not in conflict with it: it stays
      // local (and dirty) for the push to commit.
      if (local && await ownWriteOver(path, e)) continue;
      conflict(
        path,
        local ? { location: path, ...local } : null,
        e,
        "changed here since the last sync, and on the datastore",
      );
      continue;
    }
    if (!synced) {
      // A local file this cache never synced (copied in, or its sync state was
      // lost): never overwrite it silently.
      try {
        local = await localCopy(path);
      } catch (err) {
        if (leftOut(path, err)) continue;
        throw err;
      }
      if (local && local.hash === e.h) {
        state.setSynced(path, { hash: e.h, version: e.v, size: e.s });
        continue;
      }
      if (!local && deps.defer?.(path) && !cache.exists(path)) {
        // Left for a later pull of it (hydration): only its directory is made.
        result.deferred!.push(path);
        cache.makeParents(path);
        continue;
      }
      // Nothing here (or, below, set aside): a file made before the write is kept.
      seen = null;
      // This cache's own write over the entry, cut off before its commit, of
      // a path no dirty mark names (written under a marked directory): based
      // on the entry as above, so kept for the push, and named dirty so the
      // push takes it up.
      if (local && await ownWriteOver(path, e)) {
        ownKept.push(path);
        continue;
      }
      if (local) {
        const why = "a local copy this cache never synced differed from the datastore's";
        // The conflict is kept beside the copy until its record is saved (a
        // stop before that leaves the copy named all the same: see ConflictSet.open).
        const aside = await cache.setAside(path, PULL_SET_ASIDE_REASON, undefined, {
          mine: { hash: local.hash, size: local.size },
          theirs: { version: e.v, hash: e.h, size: e.s },
          reason: why,
        }).catch((err) => {
          // Deleted here since it was looked at: nothing of it to keep, the
          // path is taken as one with nothing here (a file saved there
          // meanwhile is kept by the write, as any).
          if (err instanceof CopyVanishedError) return null;
          throw err;
        });
        // Told of once its fetch is done: put back if that writes nothing.
        if (aside) {
          asides.add(path, aside, conflict(path, { location: aside, ...local }, e, why, true));
        }
      }
    }
    todo.push([path, e, seen]);
  }
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
  const skipUncommitted = (path: string, version: string, e: IndexEntry) => {
    // The object was replaced after the index was written: a writer's push
    // is in flight, or stopped between its uploads and its index commit
    // (possibly a refused run). Its bytes are not committed: never pull them.
    result.uncommitted.push(path);
    // One warning each for the first few; the rest are told at the end.
    if (result.uncommitted.length > UNCOMMITTED_WARNINGS) return;
    events.emit("warning", uncommittedWarning(path, version, e.v));
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
    try {
      [version, hash, mtimeMs] = e.s > config.streamThresholdBytes
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
    mtimeMs ??= (await cache.stat(path))?.mtimeMs;
    // On disk before the pull goes on: a deletion by hand from now on is a
    // local change, even if this process dies before the pull ends. A fetch
    // ending after the pull failed (and saved) is left to the next save.
    const synced = { hash, version, size: e.s, mtimeMs };
    if (failed) state.setSynced(path, synced);
    else state.noteSynced(path, synced);
    result.fetched.push(path);
    result.bytes += e.s;
    done++;
    progress();
  };
  const fetchAll = (items: typeof todo) =>
    pMap(items, async (item) => {
      const path = item[0];
      asides.fetching(path);
      try {
        await fetchOne(item);
      } catch (err) {
        asides.notTaken(path, () => `the fetch failed: ${(err as Error)?.message ?? String(err)}`);
        throw err;
      }
      // A copy set aside for it, and nothing written there: put back, or told of.
      asides.notTaken(path, () => notWritten(path));
    }, { concurrency: config.concurrency, signal }).catch(async (err) => {
      failed = true;
      asides.failing(() => stoppedBy(err));
      await keepProgress().catch(() => {}); // the fetch's own error is the one to report
      throw err;
    });
  if (todo.length > 0) await state.readyToNote();
  await fetchAll(todo);
  if (index) {
    await removeDeletedRemotely({
      deps,
      inScope: (path) => under(path, prefixes) && !Object.hasOwn(entries, path),
      probeHere,
      localCopy,
      conflict: (path, mine, reason) => void conflict(path, mine, null, reason),
      agreed,
      result,
      keepProgress,
    });
  }
  // A file blocked by one this pull removed (a synced file `a` deleted on the
  // datastore, which now holds `a/b`, or the other way round): fetched now.
  if (blockedBy.size > 0 && result.removed.length > 0) {
    const again = todo.filter(([path]) => blockedBy.delete(path));
    await fetchAll(again);
  }
  const blocked = result.blocked ?? [];
  for (const [path, err] of blockedBy) {
    blocked.push(path);
    if (blocked.length <= UNCOMMITTED_WARNINGS) events.emit("warning", blockedWarning(path, err));
  }
  await keepDropped(state, events, result.dropped);
  const more = result.uncommitted.length - UNCOMMITTED_WARNINGS;
  if (more > 0) events.emit("warning", moreUncommittedWarning(more));
  // A removal that failed is tried again by the next pull, and a file
  // skipped as uncommitted is looked at again: neither keeps the token (a
  // pull that kept it would take the index as unchanged, and stay behind).
  const unnamed: string[] = [];
  const repaired = await removeDangling(
    deps,
    vanished,
    (path) => under(path, prefixes),
    unnamed,
  );
  // Their entries removed: nothing left behind there (as a peer's deletion).
  result.vanished!.push(...vanished.map(([p]) => p).filter((p) => !unnamed.includes(p)).sort());
  if (!prefixes) {
    const skipped = result.uncommitted.length + result.unreadable.length + blocked.length +
      links.length + result.deferred!.length + result.vanished!.length;
    state.indexVersion = repaired && skipped === 0 ? index?.version : undefined;
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

/** The unresolved conflicts under `prefixes` (internal paths left out). */
function standingConflicts(deps: PullDeps, prefixes?: readonly string[]): string[] {
  return deps.state.conflicts.list().map((c) => c.path).filter((p) =>
    under(p, prefixes) && !deps.isInternal(p)
  );
}
