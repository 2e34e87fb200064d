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
import type { ObjectInfo, ObjectStore, PutBody, PutMode, PutOptions } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import { isUnversioned, META_KEY, metaBody, MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { sha256Hex } from "../hash.ts";
import { PreconditionFailedError, UnreachableError } from "../errors.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import {
  FakeClock,
  InMemoryStore,
  seedPeerBucket,
  writeCacheFile,
} from "../../packages/testing/mod.ts";
import type { PushResult } from "./push_result.ts";

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

/**
 * Clones `a` and `b` of a new store, and `a`'s upload of `text` at `path`,
 * its commit cut off: the upload's version, which the store holds and no
 * index names.
 */
export async function uploadCommitCutOff(
  path: string,
  text: string,
): Promise<{ store: InMemoryStore; a: SyncService; b: SyncService; uploaded: string }> {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  const uploaded = (await store.head(path))?.version;
  assert.ok(uploaded !== undefined, "a's upload stands, named by no index");
  return { store, a, b, uploaded };
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
 * `svc`'s update of `path` to `text` (a v2 store), whose shard lands and
 * whose meta bump is cut off: the commit is made, its answer lost. Returns
 * the version the index names now (this cache's own write).
 *
 * @example
 * ```ts
 * import { clone, put, updateAnswerLost, v2Store } from "./clone_kit.ts";
 * const store = await v2Store();
 * const a = await clone(store, "a");
 * await put(a, "n.txt", "one");
 * await a.pushChanged();
 * const v = await updateAnswerLost(store, a, "n.txt", "two");
 * ```
 */
export async function updateAnswerLost(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
): Promise<string> {
  // The meta bump fails before its effect: the shard written before it stands.
  return await pushCutOff(store, svc, path, text, META_KEY, false);
}

/**
 * `svc` writes `text` at `path` and pushes; the put of `key` (an index
 * object) fails, after its effect with `afterEffect`. Returns the version
 * the index names at `path` then (the commit made, its answer lost).
 */
async function pushCutOff(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
  key: string,
  afterEffect: boolean,
): Promise<string> {
  await put(svc, path, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect,
    match: (k) => k === key,
  });
  await svc.pushChanged().then(
    () => Promise.reject(new Error("the push was to be cut off")),
    () => {},
  );
  const v = (await readIndex(store, quick.retry))?.entries[path]?.v;
  if (!v) throw new Error(`the commit of ${path} did not land`);
  return v;
}

/** True for the key of an index object: the v1 index, a v2 shard or meta (to aim a fault at). */
export const isIndexKey = (key: string): boolean =>
  key === MONOLITH_KEY || key.startsWith("_index/");

/** Copies the directory `from` into `to`, files and directories (in process). */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/**
 * `svc`'s new file `path` (`text`), whose index commit lands and whose
 * answer is lost: the answer of the write of `key` (the v1 index by
 * default; a v2 bucket's last is its meta). Returns the version the index
 * names now.
 *
 * @example
 * ```ts
 * import { clone, createAnswerLost } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * const v = await createAnswerLost(store, await clone(store, "a"), "n.txt", "one");
 * ```
 */
export async function createAnswerLost(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
  key: string = MONOLITH_KEY,
): Promise<string> {
  return await pushCutOff(store, svc, path, text, key, true);
}

/**
 * `store` as an endpoint that ignores a delete's condition (MinIO's
 * community edition): the version is compared first, then the object is
 * deleted whatever is there (`deletesChecked`); the hook `arm` sets runs
 * once in that window, at the next conditional delete.
 *
 * @example
 * ```ts
 * import { checkedDeleteStore } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const racing = checkedDeleteStore(new InMemoryStore());
 * racing.arm(async () => {});
 * ```
 */
export function checkedDeleteStore(
  store: InMemoryStore,
): { store: InMemoryStore; arm: (between: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      if (prop === "deletesChecked") return true;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "delete") return value.bind(target);
      return async (key: string, o: { ifVersion?: string; signal?: AbortSignal } = {}) => {
        if (o.ifVersion !== undefined) {
          const now = await target.head(key);
          if (now?.version !== o.ifVersion) {
            throw new PreconditionFailedError(key, `version ${now?.version}`);
          }
          const h = hook;
          hook = undefined;
          await h?.();
        }
        return await target.delete(key, { signal: o.signal });
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (between) => void (hook = between) };
}

/**
 * `store`, whose downloads of `key` never answer (its process stops for
 * good there: killed, its machine lost); `downloading()` tells once one was
 * asked for, and `onAsked` runs then, before the download hangs.
 *
 * @example
 * ```ts
 * import { stopsAtDownload } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const { store, downloading } = stopsAtDownload(new InMemoryStore(), "notes/n.txt");
 * console.log(downloading()); // false
 * ```
 */
export function stopsAtDownload(
  store: InMemoryStore,
  key: string,
  onAsked: () => void = () => {},
): { store: InMemoryStore; downloading: () => boolean } {
  let asked = false;
  const stops = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return (k: string, ...rest: unknown[]) => {
        if (k !== key) return value.call(target, k, ...rest);
        asked = true;
        onAsked();
        return new Promise(() => {});
      };
    },
  });
  return { store: stops, downloading: () => asked };
}

/**
 * A service of process `pid` over the cache `cacheDir` (several in one test
 * are several processes over one cache: each with its owner lock, told
 * apart by `ownersInProcess`).
 *
 * @example
 * ```ts
 * import { processOver } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new InMemoryStore();
 * const [one, two] = [await processOver(store, dir, 1), await processOver(store, dir, 2)];
 * ```
 */
export async function processOver(
  store: ObjectStore,
  cacheDir: string,
  pid: number,
): Promise<SyncService> {
  return await createSluice({
    cacheDir,
    store,
    ownersInProcess: true,
    identity: { holder: `p${pid}@host`, hostname: "host", pid },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

/**
 * An in-memory store that runs `beforePut` once, before the first put it
 * matches (another writer's push landing in a write's window, say).
 *
 * @example
 * ```ts
 * import { RacingStore } from "./clone_kit.ts";
 * const store = new RacingStore();
 * store.beforePut = { match: (key) => key === "notes/a.txt", run: async () => {} };
 * ```
 */
export class RacingStore extends InMemoryStore {
  beforePut?: { match: (key: string, mode: PutMode) => boolean; run: () => Promise<void> };

  override async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options?: PutOptions,
  ): Promise<ObjectInfo> {
    const hook = this.beforePut;
    if (hook?.match(key, mode)) {
      this.beforePut = undefined;
      await hook.run();
    }
    return await super.put(key, body, mode, options);
  }
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

/**
 * A check of an earlier push's upload that waits on an open conflict at its
 * path, a mark of the user's by name standing for it: `a`'s new file `path`,
 * whose commit landed with its answer lost, deleted here and pushed by name
 * while `b` commits an edit of it (the deletion kept as a conflict with that
 * edit: `deleted`, the push's result); then `b` replaced the file by a
 * directory of its name holding `path/under`, and `a` pulled it. `a`'s next
 * push plans only the check at `path`, which the conflict holds.
 *
 * @example
 * ```ts
 * import { checkHeldByConflict } from "./clone_kit.ts";
 * const { a } = await checkHeldByConflict();
 * console.log(a.conflicts().length); // 1
 * ```
 */
export async function checkHeldByConflict(
  path = "notes/shared-1.md",
  under = "part-26.md",
): Promise<{ store: InMemoryStore; a: SyncService; b: SyncService; deleted: PushResult }> {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  // The peer's edit lands in the window of `a`'s deletion of its own upload.
  let own = "";
  let armed = false;
  const racing = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "delete") return value.bind(target);
      return async (...args: unknown[]) => {
        const o = args[1] as { ifVersion?: string } | undefined;
        if (armed && args[0] === path && o?.ifVersion === own) {
          armed = false;
          await b.pullChanged();
          await put(b, path, "the peer's edit");
          await b.pushChanged();
        }
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  const a = await clone(racing, "a");
  own = await createAnswerLost(store, a, path, "a's file");
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/${path}`);
  armed = true;
  const deleted = await a.pushChanged({ only: [path] });
  if (armed) throw new Error("the peer's edit did not land during the deletion");
  await Deno.remove(`${b.cacheDir}/${path}`);
  await writeCacheFile(b.cacheDir, `${path}/${under}`, "a part");
  await b.markDirty({ relPath: path });
  await b.pushChanged();
  await a.pullChanged();
  return { store, a, b, deleted };
}
