/**
 * A cache's first push into a datastore with no index makes the index as its
 * uploads begin, not at its commit.
 *
 * A commit into a datastore with no index lists the whole bucket to name
 * the objects already there (see `index_discovery.ts`). Made at the commit,
 * that listing walks every object the push has just uploaded as well: at
 * 10,000 files, seconds of listing for nothing. Made as the uploads begin,
 * it finds only what was there before, and the index it writes (naming
 * that, or nothing) turns the commit into an ordinary compare-and-swap on
 * an index that exists.
 *
 * The rule is the one a pull follows on such a datastore: the objects there
 * when the index is made are named by it (a write landing after that is
 * named only by its own writer's index update, as on any datastore with an
 * index). The index written names no write of this push, so it needs no
 * fence: a pull writes the same without a lock.
 *
 * @module
 */
import type { PushContext } from "../context.ts";
import type { IndexMemo } from "../transfer/remote_index.ts";
import { updateIndex } from "../transfer/remote_index.ts";
import { indexDiscovery } from "./index_discovered.ts";
import type { SyncState } from "./state.ts";

/**
 * True for the first push of a cache: nothing synced, no index token, so its
 * commit may well find no index (a fresh bucket).
 */
export function isFirstPush(state: Pick<SyncState, "syncedCount" | "indexVersion">): boolean {
  return state.syncedCount === 0 && state.indexVersion === undefined;
}

/**
 * Reads the index and, where there is none, lists the store and writes one
 * naming what the listing found (create-only: a peer's index written
 * meanwhile wins). Every path is looked at, this push's own included: an
 * object another tool left at a path this push writes too stays named when
 * the push's write there does not land (a data version theirs first, say).
 * This push's uploads the listing meets carry its writer id, so they are
 * held back, as any uncommitted Sluice write, and not told of (`own`: the
 * plan's paths, whose objects of this cache's its commit names or its
 * settling of strays removes). Never rejects: should any of it fail, the
 * commit reads the index (and discovers) as it always does. Resolves once
 * every request it started has ended, so a push that awaits it leaves none
 * behind.
 */
export async function makeIndexFirst(
  ctx: Pick<PushContext, "store" | "config" | "events" | "signal" | "clock">,
  memo: IndexMemo | undefined,
  own: readonly string[],
): Promise<void> {
  const discovery = indexDiscovery(
    ctx.store,
    ctx.config.retry,
    ctx.events,
    ctx.signal,
    ctx.config.concurrency,
    new Set(own),
  );
  try {
    await updateIndex(
      ctx.store,
      { set: {}, remove: [] },
      ctx.config.retry,
      ctx.signal,
      memo,
      ctx.config.concurrency,
      () => ctx.clock.now(),
      undefined,
      { ...discovery, alone: true, create: true },
    );
  } catch {
    // The commit reads the index again, and makes it if it is still missing.
  }
}
