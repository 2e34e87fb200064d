/**
 * Whether the push of a `resolve --mine` would hold back the deletion of a
 * data version file under its `latest` marker (the push gate
 * `version-under-marker`), looked at before the resolution changes anything
 * so that it is refused instead (`version_under_marker`): held, the
 * deletion would wait with the conflict gone and no `--theirs` left to take.
 *
 * It holds by the gate's own rule (`sync/version_marker_hold.ts`): the
 * marker here names the version, or the committed marker does (the one this
 * cache synced, or the one the datastore's index names) while the marker
 * here cannot be published in its place. Looked at over the service: the
 * resolution's push writes the marker only where it changed here since this
 * cache synced it (a marker beside a deletion goes with it) and it is in no
 * conflict of its own (a push leaves such a path out); a file here is
 * published where it is synced (that push writes no other); a version none
 * of whose files are here, where the index lists it. A marker removed here
 * too holds nothing.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { SyncState } from "./state.ts";
import { classifyPath } from "../path_class.ts";
import { readIndexAround } from "../transfer/remote_index.ts";
import { markerBeside } from "../version_marker.ts";
import { type MarkerLooks, markerVerdicts } from "../version_marker_hold.ts";

/**
 * What holds a deletion back: the marker beside the version file and the
 * version `n` it would delete; `here`, where the committed marker holds it,
 * is what the marker here names instead (trimmed; empty where it is too long
 * to be a version number); `open`, the marker is in conflict itself (no push
 * writes it until that conflict is resolved).
 */
export interface MarkerHold {
  readonly marker: string;
  readonly n: string;
  readonly here?: string;
  readonly open?: true;
}

/**
 * The look at a path (see the module), over `service`'s store, cache and
 * state. A datastore that cannot be read throws (nothing was changed yet).
 *
 * @example
 * ```ts
 * import { markerHoldReader } from "./resolve_marker_hold.ts";
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * await markerHoldReader(svc)("data/t/m/out/2/raw"); // undefined: no marker here
 * ```
 */
export function markerHoldReader(
  service: {
    readonly store: ObjectStore;
    readonly cache: LocalCache;
    readonly state: SyncState;
    readonly config: Pick<SyncConfig, "retry" | "concurrency"> & Partial<SyncConfig>;
  },
  signal?: AbortSignal,
): (path: string) => Promise<MarkerHold | undefined> {
  const { store, cache, state, config } = service;
  const rules = config.classifierRules ?? [];
  const near = (dir: string) =>
    readIndexAround(store, dir, config.retry, signal, config.concurrency);
  const looks: MarkerLooks = {
    rules,
    markerBytes: (marker) => cache.read(marker).catch(() => null),
    syncedHash: (marker) => state.synced(marker)?.hash,
    indexedHash: async (marker) => (await near(marker))[marker]?.h,
    // Changed here since it was synced: a marker this cache never synced,
    // as it was synced, or that cannot be hashed is not pushed with it; nor
    // one in conflict itself, which every push leaves out until resolved.
    writesMarker: async (marker) => {
      const synced = state.synced(marker);
      if (!synced || state.conflicts.has(marker)) return false;
      const local = await cache.hashFile(marker).catch(() => null);
      return local !== null && local.hash !== synced.hash;
    },
    filesUnder: (dir) => cache.listFiles(dir),
    published: (path) => state.synced(path) !== undefined,
    indexLists: async (dir) => Object.keys(await near(dir)).some((k) => k.startsWith(`${dir}/`)),
  };
  return async (path) => {
    if (classifyPath(path, rules) !== "data-version") return undefined;
    const { marker, n } = markerBeside(path);
    // Made for each look: the cache as it is now.
    const v = await markerVerdicts(looks)(marker, n);
    if (v.kind === "here") return { marker, n };
    if (v.kind === "committed") {
      return { marker, n, here: v.here, ...(state.conflicts.has(marker) ? { open: true } : {}) };
    }
    return undefined;
  };
}
