/**
 * The index discovery a push commit or a pull makes on a datastore with no
 * index (see `sync/transfer/index_discovery.ts`), and the warnings that say
 * what it named and what it left out.
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import { listPaths } from "../left_behind.ts";
import { discoverEntries } from "../transfer/index_discovery.ts";
import type { IndexDiscovery } from "../transfer/remote_index.ts";

/** `index_discovered`: the datastore had no index; a listing found objects, now named. */
export const INDEX_DISCOVERED = "index_discovered";

/** `unindexed_writes_left`: objects Sluice wrote that no index names, left out of a discovery. */
export const UNINDEXED_WRITES_LEFT = "unindexed_writes_left";

/**
 * The discovery of `store` for {@link updateIndex}: finds the entries,
 * warns of Sluice writes it left out (but those at `quiet` paths: a first
 * push's own, which it commits or settles itself), and, once the index
 * naming the rest landed, says how many it named.
 *
 * @example
 * ```ts
 * import { indexDiscovery } from "./index_discovered.ts";
 * import { createEmitter } from "../events.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const d = indexDiscovery(new InMemoryStore(), { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 }, createEmitter());
 * console.log(Object.keys(await d.find(new Set()))); // []
 * ```
 */
export function indexDiscovery(
  store: ObjectStore,
  retry: RetryPolicy,
  events: SluiceEmitter,
  signal?: AbortSignal,
  concurrency = 8,
  quiet: ReadonlySet<string> = new Set(),
): IndexDiscovery {
  return {
    async find(own) {
      const found = await discoverEntries(store, retry, signal, concurrency, own);
      // Held back all the same; not told of: the caller's own writes (see `quiet`).
      const heldBack = found.heldBack.filter((k) => !quiet.has(k));
      if (heldBack.length > 0) {
        events.emit("warning", {
          code: UNINDEXED_WRITES_LEFT,
          message:
            `The datastore ${store.endpoint} has no index, and ${heldBack.length} object(s) there were written by Sluice without being named by a commit (${
              listPaths(heldBack)
            }): a push still in flight or stopped before its commit, whose commit (or, for a refused run, its erasure) settles them. They were not named in the index; nothing was deleted. If their writer is gone for good, \`sluice push --adopt-uncommitted <path>\` from a cache holding the file publishes one.`,
        });
      }
      return found.entries;
    },
    landed(count) {
      events.emit("warning", {
        code: INDEX_DISCOVERED,
        message:
          `The datastore ${store.endpoint} had no index: ${count} object(s) already there (written by another tool, named by an index since lost, or uploaded by another client's first push, not committed yet or stopped before its commit) were found by a listing and named in the index written now, so that every client sees them. Check them with \`sluice status\` and \`sluice pull\`.`,
      });
    },
  };
}
