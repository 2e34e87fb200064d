/**
 * How a pull records a conflict it finds: in the pull's list of conflicts
 * found, with the version this cache synced and the one the datastore holds,
 * told once per version of theirs (`pull_conflict`), not at every pull.
 *
 * @module
 */
import { shownStatePath } from "../transfer/cache.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import type { ConflictRecord } from "./conflicts.ts";
import type { HeldConflict } from "./pull_aside.ts";
import { pullConflictWarning } from "./pull_warnings.ts";
import type { PullDeps } from "./pull.ts";

/** Records a conflict in `found`, and tells of it now, or (`later`) by the `tell` returned. */
export type RecordConflict = (
  path: string,
  mine: ConflictRecord["mine"],
  theirs: IndexEntry | null,
  reason: string,
  later?: boolean,
) => HeldConflict;

/**
 * The {@link RecordConflict} of a pull: each conflict is told of once per
 * version of theirs (`pull_conflict`), not at every pull.
 */
export function conflictRecorder(deps: PullDeps, found: ConflictRecord[]): RecordConflict {
  const { cache, state, events } = deps;
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
        mine === null && cache.holdsDirectory(path),
      ),
    );
  return (path, mine, theirs, reason, later = false) => {
    // A record that names your copy set aside (a resolution that moved it
    // there and stopped before its synced version was forgotten), the path
    // empty here: still that copy, never a deletion made here.
    const before = state.conflicts.get(path)?.mine;
    if (mine === null && before && before.location !== path && !deps.cache.exists(path)) {
      mine = before;
    }
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
    const told = known && known.theirs?.version === rec.theirs?.version;
    const tell = (taken: boolean) => {
      if (!told) warnConflict(path, mine, theirs, taken, reason);
    };
    if (!later) tell(true);
    return { rec, tell };
  };
}
