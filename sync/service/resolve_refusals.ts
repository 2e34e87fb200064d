/**
 * The refusals of a resolution (see `resolve.ts`): each made before
 * anything changes, so that the conflict stays open as it was, with what to
 * run instead.
 *
 * @module
 */
import { type ConflictRecord, describeVersion, type Resolution } from "./conflicts.ts";
import { SluiceError, UnreadablePathError, UnsafePathError } from "../errors.ts";
import type { SyncState } from "./state.ts";
import { shellWord } from "../shell_word.ts";
import type { ResolveDeps } from "./resolve.ts";

/**
 * A resolution refused before anything was changed (no conflict there, no
 * merge to publish, a copy of yours gone, a file no push can publish): the
 * conflict stays open as it was. Its `code` says which.
 */
export class ResolveRefusedError extends SluiceError {}

/** No unresolved conflict for the path. */

export function noConflict(path: string): ResolveRefusedError {
  return new ResolveRefusedError(
    "not_found",
    `There is no unresolved conflict for ${path}; nothing was changed. Run \`sluice status\` to list the conflicts.`,
  );
}

/** `merged` with nothing at the path: no merge to publish (a deletion is `mine`'s to publish). */

export function noMerge(rec: ConflictRecord): ResolveRefusedError {
  const theirs = rec.theirs
    ? `theirs (${describeVersion(rec.theirs.version)})`
    : "the datastore's side";
  // Your copy as the conflict recorded it is at the path itself, gone with
  // the file (--mine would be refused too), or set aside, where it still is.
  const other = rec.mine === null
    ? `to delete it on the datastore, run \`sluice resolve ${shellWord(rec.path)} --mine\``
    : rec.mine.location === rec.path
    ? `your copy as the conflict found it was that file, so put it back there to publish it with \`sluice resolve ${
      shellWord(rec.path)
    } --mine\``
    : `to publish your copy as it was (kept in ${rec.mine.location}), run \`sluice resolve ${
      shellWord(rec.path)
    } --mine\``;
  return new ResolveRefusedError(
    "not_found",
    `There is no file at ${rec.path} to publish as your merge; nothing was changed: the conflict stays open and ${theirs} stays on the datastore. Put the merged copy at ${rec.path} and run \`sluice resolve ${
      shellWord(rec.path)
    } --merged\` again; ${other}, or take theirs with \`sluice resolve ${
      shellWord(rec.path)
    } --theirs\`.`,
  );
}

/**
 * `mine` where the conflict recorded a file of yours at the path and
 * nothing is there now: deleted by hand since. Pushed, the deletion would
 * delete theirs on the datastore, a change nobody chose to publish.
 */
export function mineGone(rec: ConflictRecord, ownUpload?: string): ResolveRefusedError {
  const theirs = rec.theirs
    ? `theirs (${describeVersion(rec.theirs.version)})`
    : "the datastore's side";
  if (ownUpload !== undefined && rec.theirs === null) {
    // Theirs is a deletion, which still stands: the upload replaced nothing.
    const p = shellWord(rec.path);
    return new ResolveRefusedError(
      "not_found",
      `Your copy of ${rec.path} is gone from the cache; the datastore holds this cache's own upload of it (version ${ownUpload}), from a resolution of this conflict cut off before its commit, which no index names: theirs, a deletion, still stands. Nothing was changed: the conflict stays open. Put your copy back at ${rec.path} and run \`sluice resolve ${p} --mine\` again, or run \`sluice resolve ${p} --theirs\` to take the deletion: that upload is then taken off the datastore and its bytes kept in the set-aside area (the result names where).`,
    );
  }
  if (ownUpload !== undefined) {
    return new ResolveRefusedError(
      "not_found",
      `Your copy of ${rec.path} is gone from the cache, and ${theirs} is no longer on the datastore either: a resolution of this conflict, cut off before its commit, wrote this cache's copy over it (version ${ownUpload}, not named by the index yet). Nothing was changed: the conflict stays open. Run \`sluice resolve ${
        shellWord(rec.path)
      } --theirs\` to take what the datastore holds (that copy) and finish publishing it, or put your copy back at ${rec.path} and run \`sluice resolve ${
        shellWord(rec.path)
      } --mine\` again.`,
    );
  }
  return new ResolveRefusedError(
    "not_found",
    `Your copy of ${rec.path} (the file the conflict recorded) is gone from the cache, so there is no copy of yours to publish: --mine would delete ${theirs} on the datastore instead. Nothing was changed: the conflict stays open and ${theirs} stays on the datastore. Put your copy back at ${rec.path} and run \`sluice resolve ${
      shellWord(rec.path)
    } --mine\` again, or take theirs with \`sluice resolve ${
      shellWord(rec.path)
    } --theirs\` (then delete it and run \`sluice push ${
      shellWord(rec.path)
    }\` to delete it there).`,
  );
}

/**
 * Refuses `mine` of a record naming your copy in place while the path holds
 * other bytes that are exactly the copy this cache synced there, with no
 * mark of a change since: the datastore's copy a pull took (your copy moved
 * aside on the way, a record left naming the path). Published, it would
 * publish theirs as yours, answer resolved and release your copy; an edit
 * made here since (marked, or differing from the synced copy) is yours,
 * published as it is.
 */
export async function refuseSyncedInPlace(deps: ResolveDeps, rec: ConflictRecord): Promise<void> {
  const mine = rec.mine;
  if (!mine || mine.location !== rec.path) return;
  const here = await deps.cache.hashFile(rec.path).catch(() => null);
  const synced = deps.state.synced(rec.path);
  if (
    !here || here.hash === mine.hash || !synced || synced.hash !== here.hash ||
    deps.state.dirtyPaths().includes(rec.path)
  ) return;
  const p = shellWord(rec.path);
  throw new ResolveRefusedError(
    "not_found",
    `${rec.path} holds the copy this cache synced there (${
      describeVersion(synced.version)
    }), not your copy as the conflict recorded it, so there is no copy of yours at the path to publish. Nothing was changed: the conflict stays open. Run \`sluice status\` to see where your copy is (the set-aside area), put it back at ${rec.path} and run \`sluice resolve ${p} --mine\` again, or publish what is there now with \`sluice resolve ${p} --merged\`, or take theirs with \`sluice resolve ${p} --theirs\`.`,
  );
}

/**
 * `mine` whose side here is a deletion of a data version file while the
 * `latest` marker here (`marker`) names its version (`n`): a data version
 * is never deleted from the datastore while its marker names it, so the
 * push would hold the deletion back, the conflict gone and nothing
 * published, with no `--theirs` left to take. Refused first instead.
 */
export function deletionUnderMarker(
  rec: ConflictRecord,
  marker: string,
  n: string,
): ResolveRefusedError {
  const p = shellWord(rec.path);
  const theirs = rec.theirs
    ? `theirs (${describeVersion(rec.theirs.version)})`
    : "the datastore's side";
  return new ResolveRefusedError(
    "version_under_marker",
    `resolve --mine of ${rec.path} would publish your deletion of it, but the \`latest\` marker here (${marker}) names its version (${n}), and a data version is never deleted from the datastore while its marker names it: the push would leave the deletion out. Nothing was changed: the conflict stays open and ${theirs} stays on the datastore. To delete it there, set ${marker} to another version here and push it (\`sluice push ${
      shellWord(marker)
    }\`), then run \`sluice resolve ${p} --mine\` again; to keep theirs, run \`sluice resolve ${p} --theirs\` (it is fetched back here).`,
  );
}

/**
 * `mine` whose side here is a deletion of a data version file whose version
 * (`n`) the datastore's committed `latest` marker (`marker`) names, while
 * the marker here names another (`here`) that the resolution's push cannot
 * publish in its place (see `resolve_marker_hold.ts`): the push would hold
 * the deletion back, the conflict gone and nothing published, with no
 * `--theirs` left to take. Refused first instead.
 */
export function deletionUnderCommittedMarker(
  rec: ConflictRecord,
  marker: string,
  n: string,
  here: string,
  open = false,
): ResolveRefusedError {
  const p = shellWord(rec.path);
  const m = shellWord(marker);
  const theirs = rec.theirs
    ? `theirs (${describeVersion(rec.theirs.version)})`
    : "the datastore's side";
  const names = /^[0-9]+$/.test(here) ? `names ${here}` : "names no version";
  return new ResolveRefusedError(
    "version_under_marker",
    `resolve --mine of ${rec.path} would publish your deletion of it, but the datastore's \`latest\` marker (${marker}) names its version (${n}), and the marker here (it ${names}) would not be published in its place by the resolution's push (a marker is published only changed here and naming a version whose files are published${
      open
        ? `; ${marker} is itself in conflict, which every push leaves out until \`sluice resolve ${m}\` settles it`
        : ""
    }); a data version is never deleted from the datastore while its marker names it: the push would leave the deletion out. Nothing was changed: the conflict stays open and ${theirs} stays on the datastore. To delete it there, set ${marker} here to a version whose files are published (push that version first where they are not), then run \`sluice resolve ${p} --mine\` again: its push publishes the marker with the deletion; to keep theirs, run \`sluice resolve ${p} --theirs\` (it is fetched back here).`,
  );
}

/**
 * Refuses `mine` and `merged` of a data version another writer published
 * again with other bytes (`version_rewritten`): a data version is never
 * written over, so only `theirs` settles it; the copy set aside stays.
 */
export function rewrittenVersion(rec: ConflictRecord, resolution: string): ResolveRefusedError {
  return new ResolveRefusedError(
    "version_exists",
    `${rec.path} is a data version another writer published again with other bytes: a data version is never written over, so --${resolution} cannot publish yours over theirs; nothing was changed. Run \`sluice resolve ${
      shellWord(rec.path)
    } --theirs\` to settle it (your copy stays in the set-aside area, which \`sluice status\` lists, until you delete it); to publish your bytes, run the method or workflow again, which writes a new version.`,
  );
}

/**
 * Refuses `merged` while the file still holds exactly the copy of mine the
 * conflict recorded, and theirs differs (or is a deletion): nothing was
 * merged, and publishing it would drop their change without a word (`mine`
 * says so outright). So too while it holds exactly theirs and mine is a copy
 * set aside that differs and that this process did not know of when the
 * resolution was asked for (`knownAside`): another process over the cache
 * set it aside since, in a conflict of its own (its pull planned before this
 * one recorded the conflict), and it may be the very merge the user wrote
 * there; the resolution would release it with no word of it.
 */
export async function refuseUnmerged(deps: ResolveDeps, rec: ConflictRecord): Promise<void> {
  if (!rec.mine || rec.theirs?.hash === rec.mine.hash) return;
  const here = await deps.cache.hashFile(rec.path).catch(() => null);
  if (
    rec.theirs && rec.mine.location !== rec.path && here?.hash === rec.theirs.hash &&
    deps.knownAside !== undefined && !deps.knownAside.has(rec.mine.location)
  ) {
    throw new ResolveRefusedError(
      "not_merged",
      `${rec.path} holds exactly theirs (${
        describeVersion(rec.theirs.version)
      }), while another process over this cache set your copy there aside since (at ${rec.mine.location}): it may be the merge you wrote, and publishing theirs as your merge would leave it behind without a word. Nothing was changed: the conflict stays open. To publish your set-aside copy, run \`sluice resolve ${
        shellWord(rec.path)
      } --mine\`; to take theirs (your copy stays in the set-aside area), \`sluice resolve ${
        shellWord(rec.path)
      } --theirs\`; to merge, edit ${rec.path} into the merge and run this again.`,
    );
  }
  if (here?.hash !== rec.mine.hash) return;
  if (!rec.theirs) {
    // Theirs a deletion: the copy as it was merges nothing of it either.
    throw new ResolveRefusedError(
      "not_merged",
      `${rec.path} holds the same bytes as your copy when the conflict was found, and the datastore's side is a deletion: publishing it as your merge would undo their deletion without a word. Nothing was changed: the conflict stays open. To keep your copy (undoing their deletion), run \`sluice resolve ${
        shellWord(rec.path)
      } --mine\`; to take their deletion, \`sluice resolve ${
        shellWord(rec.path)
      } --theirs\` (your copy is set aside in the cache's set-aside area, which \`sluice status\` lists, never deleted).`,
    );
  }
  const theirs = `theirs (${describeVersion(rec.theirs.version)})`;
  throw new ResolveRefusedError(
    "not_merged",
    `${rec.path} holds the same bytes as your copy when the conflict was found, so it merges nothing of ${theirs}: publishing it as your merge would drop their change. Nothing was changed: the conflict stays open and ${theirs} stays on the datastore. To merge, edit your copy into the merge (\`sluice theirs ${
      shellWord(rec.path)
    }\` prints theirs) and run this again, or take theirs (\`sluice resolve ${
      shellWord(rec.path)
    } --theirs\`: your copy is set aside in the cache's set-aside area, which \`sluice status\` lists, never deleted), bring your changes into it, and push; to publish your copy over theirs as it is (as when it is already your merge of the newer copy \`sluice theirs ${
      shellWord(rec.path)
    }\` showed, which an earlier --merged met as this conflict), run \`sluice resolve ${
      shellWord(rec.path)
    } --mine\`.`,
  );
}

/**
 * Refuses, before anything changes, a copy here that no push can publish: a
 * symbolic link (or a path under one), a directory, or a file this process
 * may not read. Re-based on theirs and cleared, such a conflict would leave
 * the push skipping the path, and a later push, once it is a file, writing
 * over theirs with no conflict to show for it.
 */
export async function assertPublishable(
  deps: ResolveDeps,
  path: string,
  resolution: Resolution,
): Promise<void> {
  let why: string | undefined;
  try {
    if (await deps.cache.hashFile(path) === null && deps.cache.exists(path)) {
      why = "it is not a regular file (a directory, or another kind of file)";
    }
  } catch (e) {
    if (e instanceof UnsafePathError) why = "it is a symbolic link, or lies under one";
    else if (e instanceof UnreadablePathError) why = "this process may not read it";
    else throw e;
  }
  if (!why) return;
  throw new ResolveRefusedError(
    "unsafe_path",
    `${path} cannot be resolved with --${resolution}: ${why}, so no push can publish it. Nothing was changed: the conflict stays open and theirs stays on the datastore. Replace it with a regular, readable file and run \`sluice resolve ${
      shellWord(path)
    } --${resolution}\` again, or take theirs with \`sluice resolve ${
      shellWord(path)
    } --theirs\` (what is here is set aside).`,
  );
}

/**
 * Refuses to publish `path` beside a path of the other shape the last pull
 * could not place here because this copy is in its way (the push would hold
 * it back: see `blocked_record.ts`), before anything is changed.
 */
export function refuseShapeClash(
  state: SyncState,
  path: string,
  resolution: Resolution,
  synced: (path: string) => boolean,
): void {
  const other = state.blocked.clashOf(path, synced);
  if (other === undefined) return;
  throw shapeClash(
    path,
    resolution,
    other,
    "which the last pull could not place here because your copy is in the way",
  );
}

/** The refusal of a resolution whose publish would meet `other`, the other shape of `path`'s name. */

export function shapeClash(
  path: string,
  resolution: Resolution,
  other: string,
  how: string,
): ResolveRefusedError {
  const word = shellWord(path);
  const shape = other.startsWith(`${path}/`)
    ? `files under a directory of that name (${other} among them)`
    : `a file ${other} where your copy lies under a directory of that name`;
  return new ResolveRefusedError(
    "unsafe_path",
    `${path} cannot be resolved with --${resolution}: the datastore now holds ${shape}, ${how}, and publishing your copy would leave the datastore holding a file and files under a directory of one name, which no cache can pull whole. Nothing was changed: the conflict stays open and theirs stays on the datastore. Take theirs with \`sluice resolve ${word} --theirs\` (your copy is set aside, never deleted), then put your changes under another name and push them; if those files were deleted meanwhile, run \`sluice pull\` and then this again.`,
  );
}
