/**
 * What a cache records of the store it mirrors (`cli-store.json` in its
 * state directory): written by the command line on a cache's first sync,
 * and by the datastore extension for the caches it syncs, so that the
 * command line run on a cache takes that store without `--store` and
 * refuses another one (its sync records would be taken for the other's).
 *
 * @module
 */

/** The state file recording the store a cache mirrors. */
export const STORE_RECORD = "cli-store.json";

/** What a cache records of the store it mirrors. */
export interface StoreRecord {
  format: 1;
  /** The store URL, as `--store` takes it. */
  url: string;
  /** The store's identity: `s3://bucket/prefix`, `gs://bucket/prefix` or `file:///dir`. */
  identity: string;
  /**
   * `hold` where the swamp extension made the cache: a data version whose
   * `metadata.yaml` is not written yet is still being written by the tool,
   * and every push on this cache (the command line's too) holds it.
   */
  unfinishedVersions?: "hold";
}
