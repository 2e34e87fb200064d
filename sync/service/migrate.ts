/**
 * The move of a cache's bucket to the v2 index layout, as the CLI, the swamp
 * extension and every other caller run it (under the global lock, which the
 * caller holds): see `sync/transfer/migrate_index.ts`. A bucket with no index
 * has the objects already there found by a listing, named in the shards, and
 * told of (`index_discovered`), as by any first index.
 *
 * @module
 */
import { type MigratedIndex, migrateToShards } from "../transfer/migrate_index.ts";
import { indexDiscovery } from "./index_discovered.ts";
import type { SyncService } from "./service.ts";

/**
 * Moves the bucket of `svc` to v2 (a v2 bucket is left as it is).
 *
 * @example
 * ```ts
 * import { migrateIndex } from "./migrate.ts";
 * import type { SyncService } from "./service.ts";
 * declare const svc: SyncService;
 * const r = await migrateIndex(svc);
 * console.log(r.migrated, r.entries);
 * ```
 */
export function migrateIndex(
  svc: Pick<SyncService, "store" | "config" | "events" | "clock">,
  signal?: AbortSignal,
): Promise<MigratedIndex> {
  const { store, config } = svc;
  return migrateToShards(store, {
    retry: config.retry,
    signal,
    concurrency: config.concurrency,
    clock: () => svc.clock.now(),
    discovery: indexDiscovery(store, config.retry, svc.events, signal, config.concurrency),
  });
}
