/**
 * A copy a pull set aside in a conflict that no record names (its pull
 * stopped before it saved the record): the record it names again, read from
 * its `REASON.json` (see `ConflictSet`).
 *
 * @module
 */
import { statePath } from "../transfer/cache.ts";
import { setAsideLocation, type StoredSetAsideReason } from "../transfer/cache_state.ts";
import { isSafeRelPath } from "../paths.ts";
import type { ConflictRecord, LocalSide } from "./conflicts.ts";

/**
 * The record a pull's copy in set-aside directory `dir` names, from its
 * reason `why` (its `REASON.json`, as `readSetAsideReason` reads it), when
 * the copy is there, a pull set it aside in a conflict (the file records
 * it), and no resolution released it.
 */
export async function strayCopy(
  stateDir: string,
  dir: string,
  why: StoredSetAsideReason | undefined,
): Promise<{ rec: ConflictRecord; side: LocalSide } | undefined> {
  // deno-lint-ignore no-explicit-any
  const c: any = why?.conflict;
  // Any copy a pull set aside in a conflict (a local copy never synced, a
  // data version published again with other bytes): its REASON.json records
  // the conflict, which no other set-aside does.
  if (why?.reason === undefined || why.released === true || !c) return undefined;
  const path = why.path;
  const t = c.theirs;
  // Theirs is a version, or null: a deletion (a `--theirs` of one stopped on its way).
  if (
    typeof path !== "string" || !isSafeRelPath(path) || typeof c.mine?.hash !== "string" ||
    typeof c.mine.size !== "number" ||
    (t !== null &&
      (typeof t?.version !== "string" || typeof t.hash !== "string" || typeof t.size !== "number"))
  ) return undefined;
  const location = setAsideLocation(dir, path);
  try {
    await Deno.lstat(statePath(stateDir, location));
  } catch {
    return undefined; // moved back, or its pull stopped before moving it
  }
  const side = { location, hash: c.mine.hash, size: c.mine.size };
  return {
    side,
    rec: {
      path,
      mine: side,
      theirs: t === null ? null : { version: t.version, hash: t.hash, size: t.size },
      foundBy: "pull",
      at: why.at ?? 0,
      reason: `${
        typeof c.reason === "string" ? c.reason : "a local copy differed from the datastore's"
      } (named again from the copy's REASON.json: the command that set it aside, a pull or a resolution, stopped before recording it)`,
    },
  };
}
