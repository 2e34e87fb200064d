/**
 * The move of a cache's bucket to the v2 index layout, as the CLI, the swamp
 * extension and every other caller run it (under the global lock, which the
 * caller holds): see `sync/transfer/migrate_index.ts`. A bucket with no index
 * has the objects already there found by a listing, named in the shards, and
 * told of (`index_discovered`), as by any first index. A v1 commit that raced
 * the move, whose upload is gone from the store since, is not named in the
 * shards: it is recorded as lost (`vanished_record.ts`), so that a clone
 * holding its copy keeps it.
 *
 * @module
 */
import { type MigratedIndex, migrateToShards } from "../transfer/migrate_index.ts";
import { indexDiscovery } from "./index_discovered.ts";
import { recordVanished, VANISHED_KEY } from "./vanished_record.ts";
import { SluiceError } from "../errors.ts";
import { listPaths } from "../left_behind.ts";
import type { SyncService } from "./service.ts";
import type { DistributedLock } from "../ports.ts";

/**
 * Moves the bucket of `svc` to v2 (a v2 bucket is left as it is).
 *
 * @example
 * ```ts
 * import { migrateIndex } from "./migrate.ts";
 * import type { SyncService } from "./service.ts";
import type { DistributedLock } from "../ports.ts";
 * async function _example(svc: SyncService) {
 *   const r = await migrateIndex(svc);
 *   console.log(r.migrated, r.entries);
 * }
 * ```
 */
export function migrateIndex(
  svc: Pick<SyncService, "store" | "config" | "events" | "clock">,
  signal?: AbortSignal,
  lock?: Pick<DistributedLock, "lost">,
): Promise<MigratedIndex> {
  const { store, config } = svc;
  return migrateToShards(store, {
    // The global lock it runs under, once lost, stops it (engine locks tell).
    lockLost: () => lock?.lost === true,
    retry: config.retry,
    signal,
    concurrency: config.concurrency,
    clock: () => svc.clock.now(),
    discovery: indexDiscovery(store, config.retry, svc.events, signal, config.concurrency),
    // A v1 commit that raced the move, whose upload is gone since: recorded
    // as lost, so that a clone holding its copy keeps it.
    onUnnamed: (lost) =>
      recordVanished(store, lost, svc.clock.now(), config.retry, signal).catch((e) => {
        throw unrecorded(lost.map(([p]) => p), e);
      }),
  });
}

/** The move finished, but the racing writes it could not name were not recorded as lost. */
function unrecorded(paths: string[], cause: unknown): SluiceError {
  return new SluiceError(
    cause instanceof SluiceError ? cause.code : "push_failed",
    `The move to v2 finished, but ${listPaths(paths, 3)}, written by a commit that raced it, ${
      paths.length === 1 ? "is" : "are"
    } gone from the store and not named in the v2 index, and could not be recorded as lost in ${VANISHED_KEY} (${
      cause instanceof Error ? cause.message : String(cause)
    }). A clone holding ${
      paths.length === 1 ? "it" : "one of them"
    } may take the missing entry for a peer's deletion on its next pull: copy ${
      paths.length === 1 ? "it" : "them"
    } aside from the clones that hold ${
      paths.length === 1 ? "it" : "them"
    } before they pull, then push ${paths.length === 1 ? "it" : "them"} again.`,
    { cause },
  );
}
