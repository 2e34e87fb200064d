/**
 * A pull of the tool that synced nothing from a datastore with no index
 * warns `datastore_empty`, as the command line's pull does: a mistyped
 * bucket or prefix reads the same as a new datastore, which the tool's next
 * push (its setup pushes first) would start there unseen. The warning goes
 * through the datastore's events, as those of `sync_reporting.ts` do.
 *
 * @module
 */
import type { WarningEvent } from "../../sync/events.ts";
import type { PullResult } from "../../sync/service/pull.ts";
import type { PullOptions, SyncService } from "../../sync/service/service.ts";
import { UNINDEXED_WRITES_LEFT } from "../../sync/service/index_discovered.ts";
import { DATASTORE_EMPTY, pulledFromNoIndex } from "../../sync/service/datastore_empty.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import type { DatastoreRuntime } from "./runtime.ts";
import { namespaceManifestKey } from "./namespaces.ts";

/**
 * Pulls with `options` through `svc` (the service of namespace `ns` of the
 * cache `cachePath`), and warns `datastore_empty` when the pull synced
 * nothing from a datastore with no index (see
 * `sync/service/datastore_empty.ts`: the index is headed only then).
 * Uploads of a first push whose commit has not come, told of by this pull
 * as `unindexed_writes_left`, are no typo: not said then; nor is a
 * namespace's first pull where that namespace is registered.
 */
export async function pullTellingEmpty(
  rt: Pick<DatastoreRuntime, "cliTarget" | "cliTargetOf" | "provider">,
  svc: SyncService,
  cachePath: string,
  ns: string,
  options: PullOptions,
): Promise<PullResult> {
  const { cacheDir } = rt.cliTarget(cachePath, ns);
  let unindexed = false;
  // The datastore's services share its emitter: this one's warning only.
  const seen = (w: WarningEvent) => {
    if (w.code === UNINDEXED_WRITES_LEFT && rt.cliTargetOf(w)?.cacheDir === cacheDir) {
      unindexed = true;
    }
  };
  svc.events.on("warning", seen);
  let r: PullResult;
  try {
    r = await svc.pullChanged(options);
  } finally {
    svc.events.off("warning", seen);
  }
  const empty = await pulledFromNoIndex({
    fetched: r.fetched,
    syncedCount: svc.state.syncedCount,
    unindexedWritesLeft: unindexed,
    store: svc.store,
    retry: svc.config.retry,
    signal: options.signal,
  });
  // A namespace registered there (`namespace set`) is a new one, where the
  // configuration's bucket and prefix point: its first pull says nothing.
  if (empty && !(ns && await registered(rt.provider.store, ns, options.signal))) {
    const at = `${rt.provider.resolveDatastorePath("").replace(/\/+$/, "")}${ns ? `/${ns}` : ""}`;
    svc.events.emit("warning", {
      code: DATASTORE_EMPTY,
      message:
        `The datastore at ${at} holds no index: nothing was ever pushed there, so this pull took nothing. If you expected files, check the bucket and prefix in the datastore's configuration: a mistyped one reads the same as a new datastore, and the next push starts a new datastore there.`,
    });
  }
  return r;
}

/** True when `store` holds the manifest of namespace `ns`; a failed read says false. */
function registered(store: ObjectStore, ns: string, signal?: AbortSignal): Promise<boolean> {
  return store.head(namespaceManifestKey(ns), { signal }).then((i) => i !== null, () => false);
}
