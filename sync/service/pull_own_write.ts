/**
 * The look a pull plan takes at whether the store holds this cache's own write at a path.
 *
 * @module
 */
import { withRetry } from "../retry.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import { isOwnUncommitted, readWriter, WRITER_METADATA } from "../transfer/writer_id.ts";
import type { PullDeps } from "./pull.ts";

/**
 * What {@link ownWriteChecker} found at a path: this cache's own write
 * (`true`), another's or none of this cache's (`false`), or (`"gone"`) no
 * object at the version the entry names, where one of this cache's making
 * may have been: it was deleted (a peer's deletion whose index update has
 * not come yet, or an entry left naming nothing) or written over by
 * another writer (a peer's update whose index update has not come yet),
 * and its writer id went with it.
 */
export type OwnWrite = boolean | "gone";

/**
 * True when the store holds this cache's own write at `path`: uncommitted,
 * other than `e`'s, or `e`'s own version (a commit whose answer was lost,
 * never seen synced here), or the object an entry of another client names
 * by its size alone (an old client's listing of a bucket without an index
 * named this cache's upload whose commit never came). `"gone"` when the
 * entry names a version and the store holds nothing at `path`, or another
 * writer's object at another version (see {@link OwnWrite}). Its writer id
 * is read once per pull; a look that fails (after its retries) fails the
 * pull, which never takes this cache's own write for a peer's change for
 * want of a look.
 */
export function ownWriteChecker(
  deps: PullDeps,
): (path: string, e: IndexEntry) => Promise<OwnWrite> {
  const { store, cache, config, signal } = deps;
  let writer: ReturnType<typeof readWriter> | undefined;
  return async (path, e) => {
    // Another client's entry names no version: only one made from a listing
    // (no hash) can name this cache's upload, by its size.
    if (isUnversioned(e) && e.h !== "") return false;
    const { id, bound } = await (writer ??= readWriter(cache));
    if (id === null) return false;
    const now = await withRetry(() => store.head(path, { signal }), config.retry, signal);
    if (isUnversioned(e)) {
      return now !== null && now.size === e.s && now.metadata?.[WRITER_METADATA] === id &&
        (bound || deps.state.attempted(path));
    }
    if (now === null) return "gone";
    if (isOwnUncommitted(now, e.v, id)) return true;
    // Another writer's object over the entry's version (its commit not come
    // yet, or come after the index this pull read): the object the entry
    // names is gone, and its writer id with it.
    if (now.version !== e.v) return "gone";
    // At the entry's version: with the id bound to this state directory
    // (no copy of the cache carries it), or else where this cache
    // recorded a write of the path whose commit it never saw come (a
    // copy, where the system gives no identity to bind the id to, never did).
    return now.metadata?.[WRITER_METADATA] === id && (bound || deps.state.attempted(path));
  };
}
