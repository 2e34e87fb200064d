/**
 * Whether the push of a `resolve --mine` would hold back the deletion of a
 * data version file under its `latest` marker (the push gate
 * `version-under-marker`), looked at before the resolution changes anything
 * so that it is refused instead (`version_under_marker`): held, the
 * deletion would wait with the conflict gone and no `--theirs` left to take.
 *
 * Two reasons hold it, as the gate's: the marker here names the version
 * (`sync/version_marker.ts`), or the committed marker does (the one this
 * cache synced, or the one the datastore's index names) while the marker
 * here names another version that the resolution's push cannot publish in
 * its place. That push writes the marker only where it changed here since
 * this cache synced it (a marker beside a deletion goes with it), and the
 * gate lets it stand in for the committed one only where it names a version
 * whose files here are each published, or, none held here, one the index
 * lists. A marker removed here too holds nothing.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { SyncState } from "./state.ts";
import { classifyPath } from "../path_class.ts";
import { isInternalPath } from "../paths.ts";
import { sha256Hex } from "../hash.ts";
import { readIndexAround } from "../transfer/remote_index.ts";
import { markerBeside, markerHolding } from "../version_marker.ts";

/**
 * What holds a deletion back: the marker beside the version file and the
 * version `n` it would delete; `here`, where the committed marker holds it,
 * is what the marker here names instead (trimmed; empty where it is too long
 * to be a version number).
 */
export interface MarkerHold {
  readonly marker: string;
  readonly n: string;
  readonly here?: string;
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
  return async (path) => {
    const under = await markerHolding(cache, path, rules);
    if (under) return under;
    if (classifyPath(path, rules) !== "data-version") return undefined;
    const { marker, n } = markerBeside(path);
    const bytes = await cache.read(marker).catch(() => null);
    if (!bytes) return undefined;
    const here = bytes.length <= 64 ? new TextDecoder().decode(bytes).trim() : "";
    const enc = new TextEncoder();
    const hashes = await Promise.all([n, `${n}\n`].map((t) => sha256Hex(enc.encode(t))));
    const names = (h: string | undefined) => h !== undefined && hashes.includes(h);
    const synced = state.synced(marker);
    if (!names(synced?.hash) && !names((await near(marker))[marker]?.h)) return undefined;
    // Published in its place: written by the push (changed here since it
    // was synced), naming a version a reader can follow once it is done.
    if (!synced || (await cache.hashFile(marker).catch(() => null))?.hash === synced.hash) {
      return { marker, n, here };
    }
    if (!/^[0-9]+$/.test(here)) return { marker, n, here };
    const dir = `${marker.slice(0, marker.lastIndexOf("/"))}/${here}`;
    const held = await cache.listFiles(dir);
    const files = held.filter((f) => !isInternalPath(f, rules));
    if (held.length > 0 && files.length === 0) return undefined;
    const followed = files.length > 0
      ? files.every((f) => state.synced(f) !== undefined)
      : Object.keys(await near(dir)).some((k) => k.startsWith(`${dir}/`));
    return followed ? undefined : { marker, n, here };
  };
}
