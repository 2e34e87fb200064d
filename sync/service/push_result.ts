/**
 * What a push did ({@link PushResult}), what it left behind, and what it
 * gathers for its commit while it runs ({@link PushTally}).
 *
 * @module
 */
import { listPaths } from "../left_behind.ts";
import type { LeftBehind } from "../left_behind.ts";
import type { PlanEntry } from "../context.ts";
import type { ConflictRecord } from "./conflicts.ts";

/** What a push did. */
export interface PushResult {
  /** Paths written to the store. */
  readonly uploaded: string[];
  /** Paths whose remote already held identical bytes. */
  readonly identical: string[];
  /** Paths deleted remotely. */
  readonly deleted: string[];
  /**
   * Paths left out, with the reason (kept dirty when `keepDirty`;
   * `unpublished` when the local copy differs from the datastore's and stays
   * unpublished though its dirty mark was cleared).
   */
  readonly skipped: { path: string; reason: string; keepDirty: boolean; unpublished?: true }[];
  /**
   * Paths with an unresolved conflict: found by this push (the datastore
   * holds another version than the one this copy is based on), or found
   * earlier and not yet resolved. Also listed in `skipped`; nothing of them
   * was written, and the local copies are kept.
   */
  readonly conflicts: string[];
  /**
   * Files this cache synced that are gone from it and that this push did not
   * delete remotely: a push that walks the cache (after a bulk `markDirty()`)
   * never deletes, so that a wiped or partly restored cache never empties the
   * bucket. Marking such a path dirty and pushing deletes it remotely; a pull
   * with `restoreDeleted` takes the datastore's copy back.
   */
  readonly localDeletions: string[];
  /**
   * Files in the cache that no push can publish, with why: a symbolic link
   * (or a file under one) met by a walk, or a name no store key may carry.
   * Nothing of them was written; they stay local only until the link is
   * replaced by a real file or the file renamed. A path named dirty that is
   * a link is in `skipped` (kept dirty) instead.
   */
  readonly localOnly: { path: string; reason: string }[];
  /**
   * Paths whose write or deletion another client replaced or deleted before
   * this push committed it (an old client, which writes without a
   * compare-and-swap): not published, and not in `uploaded` or `deleted`.
   * Also listed in `skipped`, kept dirty at the version synced before: the
   * next push meets their change as a conflict, and both copies are kept.
   */
  readonly overwritten: string[];
  /**
   * Paths where an earlier push was about to write and no commit of it
   * followed (it stopped, or the file was set aside), with no file here to
   * push now, whose check this push made (see `PlanEntry.strandedCheck`):
   * `withdrawn` when an upload of this cache's was left there and this push
   * deleted it, `published` when that upload was an earlier push's write of
   * a synced path and this push named it in the index, `none` when the
   * datastore held nothing of this cache's there.
   */
  readonly strandedChecks: { path: string; outcome: "withdrawn" | "published" | "none" }[];
  /** Bytes uploaded. */
  bytes: number;
}

/** An empty result. */
export function emptyPushResult(): PushResult {
  return {
    uploaded: [],
    identical: [],
    deleted: [],
    skipped: [],
    conflicts: [],
    localDeletions: [],
    localOnly: [],
    overwritten: [],
    strandedChecks: [],
    bytes: 0,
  };
}

/**
 * What a push left behind: its conflicts, and the files it left out and kept
 * dirty for a later push. Empty for a clean push (the command line then
 * exits 0; see `leftBehindError` in `errors.ts`).
 */
export function pushLeftBehind(r: PushResult): LeftBehind {
  const conflicts = new Set(r.conflicts);
  return {
    conflicts: r.conflicts,
    left: r.skipped.filter((s) => (s.keepDirty || s.unpublished) && !conflicts.has(s.path)).map((
      s,
    ) => ({
      path: s.path,
      reason: s.reason,
    })),
    localDeletions: r.localDeletions,
    localOnly: r.localOnly,
  };
}

/**
 * What a push gathers while it writes and deletes, for its result and its
 * commit: the failures, the index change, the manifest entries, the dirty
 * marks it handled and the stranded writes it checked.
 */
export interface PushTally {
  readonly result: PushResult;
  readonly failures: { entry: PlanEntry; error: unknown }[];
  readonly indexRemove: string[];
  /** Removals whose delete found the object gone (see `IndexChange.foundGone`). */
  readonly indexFoundGone: string[];
  /** The version each write or delete was conditional on (null: created). */
  readonly indexBase: Record<string, string | null>;
  /** The hash of the copy each deletion was based on (see `IndexChange.baseHash`). */
  readonly indexBaseHash: Record<string, string>;
  /** The size of the copy each deletion was based on (see `IndexChange.baseSize`). */
  readonly indexBaseSize: Record<string, number>;
  /** What the manifest records for each path, once the index names it. */
  readonly indexSynced: Record<
    string,
    { hash: string; version: string; size: number; mtimeMs?: number; ctimeMs?: number }
  >;
  readonly handled: string[];
  /** Paths whose possible stranded write was checked (see `PlanEntry.strandedCheck`). */
  readonly settled: Set<string>;
  /** Records a conflict found by the push (the entry is skipped and stays dirty). */
  conflictOf(
    entry: PlanEntry,
    mine: ConflictRecord["mine"],
    theirs: ConflictRecord["theirs"],
  ): void;
  /** One more file done (progress); `failed` when its write or deletion failed. */
  done(failed?: boolean): void;
}

/**
 * The result of a two-phase push: what its preparation did, then its commit
 * (`done`). A write of the preparation that another writer overwrote before
 * the commit (`done.overwritten`) was not published: it leaves `uploaded`,
 * `identical` and `deleted`. The commit runs no walk, so what the
 * preparation's walk found stands.
 */
export function mergeCommitResult(r: PushResult, done: PushResult): PushResult {
  // What the commit left unpublished (overwritten, or gone before it) is not what the preparation wrote.
  const over = new Set([
    ...done.overwritten,
    ...done.skipped.filter((s) => s.keepDirty || s.reason === SUPERSEDED_REASON).map((s) => s.path),
  ]);
  const kept = (paths: readonly string[]) => paths.filter((p) => !over.has(p));
  return {
    uploaded: [...kept(r.uploaded), ...done.uploaded],
    identical: [...kept(r.identical), ...done.identical],
    deleted: [...kept(r.deleted), ...done.deleted],
    skipped: [...r.skipped, ...done.skipped],
    conflicts: [...r.conflicts, ...done.conflicts],
    localDeletions: [...r.localDeletions],
    localOnly: [...r.localOnly],
    overwritten: [...done.overwritten],
    strandedChecks: [...r.strandedChecks, ...done.strandedChecks],
    bytes: r.bytes + done.bytes,
  };
}

/** The paths `result` left unpublished because bytes found in place went (see {@link noteUnpublished}). */
export function unpublishedIn(result: PushResult): string[] {
  // A marker held back with files of its data that are now in conflict
  // (their objects gone before the commit) waits for them: the next push.
  const conflicted = (marker: string) => {
    const data = marker.slice(0, marker.lastIndexOf("/") + 1);
    return result.conflicts.some((p) => p.startsWith(data));
  };
  return result.skipped.filter((s) =>
    s.reason === UNPUBLISHED_REASON || (s.reason === HELD_MARKER_REASON && !conflicted(s.path))
  ).map((s) => s.path);
}

/** A push's result with that of a second pass over `again` (paths it left out) merged in. */
export function mergeSecondPass(
  first: PushResult,
  second: PushResult,
  again: readonly string[],
): PushResult {
  const redone = new Set(again);
  return {
    uploaded: [...first.uploaded, ...second.uploaded],
    identical: [...first.identical, ...second.identical],
    deleted: [...first.deleted, ...second.deleted],
    skipped: [...first.skipped.filter((s) => !redone.has(s.path)), ...second.skipped],
    conflicts: [...new Set([...first.conflicts, ...second.conflicts])],
    localDeletions: [...first.localDeletions],
    localOnly: [...first.localOnly],
    overwritten: [...first.overwritten, ...second.overwritten],
    strandedChecks: [...first.strandedChecks, ...second.strandedChecks],
    bytes: first.bytes + second.bytes,
  };
}

/** Why a path is left out while another writer's uncommitted object holds it (its `skipped` reason). */
export const UNCOMMITTED_HOLDS = "another writer's uncommitted write holds it";

/** Why a data version file was left out: another writer's upload of it, not committed. */
export const VERSION_WAITS =
  "another writer's upload of this data version, not committed, is in the way (a run refused for losing its lock, whose erasure deletes it, or a commit on its way): left dirty, the next push publishes it once that upload is gone, or meets it published";

/**
 * How the reason of a `latest` marker left out by `marker-after-version`
 * starts (a write gate: a dry run cannot see it, so the push records it for
 * `status`, see `waiting_record.ts`).
 */
export const MARKER_AHEAD = "a latest marker is never published ahead of its version";

/** What a `latest` marker's {@link VERSION_WAITS} reason adds: it waits with the version it names. */
export const MARKER_WAITS = "(the marker names that version)";

/** Why a path is in `overwritten` (its `skipped` reason). */
export const OVERWRITTEN_REASON =
  "another writer replaced or deleted this push's write (an old client, writing without a compare-and-swap), or committed a deletion of the path, before this push's commit: nothing of it was published, the local copy is kept, and the two are a conflict to resolve";

/**
 * Takes `paths` (see `commitPrepared`) out of what `result` says was
 * written or deleted, lists them as `overwritten`, conflicts and skipped
 * (kept dirty), and returns the warning that names them.
 */
export function noteOverwritten(
  result: PushResult,
  paths: readonly string[],
): { code: string; message: string; path: string } | undefined {
  if (paths.length === 0) return undefined;
  unpublish(result, paths, OVERWRITTEN_REASON);
  result.overwritten.push(...paths);
  result.conflicts.push(...paths);
  const one = paths.length === 1;
  const named = listPaths(paths, 3);
  return {
    code: "overwritten_before_commit",
    message:
      `Another writer replaced or deleted this push's write of ${named}, or committed a deletion of it, before the push committed it (an old swamp client writes without a compare-and-swap; a peer's deletion can land between this push's write and its commit). Nothing of ${
        one ? "it was" : "them was"
      } published, and theirs stands on the datastore; the local ${
        one ? "copy is kept" : "copies are kept"
      }, and each is recorded as a conflict. Run \`sluice status\` to see both versions, then \`sluice resolve ${
        one ? paths[0] : "<path>"
      } --mine\` to publish yours over theirs or \`--theirs\` to take theirs (yours is set aside).`,
    path: paths[0],
  };
}

/** Why a prepared write was left out of its commit (see {@link noteSuperseded}). */
export const SUPERSEDED_REASON =
  "a later push of this cache replaced this write and committed its own newer change before this push's commit: that change is the one published, and this older write was left out (not a conflict); a mark set on the path since stays, for the next push";

/**
 * Moves `paths` (writes a later push of this same cache replaced and
 * committed before this commit: see `commitPrepared`) out of what `result`
 * says was written or deleted, into `skipped` with
 * {@link SUPERSEDED_REASON}: nothing is left behind, the newer change is
 * published, and no warning is due.
 */
export function noteSuperseded(result: PushResult, paths: readonly string[]): void {
  if (paths.length === 0) return;
  const them = new Set(paths);
  for (const list of [result.uploaded, result.identical, result.deleted]) {
    const kept = list.filter((p) => !them.has(p));
    list.splice(0, list.length, ...kept);
  }
  for (const path of paths) {
    result.skipped.push({ path, reason: SUPERSEDED_REASON, keepDirty: false });
  }
}

/** Why a path found in place was not published (see {@link noteUnpublished}). */
export const UNPUBLISHED_REASON =
  "the bytes this push found already in place (another writer's upload, not committed) were deleted before (or just as) this push committed them: nothing of it was published; it stays dirty, and the next push writes it";

/**
 * Moves `paths` (bytes found in place, deleted before the commit: see
 * `apply` in `index_apply.ts`) out of the result's `uploaded` and `identical`
 * into `skipped` (kept dirty); returns the warning to emit, if any.
 */
export function noteUnpublished(
  result: PushResult,
  unpublished: readonly string[],
): { code: string; message: string; path: string } | undefined {
  if (unpublished.length === 0) return undefined;
  // `latest` markers held back with the version files they name (see `apply`).
  const markers = unpublished.filter((p) => p.endsWith("/latest"));
  const paths = unpublished.filter((p) => !p.endsWith("/latest"));
  unpublish(result, paths, UNPUBLISHED_REASON);
  unpublish(result, markers, HELD_MARKER_REASON);
  const held = markers.length === 0
    ? ""
    : ` ${listPaths(markers, 3)}, naming that version, ${
      markers.length === 1 ? "was" : "were"
    } held back with them, so that no reader is pointed at files the index does not list.`;
  if (paths.length === 0) {
    // Markers alone: the version files they name were held back by another
    // rule (replaced before this push's commit, say), not found gone here.
    return {
      code: "unpublished_before_commit",
      message: `${listPaths(markers, 3)} ${markers.length === 1 ? "was" : "were"} not published: ${
        markers.length === 1 ? "it names" : "they name"
      } a data version whose files this push did not publish, so that no reader is pointed at files the index does not list. The local ${
        markers.length === 1 ? "copy stays" : "copies stay"
      } dirty; the push's other warnings say why those files were not published.`,
      path: markers[0],
    };
  }
  return {
    code: "unpublished_before_commit",
    message: `${listPaths(paths, 3)} ${
      paths.length === 1 ? "was" : "were"
    } not published: this push found the same bytes already in place (another writer's upload, not committed), and they were deleted before (or just as) this push committed them (that writer's run was refused, say).${held} The local ${
      unpublished.length === 1 ? "copy stays" : "copies stay"
    } dirty; run \`sluice push\` again to write ${unpublished.length === 1 ? "it" : "them"}.`,
    path: paths[0] ?? unpublished[0],
  };
}

/** Why a `latest` marker was not published (see {@link noteUnpublished}). */
export const HELD_MARKER_REASON =
  "held back with the data version it names, whose files this push found in place were deleted before its commit: it stays dirty, and the next push writes it with them";

/** Takes `paths` out of what `result` says was written or deleted, into `skipped` (kept dirty) with `reason`. */
/**
 * Records paths the commit left out beside the other shape of their name on
 * the datastore (`clashing`: path → a path of that shape): not published,
 * kept dirty, each with the way on; returns the warning (`path_blocked`).
 */
export function noteClashing(
  result: PushResult,
  clashing: ReadonlyMap<string, string>,
): { code: string; message: string; path: string } | undefined {
  if (clashing.size === 0) return undefined;
  const paths = [...clashing.keys()].sort();
  for (const p of paths) {
    unpublish(result, [p], clashReason(p, clashing.get(p)!));
  }
  const [first] = paths;
  return {
    code: "path_blocked",
    message: `Did not publish ${listPaths(paths, 3)}: ${clashReason(first, clashing.get(first)!)}.`,
    path: first,
  };
}

/** Why a path the commit left out beside the other shape of its name stays here. */
function clashReason(path: string, other: string): string {
  const under = other.startsWith(`${path}/`);
  const above = path.startsWith(`${other}/`);
  return `the datastore holds ${
    under
      ? `files under a directory ${path} (${other} among them)`
      : above
      ? `a file ${other} above it`
      : `a file ${other} where the files of the version this marker names go`
  }, published by another writer since this cache last pulled; publishing ${path} would leave a file and files under a directory of one name, which no cache can pull whole. Nothing of it was named in the index, and it stays marked. Run \`sluice pull\` to see theirs (it is left out here while your ${
    under ? "file" : "directory"
  } is in its way), then move yours to another name and push that, or have theirs deleted on the datastore first`;
}

function unpublish(result: PushResult, paths: readonly string[], reason: string): void {
  const them = new Set(paths);
  for (const list of [result.uploaded, result.identical, result.deleted]) {
    const kept = list.filter((p) => !them.has(p));
    list.splice(0, list.length, ...kept);
  }
  for (const path of paths) result.skipped.push({ path, reason, keepDirty: true });
}
