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
 * deletion, and marks it to be published again ({@link keepDropped}).
 *
 * @module
 */
import { listPaths } from "../left_behind.ts";
import type { ObjectStore } from "../ports.ts";
import { withRetry } from "../retry.ts";
import type { SyncConfig } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import type { SyncState } from "./state.ts";

/** Why a pull left such a path for the next push (its result and its warning say it). */
export const DROPPED_REASON =
  "the datastore's index no longer names it, though the store still holds the version this cache synced (another client rewrote the index without it): it was kept here, and the next push publishes it again";

/**
 * True when the store holds `version` of `path` now (one HEAD, retried as
 * a pull's reads are): the index entry was dropped, not the file deleted.
 */
export async function heldAsSynced(
  deps: {
    readonly store: ObjectStore;
    readonly config: Pick<SyncConfig, "retry">;
    readonly signal: AbortSignal;
  },
  path: string,
  version: string,
): Promise<boolean> {
  const { store, config, signal } = deps;
  const now = await withRetry(() => store.head(path, { signal }), config.retry, signal);
  return now?.version === version;
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
