/**
 * A pull that synced nothing from a datastore with no index: a new
 * datastore, or a mistyped bucket or prefix, which reads the same. The
 * command line's pull and the tool extension's both tell it
 * (`datastore_empty`), each naming where its bucket and prefix are set.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import { headIndex } from "../transfer/remote_index.ts";

/** `datastore_empty`: a pull into a cache that synced nothing found no index on the datastore. */
export const DATASTORE_EMPTY = "datastore_empty";

/** What {@link pulledFromNoIndex} looks at. */
export interface EmptyPullCheck {
  /** The paths the pull fetched. */
  readonly fetched: readonly string[];
  /** How many files the cache has synced (its state's `syncedCount`), after the pull. */
  readonly syncedCount: number;
  /**
   * True when the pull warned `unindexed_writes_left`: Sluice's uploads no
   * commit named yet (a first push under way, or stopped before its
   * commit) are there, so no typo.
   */
  readonly unindexedWritesLeft: boolean;
  /** The datastore pulled from. */
  readonly store: ObjectStore;
  /** The retry policy of the index head. */
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
}

/**
 * True when a pull fetched nothing into a cache that has synced nothing,
 * warned of no unindexed writes, and the datastore holds no index. The
 * index is headed only when the rest holds, so a pull that took something,
 * or into a cache that synced some, sends no request more.
 *
 * @example
 * ```ts
 * import { pulledFromNoIndex } from "./datastore_empty.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * const store = new InMemoryStore();
 * await pulledFromNoIndex({ fetched: [], syncedCount: 0, unindexedWritesLeft: false, store, retry }); // true
 * ```
 */
export async function pulledFromNoIndex(check: EmptyPullCheck): Promise<boolean> {
  if (check.fetched.length > 0 || check.syncedCount > 0 || check.unindexedWritesLeft) return false;
  return await headIndex(check.store, check.retry, check.signal) === null;
}
