/**
 * Clones of one in-memory store for the sync service's own tests: a service
 * per cache with a fake clock and no retries, writing cache files, and the
 * check that the remote index names what the store holds.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { ObjectStore } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import { isUnversioned, META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { sha256Hex } from "../hash.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import {
  FakeClock,
  InMemoryStore,
  seedPeerBucket,
  writeCacheFile,
} from "../../packages/testing/mod.ts";

// Cut-off commits and store wrappers live in kits of their own, named here too.
export {
  checkHeldByConflict,
  createAnswerLost,
  isIndexKey,
  ownDeleteHooked,
  updateAnswerLost,
  uploadCommitCutOff,
} from "./clone_cutoff_kit.ts";
export {
  checkedDeleteStore,
  copyTree,
  processOver,
  RacingStore,
  stopsAtDownload,
} from "./clone_store_kit.ts";

/**
 * Lets `svc` see the dangling index entries there are now (one pull), then
 * moves its fake clock past the grace a pull gives one it has seen
 * (`DANGLING_GRACE_MS`), so that its next pull removes them.
 */
export async function pastDanglingGrace(svc: SyncService): Promise<void> {
  await svc.pullChanged();
  (svc.clock as FakeClock).set(svc.clock.now() + DANGLING_GRACE_MS);
}

/** No retries, no waits: every failure shows at once. */
export const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/**
 * A service named `name` over `store`, in a new cache directory (or `cacheDir`, to restart one),
 * with `config` over the quick retries.
 *
 * @example
 * ```ts
 * import { clone } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const a = await clone(new InMemoryStore(), "a");
 * ```
 */
export async function clone(
  store: ObjectStore,
  name: string,
  cacheDir?: string,
  config: Partial<SyncConfig> = {},
): Promise<SyncService> {
  return await createSluice({
    cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { ...quick, ...config },
    conditional: new ConditionalWrites(),
  });
}

/**
 * Publishes versions `names` of the data a `latest` marker at `marker`
 * names (a `raw` each), through a clone of its own: a marker is published
 * only naming a version the datastore lists (`marker-after-version`).
 *
 * @example
 * ```ts
 * import { publishVersions } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * await publishVersions(new InMemoryStore(), "data/shell/cmd/m1/out/latest", ["1", "2"]);
 * ```
 */
export async function publishVersions(
  store: InMemoryStore,
  marker: string,
  names: readonly string[],
): Promise<void> {
  const v = await clone(store, "versions");
  const dir = marker.slice(0, marker.lastIndexOf("/"));
  for (const n of names) await put(v, `${dir}/${n}/raw`, `version ${n}`);
  await v.pushChanged();
}

/**
 * Clones `a` and `b` over `store` that both synced `path`: `a` pushed it
 * with `first`, `b` pulled it. Then `a`'s cache holds `second` there, marked
 * dirty and not pushed yet.
 *
 * @example
 * ```ts
 * import { bothSynced } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const { a, b } = await bothSynced(new InMemoryStore(), "notes/n.txt", "1", "2");
 * ```
 */
export async function bothSynced(
  store: InMemoryStore,
  path: string,
  first: string,
  second: string,
): Promise<{ a: SyncService; b: SyncService }> {
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, first);
  await a.pushChanged();
  await b.pullChanged();
  await put(a, path, second);
  return { a, b };
}

/**
 * Clones `a` and `c` over a new store that both synced the file `path`;
 * then `a` replaced it here by a directory of that name holding `path/under`
 * (`text`, not marked).
 *
 * @example
 * ```ts
 * import { fileMadeADirectory } from "./clone_kit.ts";
 * const { a } = await fileMadeADirectory();
 * console.log(a.cacheDir);
 * ```
 */
export async function fileMadeADirectory(
  path = "clash",
  under = "x.txt",
  text = "under a directory",
): Promise<{ store: InMemoryStore; a: SyncService; c: SyncService }> {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, path, "a file");
  await a.pushChanged();
  await c.pullChanged();
  await Deno.remove(`${a.cacheDir}/${path}`);
  await put(a, `${path}/${under}`, text, false);
  return { store, a, c };
}

/** Writes `text` at `path` in the service's cache and, unless `mark` is false, marks it dirty. */
export async function put(svc: SyncService, path: string, text: string, mark = true) {
  await writeCacheFile(svc.cacheDir, path, text);
  if (mark) await svc.markDirty({ relPath: path });
}

/** The text at `path` in the service's cache; undefined when absent. */
export const read = (svc: SyncService, path: string): Promise<string | undefined> =>
  Deno.readTextFile(`${svc.cacheDir}/${path}`).catch(() => undefined);

/**
 * I7: every index entry names the version the store holds; with `held`,
 * the store must also hold every object the index names.
 */
export async function assertIndexCurrent(store: InMemoryStore, o: { held?: boolean } = {}) {
  const index = await readIndex(store, quick.retry);
  for (const [path, e] of Object.entries(index?.entries ?? {})) {
    const info = await store.head(path);
    if (o.held) assert.ok(info, `the index names ${path}, which the store does not hold`);
    if (!info) continue;
    // Another client's entry names no version: its bytes are checked instead.
    if (isUnversioned(e)) {
      assert.equal(
        await sha256Hex(store.peek(path)!),
        e.h,
        `the index names other bytes of ${path}`,
      );
    } else assert.equal(e.v, info.version, `the index names a dead version of ${path}`);
  }
}

/**
 * A store whose bucket is v2 already (an empty meta, no shard).
 *
 * @example
 * ```ts
 * import { v2Store } from "./clone_kit.ts";
 * const store = await v2Store();
 * ```
 */
export async function v2Store(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  const v2 = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
  await store.put(META_KEY, metaBody(v2), { kind: "create" });
  return store;
}

/**
 * A v2 bucket where an older client published versions 1 and 2 of the data
 * `dir` (and its `latest` marker naming 2), and a clone `x` that pulled them.
 */
export async function olderClientVersions(
  dir: string,
): Promise<{ store: InMemoryStore; x: SyncService }> {
  const store = new InMemoryStore();
  await seedPeerBucket(store, {
    [`${dir}/1/raw`]: "R-m3-1",
    [`${dir}/2/raw`]: "R-m3-2",
    [`${dir}/latest`]: "2",
  }, { v2: true });
  const x = await clone(store, "x");
  await x.pullChanged();
  return { store, x };
}
