/**
 * What a pull fetches: each entry that changed on the datastore since this
 * cache synced it, unless the copy here changed too (a conflict, recorded
 * by `conflictRecorder` of `pull_conflict_recorder.ts`) or holds this cache's own write cut off
 * before its commit (kept for the push). A copy here this cache never
 * synced is set aside first. `pull.ts` runs the fetches.
 *
 * @module
 */
import { heldAsSynced, rolledBackDeletedHere } from "./dropped_entries.ts";
import { classifyPath } from "../path_class.ts";
import {
  markerNumber,
  markerNumberOfHash,
  movedFurther,
  namesHighestListed,
  ownListedVersions,
} from "../marker_numbers.ts";
import type { FileIdentity } from "../transfer/file_identity.ts";
import { CopyVanishedError } from "../transfer/cache_state.ts";
import { marksElsewhere, underMarks } from "./pull_elsewhere.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import type { SyncedEntry } from "./manifest_log.ts";
import { isUnversioned, isVersionFile } from "../transfer/bucket_layout.ts";
import { VERSION_REWRITTEN } from "./pull_aside.ts";
import { readWriter, readWriterId } from "../transfer/writer_id.ts";
import type { OwnWrite } from "./pull_own_write.ts";
import { type ConflictRecord, PULL_SET_ASIDE_REASON } from "./conflicts.ts";
import type { RecordConflict } from "./pull_conflict_recorder.ts";
import { setAsideAsLost } from "./set_aside_lost.ts";
import { LOST_REASON } from "./vanished_record.ts";
import type { PullAsides } from "./pull_aside.ts";
import type { localSide } from "./pull_local.ts";
import type { PullDeps } from "./pull.ts";

import { inTheWay, under } from "./pull_paths.ts";

export { inTheWay, under };

/**
 * For a `latest` marker changed here and on the datastore: `further` when
 * both moved forward from the one this cache synced (`syncedHash`), this
 * one further (see `marker_numbers.ts`); `same` when both name the same
 * version (their bytes differ otherwise); undefined else (a conflict). The
 * peer's must name the highest version the index (`entries`) lists, this
 * cache's own published versions left out: one moved back from a version
 * still listed is a rollback, not a move forward.
 */
async function markerMoved(
  deps: PullDeps,
  path: string,
  syncedHash: string,
  theirs: string,
  entries: Record<string, IndexEntry>,
): Promise<"further" | "same" | undefined> {
  if (classifyPath(path, deps.config.classifierRules) !== "latest-marker") return undefined;
  const bytes = await deps.cache.read(path).catch(() => null);
  const mine = bytes ? markerNumber(bytes) : undefined;
  if (mine === undefined) return undefined;
  const named = await markerNumberOfHash(theirs, mine);
  if (named === mine) return "same";
  if (!movedFurther(await markerNumberOfHash(syncedHash, mine), named, mine)) return undefined;
  // Versions this cache's own pushes published above the peer's marker (its
  // marker lost the race to the peer's) are no versions the peer moved back from.
  const writer = await readWriterId(deps.cache);
  const listed = Object.keys(entries);
  const own = writer === null
    ? undefined
    : ownListedVersions(path, listed, (p) => deps.state.synced(p)?.own === writer);
  return namesHighestListed(path, listed, named!, own) ? "further" : undefined;
}

/** What {@link planFetches} needs of the pull. */
export interface PlanInput {
  readonly deps: PullDeps;
  readonly prefixes: readonly string[] | undefined;
  readonly entries: Record<string, IndexEntry>;
  readonly dirty: ReadonlySet<string>;
  readonly local: Pick<ReturnType<typeof localSide>, "probeHere" | "localCopy" | "leftOut">;
  readonly conflict: RecordConflict;
  readonly ownWriteOver: (path: string, e: IndexEntry) => Promise<OwnWrite>;
  /** Paths found agreeing with the datastore (their conflicts settled). */
  readonly agreed: string[];
  readonly asides: PullAsides;
  /** Paths left for a later pull (hydration). */
  readonly deferred: string[];
  /**
   * Paths whose entry another client wrote back stale (see
   * {@link planFetches}): kept, to be named again by the next push.
   */
  readonly dropped: string[];
  /** Paths deleted here, unmarked, whose entry another client rolled back (see {@link planFetches}). */
  readonly droppedHere: string[];
}

/** What to fetch, and the never-synced paths kept for the push (to mark dirty). */
export interface FetchPlan {
  /** Each path, its entry, and what was at it here when the pull decided (checked again at the write). */
  readonly todo: [string, IndexEntry, FileIdentity | undefined][];
  readonly ownKept: string[];
  /**
   * A copy was left as it is for a mark another process made since the
   * pull read the marks (see `pull_elsewhere.ts`): the index token is not kept.
   */
  readonly heldLate: boolean;
  /**
   * A path with nothing here was left to the push as this cache's own
   * write deleted here since (see {@link planFetches}): the push may find
   * the upload a peer's published version by then and leave it alone, so
   * the index token is not kept, and the next pull looks at the path again.
   */
  readonly leftToPush: boolean;
  /**
   * Paths deleted here whose entry another client rolled back, fetched at
   * the version synced (`restoreDeleted`): kept, once fetched, as dropped.
   */
  readonly restored: readonly string[];
}

/** The reason of the conflict a pull records for a data version published again with other bytes. */
export const REWRITTEN_WHY =
  "a data version this cache had synced was published again with other bytes";

/** Why a pull set aside a copy of a data version published again with other bytes. */
export const VERSION_REWRITTEN_REASON =
  "the datastore holds this data version again with other bytes (another writer published it again)";

/**
 * True when `e` names other bytes than the copy of a data version file
 * (`path`) this cache synced: by hash, or by size for an entry that records
 * none. The same bytes at another version (a second writer of identical
 * bytes, an adoption) are no rewrite.
 */
function rewritten(
  path: string,
  synced: { hash: string; size: number },
  e: IndexEntry,
): boolean {
  if (!isVersionFile(path.split("/"))) return false;
  return e.h ? e.h !== synced.hash : e.s !== synced.size;
}

/**
 * Where the copy of a data version this cache synced (`hash`) stands, with
 * no change of this cache's, when an open conflict (`open`) names it: set
 * aside elsewhere by a pull stopped before its download, the path empty
 * (`"aside"`), or kept in place as the last copy over the datastore's loss
 * of it, the synced bytes unchanged (`"here"`); undefined otherwise (a
 * change made here, left to the conflict).
 */
function syncedCopyLeft(
  open: ConflictRecord | undefined,
  path: string,
  hash: string,
  local: { hash: string } | null | undefined,
  exists: boolean,
): "aside" | "here" | undefined {
  const mine = open?.mine;
  if (!mine || mine.hash !== hash) return undefined;
  if (mine.location !== path) return !local && !exists ? "aside" : undefined;
  return open!.reason === LOST_REASON && local?.hash === hash ? "here" : undefined;
}

/** Decides what the pull fetches (see the module). */
export async function planFetches(input: PlanInput): Promise<FetchPlan> {
  const { deps, prefixes, entries, dirty, conflict, ownWriteOver, agreed, asides, deferred } =
    input;
  const { cache, state } = deps;
  const { probeHere, localCopy, leftOut } = input.local;
  // Each path to fetch, with what was at it locally when the pull decided to
  // (checked again just before the write: an edit saved meanwhile stays).
  const todo: [string, IndexEntry, FileIdentity | undefined][] = [];
  // Never-synced paths holding this cache's own uncommitted write (see below).
  const ownKept: string[] = [];
  // Paths left as they are for another process's mark made since the pull read them.
  let heldLate = false;
  // Paths with nothing here left to the push (see `FetchPlan.leftToPush`).
  let leftToPush = false;
  // Rolled-back entries deleted here, taken back (see `FetchPlan.restored`).
  const restored: string[] = [];
  // The dirty set's names, trailing slashes off (a directory's mark).
  const marks = new Set([...dirty].map((p) => p.replace(/\/+$/, "")));
  /**
   * `path`, deleted here with no mark naming it, its entry (`e`) rolled back
   * by another client while the store holds the version synced here: told
   * (`droppedHere`), its record kept; with `restoreDeleted`, that version
   * is fetched back and kept as a dropped entry is.
   */
  const keepDeletedHere = (path: string, e: IndexEntry, synced: SyncedEntry) => {
    if (!deps.restoreDeleted) return void input.droppedHere.push(path);
    todo.push([path, { ...e, v: synced.version, h: synced.hash, s: synced.size }, null]);
    restored.push(path);
  };
  /**
   * Sets the copy at `path` (`mine`) aside before the datastore's is
   * fetched, with the conflict that names it kept beside it until its
   * record is saved (a stop before that leaves the copy named all the same:
   * see ConflictSet.open), told once its fetch is done (put back if that
   * writes nothing). A copy deleted here since it was looked at has nothing
   * to keep: the path is taken as one with nothing here (a file saved there
   * meanwhile is kept by the write, as any).
   */
  const setAsideInConflict = async (
    path: string,
    mine: { hash: string; size: number },
    e: IndexEntry,
    why: string,
    reason: string,
    rewritten = false,
  ) => {
    const aside = await cache.setAside(path, reason, rewritten ? VERSION_REWRITTEN : undefined, {
      mine: { hash: mine.hash, size: mine.size },
      theirs: { version: e.v, hash: e.h, size: e.s },
      reason: why,
    }).catch((err) => {
      if (err instanceof CopyVanishedError) return null;
      throw err;
    });
    if (!aside) return;
    const at = { location: aside, hash: mine.hash, size: mine.size };
    asides.add(path, aside, conflict(path, at, e, why, true), rewritten);
  };
  // The synced entry of a copy here that holds the bytes `e` names: a data
  // version of this cache's own making (its push's commit landed, its answer
  // lost: the path dirty or attempted here, the store's object its own) stays
  // its own (see `pull_removals.ts`).
  // Its object gone (an older client's blind deletion, its index update not
  // come yet), over a path this cache recorded as attempted: the entry may
  // name that very write, and kept as its own, the deletion is a conflict,
  // never the removal of what may be the last copy.
  // So too a data version never synced here, neither marked nor attempted,
  // in a cache whose writer id is bound to it: its record may have been lost
  // (a damaged line of the manifest's log), and the store's object tells
  // whether this cache wrote it (one HEAD). Its object gone, no look tells:
  // the copy is left unrecorded (undefined), as a pull a moment later finds
  // it (no entry), and kept as any file this cache never synced; recorded as
  // synced, the next pull would follow the deletion and remove what may be
  // the last copy. (Where the path is dirty, as `here.changed` requires of a
  // path never synced, the result is always a record.)
  let bound: Promise<boolean> | undefined;
  const agreeing = async (path: string, e: IndexEntry) => {
    const version = !state.synced(path) &&
      classifyPath(path, deps.config.classifierRules) === "data-version";
    const marked = dirty.has(path) || state.attempted(path);
    const candidate = version &&
      (marked || await (bound ??= readWriter(deps.cache).then((w) => w.bound)));
    const found = candidate ? await ownWriteOver(path, e) : false;
    if (found === "gone" && !marked) return undefined;
    const own = found === true || (found === "gone" && state.attempted(path));
    const id = own ? await readWriterId(deps.cache) : null;
    return { hash: e.h, version: e.v, size: e.s, ...(id ? { own: id } : {}) };
  };
  for (const [path, e] of Object.entries(entries)) {
    if (!under(path, prefixes) || deps.isInternal(path) || deps.holdBack?.(path)) continue;
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
    // Another client's entry naming other bytes while the store still holds
    // the very version this cache synced: no edit (an edit replaces the
    // object), but an index read earlier and written back since (an old
    // client's pull), which took this cache's committed version out of it.
    // Kept, as a dropped entry is, and named again by the next push (one
    // HEAD, on this path alone).
    // Deleted here, no mark naming it (nor a directory above): a rolled-back
    // entry, told as such, not a deletion for the next push to make (chaos
    // seed 236400140).
    if (
      isUnversioned(e) && synced && !dirty.has(path) &&
      await heldAsSynced(deps, path, synced.version).catch(() => false)
    ) {
      if (cache.fileGone(path) && !underMarks(marks, path)) keepDeletedHere(path, e, synced);
      else input.dropped.push(path);
      continue;
    }
    // Looked at before the copy's bytes are: an edit after this look is seen at the write.
    let seen = synced ? cache.identity(path) : undefined;
    const here = await probeHere(path);
    if (!here) continue;
    let { local } = here;
    // A rewritten data version whose synced copy no change here touched (see
    // `syncedCopyLeft`): fetched as the rewrite is, the conflict kept open for
    // `resolve --theirs`; a copy kept in place is set aside first, as any
    // synced copy of a rewritten version is (chaos seeds 208900072, 208900294).
    const left = here.changed && synced && rewritten(path, synced, e)
      ? syncedCopyLeft(state.conflicts.get(path), path, synced.hash, local, cache.exists(path))
      : undefined;
    if (left === "here") {
      const mine = { hash: synced!.hash, size: synced!.size };
      await setAsideInConflict(path, mine, e, REWRITTEN_WHY, VERSION_REWRITTEN_REASON, true);
    }
    if (left) {
      todo.push([path, e, null]);
      continue;
    }
    if (here.changed) {
      if (local && local.hash === e.h) {
        state.setSynced(path, await agreeing(path, e));
        agreed.push(path);
        continue;
      }
      // The store holds this cache's own write at another version than the
      // entry names: a push of it was cut off before its index update. That
      // write replaced the entry's version by compare-and-swap, which it does
      // only over a version this cache synced or wrote itself, so the local
      // change is based on the entry, not in conflict with it: it stays
      // local (and dirty) for the push to commit. So too when the entry
      // names this cache's own write (its commit landed, the answer did
      // not): the change here was made over it, and nothing came after it.
      // A deletion here too: the push deletes that write and its entry.
      // Deleted here, unmarked, its entry rolled back by another client's
      // write-back (taken for this cache's own write below, it was left to a
      // push that never came: chaos seed 4104). Taken back with
      // `restoreDeleted`: the version synced, fetched, is kept as dropped.
      if (await rolledBackDeletedHere(deps, path, e, synced, underMarks(marks, path))) {
        keepDeletedHere(path, e, synced!);
        continue;
      }
      const own = await ownWriteOver(path, e);
      if (own === true) continue;
      // The entry's object is gone (a peer's deletion of it, or a peer's
      // write over it, its index update not come yet; or an entry left
      // naming nothing), and with it its writer id: where this cache may
      // hold a write of the path whose commit it never saw (the path dirty,
      // or recorded as attempted), the entry may name that very write,
      // committed with its answer lost, and the change here made over it;
      // no look tells now. The datastore holds nothing committed to take or
      // to keep: no conflict now (one with its own write, maybe); the change
      // stays local (and dirty) for the push (which meets a peer's write
      // there as a conflict naming it), and a later pull meets the peer's
      // change once it is committed.
      if (own === "gone" && (dirty.has(path) || state.attempted(path))) continue;
      // A `latest` marker moved forward here further than a peer moved it
      // forward: no conflict (both versions stay published); kept here,
      // based on the peer's, for the push to write over it.
      const moved = local && synced
        ? await markerMoved(deps, path, synced.hash, e.h, entries)
        : undefined;
      // Based on the peer's marker (another client's entry, with no object
      // version, is written over by the copy it names: `config_cas_writer.ts`).
      if (moved === "further") {
        state.setSynced(path, { hash: e.h, version: e.v, size: e.s });
        ownKept.push(path);
        continue;
      }
      // The same version named on both sides (other bytes: a newline, say):
      // no conflict, the datastore's copy is taken (nothing of this one is lost).
      if (moved === "same") {
        todo.push([path, e, seen]);
        continue;
      }
      conflict(
        path,
        local ? { location: path, ...local } : null,
        e,
        "changed here since the last sync, and on the datastore",
      );
      continue;
    }
    if (synced && rewritten(path, synced, e) && cache.exists(path)) {
      // A data version this cache synced, which the datastore holds again
      // with other bytes: another writer published the same version (a
      // client of the layout that missed a commit, and numbered its own
      // version as this one). The copy here may be the last of what was
      // published first: set aside, never written over, and a conflict.
      const mine = { hash: synced.hash, size: synced.size };
      await setAsideInConflict(path, mine, e, REWRITTEN_WHY, VERSION_REWRITTEN_REASON, true);
      seen = null;
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
        const record = await agreeing(path, e);
        if (record) state.setSynced(path, record);
        continue;
      }
      // Nothing here where this cache wrote the path (dirty, or recorded as
      // attempted) and the entry names that very write (its commit landed,
      // its answer lost): deleted here since, over its own write. The
      // deletion stays local (and dirty) for the push, which deletes that
      // write and its entry; fetched back, it would undo the deletion, and
      // a file saved there meanwhile would meet it as a conflict with itself.
      // Unless its copy here was set aside as a lost version's
      // (`version_exists`), not deleted: the entry then names a published
      // version (a peer's, whose create met this upload's bytes and committed
      // it), which no push here takes back (`dropOwnStranded`), so it is
      // fetched, and the record of the write settled with it, even where the
      // look that settles that record at the set-aside failed. The push may
      // still leave the upload alone (a refused run's erasure took the copy
      // out, not a user, and found the upload named by a peer's commit by
      // then, settling the record): no index token is kept, so that the
      // next pull looks at the path again and fetches what the push left.
      if (
        !local && (dirty.has(path) || state.attempted(path)) &&
        await ownWriteOver(path, e) === true &&
        !(await setAsideAsLost(cache.stateDir, path, e.v))
      ) {
        ownKept.push(path);
        leftToPush = true;
        continue;
      }
      // Never deferred with a file here in the way of it: the fetch finds it
      // blocked, tells of it and records it, so that no push publishes that
      // file beside it (see `blocked_record.ts`).
      if (!local && deps.defer?.(path) && !cache.exists(path) && !inTheWay(cache, path)) {
        // Left for a later pull of it (hydration): only its directory is made.
        deferred.push(path);
        cache.makeParents(path);
        continue;
      }
      // Nothing here (or, below, set aside): a file made before the write is kept.
      seen = null;
      // This cache's own write over the entry, cut off before its commit, of
      // a path no dirty mark names (written under a marked directory): based
      // on the entry as above, so kept for the push, and named dirty so the
      // push takes it up.
      if (local && await ownWriteOver(path, e) === true) {
        ownKept.push(path);
        continue;
      }
      if (local) {
        // Another process that still runs marked it since the pull looked
        // (the tool marks, then writes): its change, left as it is.
        if (underMarks(await marksElsewhere(state), path)) {
          heldLate = true;
          continue;
        }
        const why = "a local copy this cache never synced differed from the datastore's";
        await setAsideInConflict(path, local, e, why, PULL_SET_ASIDE_REASON);
      }
    }
    todo.push([path, e, seen]);
  }
  return { todo, ownKept, heldLate, leftToPush, restored };
}
