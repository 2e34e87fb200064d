/**
 * The pull's removals: each synced file the index no longer names and that
 * is unchanged here was deleted on the datastore (or its entry dropped by
 * another client: a file the store still holds at the synced version is
 * kept, and named again by the next push). A file changed here is a
 * conflict (unless its entry was dropped: the change is left to the push,
 * which writes it over the synced version); one deleted here too agrees
 * (unless its entry was dropped: the store still holds the synced version,
 * and the deletion here stays a local one, its record kept, deleted on the
 * datastore only by a push of its name);
 * a data version this cache's push created is kept, a conflict (its copy here
 * may be the only one). Each is removed only while it is what the pull
 * looked at: an edit saved in between is kept, a conflict. A deletion here
 * (saved before the pull's look or in between), where the store holds the
 * path at another version (written since the index was read), keeps its
 * record for the next pull.
 *
 * @module
 */
import pMap from "p-map";
import { LocalChangedError } from "../transfer/file_identity.ts";
import type { FileIdentity } from "../transfer/file_identity.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { versionHeld } from "./dropped_entries.ts";
import type { PullDeps } from "./pull.ts";
import type { localSide } from "./pull_local.ts";
import type { PullResult } from "./pull_result.ts";
import { LOST_REASON, readVanished, UNREADABLE_RECORD_REASON } from "./vanished_record.ts";
import { classifyPath } from "../path_class.ts";
import { readWriterId } from "../transfer/writer_id.ts";

type LocalSide = ReturnType<typeof localSide>;

/** Why a pull keeps a data version this cache published that was deleted on the datastore. */
export const OWN_VERSION_DELETED_REASON =
  "a data version this cache published, deleted on the datastore since (by another client: a deliberate deletion, or an older client's push deleting versions it never had, as swamp's existing extensions do from a stale directory); this copy may be the only one left, so it was kept in place: resolve --mine to publish it again, --theirs to take the deletion";

/**
 * {@link OWN_VERSION_DELETED_REASON}, for such a version the datastore lost
 * (its object deleted outside Sluice, its entry then removed as naming
 * nothing: recorded in the record of lost files).
 */
export const OWN_VERSION_LOST_REASON =
  "a data version this cache published, gone from the datastore since (its object deleted outside Sluice, or by a peer's deletion that crossed this cache's commit of it, and its index entry then removed as naming nothing); this copy may be the only one left, so it was kept in place: resolve --mine to publish it again, --theirs to take the deletion";

/** True for the reason of a data version this cache published, kept over the datastore's deletion or loss. */
export function isOwnVersionKept(reason: string | undefined): boolean {
  return reason === OWN_VERSION_DELETED_REASON || reason === OWN_VERSION_LOST_REASON;
}

/** What {@link removeDeletedRemotely} needs of its pull. */
export interface RemovalDeps {
  readonly deps: PullDeps;
  /** True for a synced path this pull covers that the index no longer names. */
  readonly inScope: (path: string) => boolean;
  readonly probeHere: LocalSide["probeHere"];
  readonly localCopy: LocalSide["localCopy"];
  /** Records a conflict with the datastore's deletion. */
  readonly conflict: (path: string, mine: ConflictRecord["mine"], reason: string) => void;
  /**
   * True for a path marked dirty here or by another process over the cache
   * (by its name, or by a directory above it; a bulk mark does not count).
   */
  readonly marked: (path: string) => boolean;
  /** Paths found deleted on both sides (their records settled). */
  readonly agreed: string[];
  readonly result: PullResult;
  /** Saves what the pull did so far (before a failure is reported). */
  readonly keepProgress: () => Promise<void>;
}

/**
 * Removes the files deleted on the datastore (see the module). Returns the
 * synced files deleted here, unmarked, whose entry another client dropped,
 * that the pull was asked to take back (`restoreDeleted`): the store still
 * holds the version synced.
 */
export async function removeDeletedRemotely(r: RemovalDeps): Promise<string[]> {
  const { deps, agreed, result } = r;
  const { cache, state, config, signal } = deps;
  const gone: string[] = [];
  // Synced files deleted here that the index no longer names.
  const bothGone: string[] = [];
  // Synced files changed here that the index no longer names, with their copies.
  const changedHere = new Map<string, NonNullable<ConflictRecord["mine"]>>();
  // What was at each when it was found unchanged, checked again at its removal.
  const seenAt = new Map<string, FileIdentity | undefined>();
  for (const path of state.syncedPaths()) {
    if (!r.inScope(path)) continue;
    // An open conflict keeps its copy until resolved (a file the datastore
    // lost, say, whose record is gone since); one with the datastore's
    // deletion whose copy is gone here too (deleted by hand, or by the tool's
    // own garbage collection) is settled: both sides deleted the file.
    const open = state.conflicts.get(path);
    if (open) {
      if (!open.theirs && cache.fileGone(path)) {
        state.setSynced(path, undefined);
        agreed.push(path);
      }
      continue;
    }
    seenAt.set(path, cache.identity(path));
    const here = await r.probeHere(path);
    if (!here) continue;
    const { local } = here;
    if (here.changed) {
      if (!local && cache.fileGone(path)) {
        // Deleted here too (or replaced by a directory of its name): they
        // agree, unless the datastore's entry was dropped (below).
        bothGone.push(path);
      } else if (local) {
        changedHere.set(path, { location: path, ...local });
      }
      continue;
    }
    gone.push(path);
  }
  // A failed look at the store keeps what the pull did, as a failed fetch does.
  const keeping = <T>(look: Promise<T>) =>
    look.catch(async (err) => {
      await r.keepProgress().catch(() => {});
      throw err;
    });
  // A deletion removes the object first: one still here at the synced
  // version had its entry dropped, not its file deleted (one HEAD each).
  const held = new Set<string>();
  // Those whose object is there at another version: written since the index
  // this pull read (or an upload whose commit has not come).
  const writtenSince = new Set<string>();
  await keeping(pMap([...gone, ...bothGone, ...changedHere.keys()], async (path) => {
    const synced = state.synced(path);
    if (!synced) return;
    const now = await versionHeld(deps, path);
    if (now === synced.version) held.add(path);
    else if (now !== undefined) writtenSince.add(path);
  }, { concurrency: config.concurrency, signal }));
  // Changed here, its entry dropped: no deletion to be in conflict with. The
  // change stays for the push, which writes it over the synced version as
  // any other, the entry named again so (taken for a conflict with a
  // deletion, the object stood on the store named by no index: chaos seed
  // 210400008, a marker a refused run's erasure reset here after a pull had
  // kept its dropped entry). Else a conflict with the deletion.
  for (const [path, mine] of changedHere) {
    if (held.has(path)) result.dropped.push(path);
    else r.conflict(path, mine, "changed here, deleted on the datastore");
  }
  // Deleted here (or replaced by a directory of its name), its entry
  // dropped: the datastore did not delete it, and taken for a deletion on
  // both sides, the object would stand there for good, named by no index,
  // its record forgotten here (chaos seed 194510114). The record is kept,
  // synced at that version, and nothing is marked: the deletion here is a
  // local one as any other, which a push of everything pending never
  // publishes (a wiped or partly restored cache never empties the bucket);
  // a push of its name deletes the object, a marked one the next push. A
  // peer that still holds the file names it again meanwhile.
  // Deleted here, the store holding the path at another version (written
  // since the index this pull read, by a peer or an older client, or an
  // upload whose commit has not come): the pull cannot tell whether the
  // deletion here came before that write or after it. Taken for a deletion
  // on both sides, its record forgotten, the next pull would fetch that
  // write as a new file over the deletion here (chaos seed 222950135). The
  // record is kept, as where the index named the write already: its commit
  // meets the deletion here as a conflict; once the object is gone, they
  // agree.
  const restore: string[] = [];
  for (const path of bothGone) {
    if (!held.has(path)) {
      if (writtenSince.has(path)) continue;
      state.setSynced(path, undefined);
      agreed.push(path);
    } else if (r.marked(path)) {
      continue;
    } else if (deps.restoreDeleted && !cache.exists(path)) {
      restore.push(path);
    } else {
      result.droppedHere?.push(path);
    }
  }
  // Files the datastore lost (their objects deleted outside Sluice, their
  // entries then removed as dangling): this copy may be the last one.
  const lost = gone.some((p) => !held.has(p))
    ? await keeping(readVanished(deps.store, config.retry, signal))
    : new Map();
  // This cache's writer id (null in a copy of a cache, whose own writes are the original's).
  let writer: Promise<string | null> | undefined;
  for (const path of gone) {
    if (held.has(path)) {
      result.dropped.push(path);
      continue;
    }
    // A data version this cache's push created: its copy here may be the
    // only one left (an older client's push can delete versions it never
    // had, walking its own stale directory), and were it removed, the next
    // run here would number a version of that number again. Kept in place,
    // a conflict with the deletion.
    const own = state.synced(path)?.own;
    if (
      own !== undefined && own === await (writer ??= readWriterId(cache)) &&
      classifyPath(path, config.classifierRules) === "data-version"
    ) {
      const local = await r.localCopy(path).catch(() => null);
      if (local) {
        // Told as lost where the record of lost files names it (kept all the same).
        const gone = lost !== null && lost.has(path);
        r.conflict(
          path,
          { location: path, ...local },
          gone ? OWN_VERSION_LOST_REASON : OWN_VERSION_DELETED_REASON,
        );
        (gone ? result.lost : result.ownKept)?.push(path);
        continue;
      }
    }
    // A record that cannot be read cannot tell a peer's deletion from a loss: kept.
    if (lost === null || lost.has(path)) {
      const local = await r.localCopy(path).catch(() => null);
      if (local) {
        r.conflict(
          path,
          { location: path, ...local },
          lost ? LOST_REASON : UNREADABLE_RECORD_REASON,
        );
        (lost ? result.lost : result.undecided)?.push(path);
        continue;
      }
    }
    try {
      await cache.removeFile(path, seenAt.get(path));
    } catch (err) {
      if (!(err instanceof LocalChangedError)) throw err;
      // Edited (or deleted) here while the pull looked at the datastore: kept.
      const local = await r.localCopy(path).catch(() => null);
      if (!local && !cache.exists(path) && writtenSince.has(path)) {
        // Deleted here after this pull read the index, while the store holds
        // the path written again since (committed, maybe, after that read):
        // taken for a deletion on both sides, its record forgotten, the next
        // pull would fetch that write as a new file over the deletion here.
        // The record is kept: the next pull meets the write's commit, a
        // conflict with the deletion here (as above, for one deleted here
        // before the look).
        continue;
      } else if (!local && !cache.exists(path)) {
        state.setSynced(path, undefined);
        agreed.push(path);
      } else {
        r.conflict(
          path,
          local ? { location: path, ...local } : null,
          "changed here while the pull removed it, deleted on the datastore",
        );
      }
      continue;
    }
    state.setSynced(path, undefined);
    result.removed.push(path);
  }
  return restore;
}
