/**
 * Index entries another client dropped: a path this cache synced that the
 * index no longer names, while the store still holds the very version this
 * cache synced. A deletion removes the object before the index entry (Sluice
 * and the existing clients alike; a cache deleting its own write whose
 * commit answer was lost takes the entry out first, and its commit, or its
 * next push, takes out an entry named again so: see `recordOwnNamed` in
 * `push_delete.ts`), so such a path was not deleted: an index
 * rewritten without a compare-and-swap (an old client outside the global
 * lock) dropped it. A pull keeps the file instead of taking it for a remote
 * deletion, and marks it to be published again ({@link keepDropped}); one
 * deleted here, the deletion not marked, keeps its record as a local
 * deletion, which only a push of its name makes on the datastore
 * ({@link warnDroppedHere}); so too one whose entry such a rewrite rolled
 * back to an older version ({@link rolledBackDeletedHere}). One deleted
 * here with the deletion marked is
 * left to the push, which deletes the object; a push that holds that
 * deletion (a data version its `latest` marker names: see
 * `middleware/version_under_marker.ts`) names the version again instead.
 *
 * @module
 */
import { listPaths } from "../left_behind.ts";
import { shellWord } from "../shell_word.ts";
import type { ObjectStore } from "../ports.ts";
import { withRetry } from "../retry.ts";
import type { SyncConfig } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import type { SyncState } from "./state.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";

/** Why a pull left such a path for the next push (its result and its warning say it). */
export const DROPPED_REASON =
  "the datastore's index no longer names it, though the store still holds the version this cache synced (another client rewrote the index without it): it was kept here, and the next push publishes it again";

/**
 * True when the store holds `version` of `path` now (one HEAD, retried as
 * a pull's reads are): the index entry was dropped, not the file deleted.
 */
export async function heldAsSynced(
  deps: HeadDeps,
  path: string,
  version: string,
): Promise<boolean> {
  return await versionHeld(deps, path) === version;
}

/** What {@link versionHeld} needs. */
interface HeadDeps {
  readonly store: ObjectStore;
  readonly config: Pick<SyncConfig, "retry">;
  readonly signal: AbortSignal;
}

/** The version the store holds of `path` now (one HEAD, retried as a pull's reads are); undefined for none. */
export async function versionHeld(deps: HeadDeps, path: string): Promise<string | undefined> {
  const { store, config, signal } = deps;
  const now = await withRetry(() => store.head(path, { signal }), config.retry, signal);
  return now?.version;
}

/**
 * True when `path`, synced here at `synced` and deleted here (or replaced
 * by a directory of its name), the deletion not marked (`marked`: by its
 * name or a directory above), is named by the index at another version
 * (`entry`, a Sluice entry) while the store still holds the very version this cache
 * synced: an old client's write-back rolled the entry back to the version
 * it had read, over this cache's (or a peer's) committed write. No
 * deletion on the datastore, nor this cache's own write cut off before its
 * commit: as for a dropped entry, the pull keeps the record and marks
 * nothing ({@link warnDroppedHere}). One HEAD, on this path alone.
 */
export async function rolledBackDeletedHere(
  deps: Parameters<typeof heldAsSynced>[0] & {
    readonly cache: { fileGone(path: string): boolean };
  },
  path: string,
  entry: IndexEntry,
  synced: { readonly version: string } | undefined,
  marked: boolean,
): Promise<boolean> {
  if (!synced || marked || isUnversioned(entry) || synced.version === entry.v) return false;
  if (!deps.cache.fileGone(path)) return false;
  return await heldAsSynced(deps, path, synced.version);
}

/**
 * Keeps `paths` (dropped index entries) for the next push: each stays
 * synced at its version, marked to be published again (`republish`), and
 * is marked dirty. That push names the version in the index again while
 * the store holds it; a change made here in between is written over the
 * synced version as any other. One `index_entry_dropped` warning names them.
 */
export async function keepDropped(
  state: SyncState,
  events: SluiceEmitter,
  paths: readonly string[],
): Promise<void> {
  if (paths.length === 0) return;
  for (const p of paths) {
    const synced = state.synced(p);
    if (synced) state.setSynced(p, { ...synced, republish: true });
  }
  await state.markDirtyMany(paths);
  const list = listPaths(paths, 3);
  events.emit("warning", {
    code: "index_entry_dropped",
    message:
      `The datastore's index no longer names ${list}, though the store still holds the version this cache synced: another client rewrote the index without ${
        paths.length === 1 ? "it" : "them"
      } (an old client pushing outside the global lock). Kept here and marked dirty: run \`sluice push\` to publish ${
        paths.length === 1 ? "it" : "them"
      } again, and \`sluice push --global-lock\` while old clients push.`,
    path: paths[0],
  });
}

/**
 * Warns of `paths` (synced files deleted here, the deletion not marked,
 * whose index entry another client dropped, or, for those in `rolledBack`,
 * rolled back to an older version, while the store still holds the version
 * this cache synced): the datastore did not delete them, and the pull kept
 * their records, as local deletions, without marking them. A push of
 * everything pending leaves them so; the way out is either command named.
 * One `index_entry_dropped` warning for the dropped, one for the rolled back.
 */
export function warnDroppedHere(
  events: SluiceEmitter,
  paths: readonly string[],
  rolledBack: readonly string[] = [],
): void {
  const dropped = paths.filter((p) => !rolledBack.includes(p));
  const back = paths.filter((p) => rolledBack.includes(p));
  if (dropped.length > 0) {
    const one = dropped.length === 1;
    events.emit("warning", {
      code: "index_entry_dropped",
      message: `The datastore's index no longer names ${
        listPaths(dropped, 3)
      }, though the store still holds the version this cache synced: another client rewrote the index without ${
        one ? "it" : "them"
      } (an old client pushing outside the global lock), so the datastore did not delete ${
        one ? "it" : "them"
      }. ${deletedHereWaysOut(dropped)}`,
      path: dropped[0],
    });
  }
  if (back.length > 0) {
    const one = back.length === 1;
    events.emit("warning", {
      code: "index_entry_dropped",
      message: `The datastore's index names ${
        listPaths(back, 3)
      } at an older version than the one this cache synced, which the store still holds: another client rolled ${
        one ? "its entry" : "their entries"
      } back (an old client writing back the index it had read, outside the global lock), so the edit this cache synced is no longer the one the index names, and readers skip ${
        one ? "the path" : "the paths"
      } as not yet committed, but the datastore did not delete ${one ? "it" : "them"}. ${
        deletedHereWaysOut(back)
      }`,
      path: back[0],
    });
  }
}

/** What became of `paths` here (deleted, the deletion never marked) and the two ways out. */
function deletedHereWaysOut(paths: readonly string[]): string {
  const one = paths.length === 1;
  const names = paths.slice(0, 3).map(shellWord).join(" ");
  return `${
    one ? "It was" : "They were"
  } deleted here (or replaced by a directory of the same name), and that deletion was never marked: it stays a local deletion (\`sluice status\` lists it), which no push of everything pending makes on the datastore. Run \`sluice push ${names}${
    paths.length > 3 ? " …" : ""
  }\` naming ${one ? "it" : "them"} to delete ${
    one ? "it" : "them"
  } on the datastore too, or \`sluice pull --restore-deleted\` to take the store's ${
    one ? "copy" : "copies"
  } back (a directory in the way moved off first); a peer that still holds ${
    one ? "it" : "them"
  } names ${one ? "it" : "them"} again with its next pull and push.`;
}
