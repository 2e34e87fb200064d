/**
 * The options of a pull (`SyncService.pullChanged`).
 *
 * @module
 */

/**
 * Options of a pull of what changed remotely (or only under `prefixes`). A
 * file deleted here is a local change, so a pull keeps it deleted; with
 * `restoreDeleted`, each synced file deleted here whose datastore copy is
 * still the one this cache synced is taken back (one the datastore changed
 * meanwhile is a conflict, as without it), also one whose index entry
 * another client dropped while the store still holds that version (then
 * kept as a dropped entry, for the next push to name again). A deletion
 * marked dirty, to be pushed, is left as it is.
 *
 * With `defer`, a path it answers true for that this cache has nothing
 * at (no file, never synced) is not fetched: it is listed in `deferred`,
 * its directory is made, and a later pull of it (by its prefix, or without
 * `defer`) fetches it; the pull keeps no index token, so a later pull
 * without `defer` reads the index again. swamp's lazy hydration
 * (`metadataOnly`) defers the `data/…/raw` files this way.
 *
 * With `holdBack`, what lies under those directories is left as it is
 * (nothing fetched, set aside or removed there; its conflicts stand), and
 * the pull keeps no index token, so a later pull looks at it again: the
 * extension holds back what is under another run's held model lock, that
 * run's until its own flush.
 *
 * With `adoptUncommitted`, another writer's uncommitted objects at those
 * paths are adopted and the paths pulled again (see `pull_adopt.ts`).
 *
 * @example
 * ```ts
 * import type { PullOptions } from "./pull_options.ts";
 * const options: PullOptions = { prefixes: ["data/"], restoreDeleted: true };
 * console.log(options.prefixes); // ["data/"]
 * ```
 */
export interface PullOptions {
  signal?: AbortSignal;
  prefixes?: readonly string[];
  restoreDeleted?: boolean;
  defer?: (path: string) => boolean;
  adoptUncommitted?: readonly string[];
  holdBack?: readonly string[];
}
