/**
 * The warnings a pull emits about what it did not take: a conflict, a path
 * something in the cache is in the way of, an object another writer has not
 * committed.
 *
 * @module
 */
import { shellWord } from "../shell_word.ts";
import { classifyPath } from "../path_class.ts";
import type { PathClass } from "../context.ts";
import type { WarningEvent } from "../events.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import {
  type ConflictRecord,
  describeVersion,
  mergedAfterDeletion,
  resolveHint,
} from "./conflicts.ts";
import { LOST_REASON, UNREADABLE_RECORD_REASON, VANISHED_KEY } from "./vanished_record.ts";
import { OWN_VERSION_DELETED_REASON, OWN_VERSION_LOST_REASON } from "./pull_removals.ts";

/**
 * `pull_conflict`: `path` changed (or was deleted) on the datastore and here
 * (`taken`: theirs was written); `reason` {@link LOST_REASON}: the datastore
 * lost it, and this cache holds the copy it synced;
 * {@link UNREADABLE_RECORD_REASON}: its entry was removed while the record
 * of lost files could not be read. `dirHere`: no file is here because a
 * directory of its name replaced it (said so, not called a deletion).
 */
export function pullConflictWarning(
  path: string,
  mine: ConflictRecord["mine"],
  theirs: IndexEntry | null,
  taken: boolean,
  reason?: string,
  shown: (location: string) => string = (l) => l,
  dirHere = false,
): WarningEvent {
  const what = reason === LOST_REASON
    ? `is gone from the datastore (its object deleted outside Sluice, or by a peer's deletion that crossed this cache's commit of it, and its index entry then removed as naming nothing), and this cache holds the copy it synced, which may be the last one`
    : reason === OWN_VERSION_LOST_REASON
    ? `is gone from the datastore (its object deleted outside Sluice, or by a peer's deletion that crossed this cache's commit of it, and its index entry then removed as naming nothing), and it is a data version this cache published: the copy here may be the last one, and kept, the next run here numbers above it`
    : reason === OWN_VERSION_DELETED_REASON
    ? `was deleted on the datastore (by another client: a deliberate deletion, or an older client's push deleting a version it never had), and it is a data version this cache published: the copy here may be the last one, and kept, the next run here numbers above it`
    : reason === UNREADABLE_RECORD_REASON
    ? `was removed from the datastore's index with its object, but the record of files the datastore lost (${VANISHED_KEY}) cannot be read, so this pull cannot tell a peer's deletion from a loss, and this cache holds the copy it synced, which may be the last one`
    : `${
      theirs
        ? `changed on the datastore (${describeVersion(theirs.v)})`
        : "was deleted on the datastore"
    } and ${
      // A copy set aside (one this cache never synced, say): the record's reason says why.
      mine && mine.location !== path && reason
        ? `differs here: ${reason}`
        : `is also ${mine ? "changed" : dirHere ? "replaced by a directory" : "deleted"} here`}`;
  return {
    code: "pull_conflict",
    message: `${path} ${what}; ${
      !mine
        ? dirHere
          ? "the directory here stands, and the datastore's copy was not written here"
          : "its deletion here stands, and the datastore's copy was not written here"
        : mine.location === path
        ? "the local copy was kept as it is and not overwritten"
        : taken
        ? `the local copy was set aside in ${shown(mine.location)} and the datastore's copy taken`
        : `the local copy was set aside in ${
          shown(mine.location)
        }, and the datastore's copy was not written there`
    }. Run \`sluice status\` to see both versions, then \`${resolveHint(path)}\`${
      // A deletion here: --merged has no file to publish until one is written.
      !mine && !dirHere ? ` (${mergedAfterDeletion(path)})` : ""}.`,
    path,
  };
}

/**
 * `path_blocked`: a file or directory in the cache is in the way of `path`;
 * `both`: the datastore holds that shape too (a file and files under a
 * directory of one name), else it is this cache's alone.
 */
export function blockedWarning(
  path: string,
  err: Error,
  both: boolean,
  inWay?: string,
): WarningEvent {
  const what = inWay === undefined ? "" : ` In the way here: ${inWay}.`;
  return {
    code: "path_blocked",
    message: both
      ? `${err.message}${what} The datastore holds both a file and files under a directory of the same name, and a cache holds only one; the rest of the pull went on. Move what is in the way (or remove one of the two from the datastore: \`sluice push <path>\` of its deletion from a cache that has it), then pull again.`
      : `${err.message}${what} What is in the way is this cache's own (the datastore does not hold it: made here, or deleted there); the rest of the pull went on. Until a pull finds the way clear, a push holds it back (unless it replaces a file or directory this cache synced, whose deletion the push makes), as publishing it would leave the datastore holding a file and files under a directory of one name, which no cache can pull whole. Move it to another name, then pull again (and push it under its new name).`,
    path,
  };
}

/** `pull_skipped_uncommitted`: the store holds `version` of `path`, its index `listed`. */
export function uncommittedWarning(
  path: string,
  version: string,
  listed: string,
  here = true,
  cls: PathClass = classifyPath(path),
): WarningEvent {
  return {
    code: "pull_skipped_uncommitted",
    message:
      `${path} was skipped: the datastore's object (version ${version}) is not the one its index lists (${listed}): a push has not committed it (another writer's, on its way, or one of this cache's cut off before its commit). ${
        here ? "The cached copy was kept" : "Nothing is at the path in the cache now"
      }; a later pull fetches it once that push completes. ${goneForGood(path, cls)}`,
    path,
  };
}

/**
 * The path a `resolve --theirs` pulls: `version`, the version of theirs its
 * conflict recorded; `copyBack`, whether this cache's copy, set aside for
 * the pull, goes back in place should theirs not be taken.
 */
export interface ResolvingTheirs {
  readonly path: string;
  readonly version: string;
  readonly copyBack: boolean;
}

/**
 * `pull_skipped_uncommitted` of `path` (see {@link uncommittedWarning}),
 * said as {@link uncommittedTheirsWarning} where the pull is that of a
 * `resolve --theirs` of `path` and the store holds theirs as recorded.
 */
export function skippedWarning(
  path: string,
  version: string,
  listed: string,
  here: boolean,
  cls: PathClass,
  theirs?: ResolvingTheirs,
): WarningEvent {
  return theirs?.path === path && theirs.version === version
    ? uncommittedTheirsWarning(path, version, listed, theirs.copyBack ? "back" : here, cls)
    : uncommittedWarning(path, version, listed, here, cls);
}

/**
 * `pull_skipped_uncommitted` of the pull of a `resolve --theirs` whose
 * theirs (`version`, the store's object) is an upload its index (`listed`)
 * does not name: not taken, the copy set aside for it goes back in place
 * (`here` "back"; else whether something is at the path here, left as it
 * is), the conflict stays open, and an adoption of the upload
 * leaves it open over the upload, for the resolution, run again, to take.
 */
export function uncommittedTheirsWarning(
  path: string,
  version: string,
  listed: string,
  here: boolean | "back",
  cls: PathClass = classifyPath(path),
): WarningEvent {
  const again = `\`sluice resolve ${shellWord(path)} --theirs\``;
  return {
    code: "pull_skipped_uncommitted",
    message:
      `${path} was skipped: the datastore's object (version ${version}), theirs of its conflict, is not the one its index lists (${listed}): a push has not committed it (another writer's, on its way, or one cut off before its commit). So \`resolve --theirs\` did not take it: ${
        here === "back"
          ? "your copy, set aside for it, goes back in place"
          : here
          ? "the copy here stays as it is"
          : "nothing is at the path here"
      }, and the conflict stays open. Run ${again} again once that push completes. ${
        theirsGoneForGood(path, cls, again)
      }`,
    path,
  };
}

/** {@link goneForGood} for the pull of a `resolve --theirs` (`again`: the command to run again). */
function theirsGoneForGood(path: string, cls: PathClass, again: string): string {
  if (cls === "data-version" || cls === "managed-lockfile") return goneForGood(path, cls);
  const adopt = `\`sluice pull --adopt-uncommitted ${shellWord(path)}\``;
  return cls === "latest-marker"
    ? `If that writer is gone for good (its push killed, its machine lost), run ${adopt} once the version the marker names is committed (it publishes the marker that writer left; the conflict stays open over it), then ${again} again, which takes it.`
    : `If that writer is gone for good (its push killed, its machine lost), run ${adopt} (it publishes the object that writer left as its change; the conflict stays open over it), then ${again} again, which takes it.`;
}

/** What to do about `path` skipped as uncommitted once its writer is gone for good, by its class. */
function goneForGood(path: string, cls: PathClass): string {
  if (cls === "data-version") {
    return "If that writer is gone for good, the version stays skipped: a data version a run never finished publishing is never published as its writer's (`--adopt-uncommitted` refuses it); it goes once that writer pushes again or its objects are deleted from the datastore, and a run here writes a version of its own meanwhile.";
  }
  if (cls === "managed-lockfile") {
    return "If that writer is gone for good, the managed lockfile is published only by its transaction (`--adopt-uncommitted` does not take it): the next lockfile change of any cache (`sluice lockfile add` or `remove`) reads the datastore's object as it is, with that writer's entries, and names what it publishes.";
  }
  if (cls === "latest-marker") {
    return `If that writer is gone for good (its push killed, its machine lost), \`sluice pull --adopt-uncommitted ${
      shellWord(path)
    }\` publishes the marker it left once the version it names is committed; while that version is not, no push here publishes a marker over it (a newer one waits on it, or meets it as a conflict).`;
  }
  return `If that writer is gone for good (its push killed, its machine lost), \`sluice pull --adopt-uncommitted ${
    shellWord(path)
  }\` publishes the object it left as its change, and takes it.`;
}

/** `pull_skipped_uncommitted` for the `more` files past the ones warned of one by one. */
export function moreUncommittedWarning(more: number): WarningEvent {
  return {
    code: "pull_skipped_uncommitted",
    count: more,
    message:
      `${more} more file(s) were skipped for the same reason: the datastore's object is not the one the index lists, so another writer's push has not committed it (all are listed in the result's \`uncommitted\`). Cached copies of them, where this cache had any, were kept; a later pull fetches them once those pushes complete (\`sluice pull --adopt-uncommitted <path>\`, for a writer gone for good, publishes what it left and takes it).`,
  };
}
