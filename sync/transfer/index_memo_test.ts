/**
 * The memo's v2 meta: a fresh process's one-file push writes its shard and
 * the meta without reading the meta first; a stale or wrong memo costs a
 * read, never a lost or misplaced entry; under contention the meta is read
 * after the shards.
 */
import assert from "node:assert/strict";
import { createSyncService, type SyncService } from "../service/service.ts";
import {
  FakeClock,
  InMemoryStore,
  peerPush,
  peerReadIndex,
  seedPeerBucket,
} from "../../packages/testing/mod.ts";
import { META_KEY, MONOLITH_KEY, monolithBody } from "./bucket_layout.ts";
import { IndexMemo } from "./index_memo.ts";
import { updateIndex } from "./remote_index.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

const open = async (store: InMemoryStore, cacheDir: string): Promise<SyncService> =>
  await createSyncService({
    cacheDir,
    store,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
  });

async function write(svc: SyncService, path: string, text: string) {
  const file = `${svc.cacheDir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
  await svc.markDirty({ relPath: path });
}

/** Commits one index entry through `updateIndex` with `memo`. */
const commitOne = (store: InMemoryStore, path: string, memo: IndexMemo) =>
  updateIndex(
    store,
    { set: { [path]: { v: "x1", h: "a".repeat(64), s: 1 } }, remove: [] },
    quick.retry,
    undefined,
    memo,
  );

/** A v2 bucket holding one file. */
async function v2Bucket(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  await seedPeerBucket(store, { "data/t/m/d/1/raw": "one" }, { v2: true });
  return store;
}

const requests = (store: InMemoryStore) => store.log.map((r) => `${r.op} ${r.key}`);

Deno.test("v2: a fresh process's one-file push writes the file, the shard and the meta after one shard read (4 requests)", async () => {
  const store = await v2Bucket();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-memo-" });
  await (await open(store, cacheDir)).pullChanged();

  const fresh = await open(store, cacheDir); // a new process: nothing held in memory
  await write(fresh, "data/t/m/d/2/raw", "two");
  store.resetLog();
  await fresh.pushChanged();
  assert.deepEqual(requests(store), [
    "put data/t/m/d/2/raw",
    "get _index/data--t--m.json",
    "put _index/data--t--m.json",
    "put _index/_meta.json",
  ]);
  assert.ok((await peerReadIndex(store))["data/t/m/d/2/raw"], "an old client sees it");
});

Deno.test("v2: a stale remembered meta costs one refused write and a read; the peer's commit and this one both stay", async () => {
  const store = await v2Bucket();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-memo-" });
  await (await open(store, cacheDir)).pullChanged();
  await peerPush(store, { "data/t/other/d/1/raw": "theirs" });

  const fresh = await open(store, cacheDir);
  await write(fresh, "data/t/m/d/2/raw", "two");
  await fresh.pushChanged();
  const index = await peerReadIndex(store);
  assert.ok(index["data/t/m/d/2/raw"] && index["data/t/other/d/1/raw"]);
});

Deno.test("a remembered v2 meta of a bucket whose meta is gone (turned v1) is dropped: the change goes to the v1 index", async () => {
  const store = await v2Bucket();
  const file = `${await Deno.makeTempDir({ prefix: "sluice-memo-" })}/index-meta.json`;
  const first = new IndexMemo(file);
  await commitOne(store, "data/t/m/d/2/raw", first);
  assert.equal((await first.meta())?.meta.version, 2);

  await store.delete(META_KEY);
  await store.put(MONOLITH_KEY, monolithBody({}, new Date(0).toISOString()), { kind: "overwrite" });
  const memo = new IndexMemo(file); // a fresh process: the meta comes from the file
  await commitOne(store, "data/t/m/d/3/raw", memo);
  assert.ok(JSON.parse(store.peekText(MONOLITH_KEY)!).entries["data/t/m/d/3/raw"]);
  assert.equal(await memo.meta(), undefined);
  assert.equal(await new IndexMemo(file).meta(), undefined, "and forgotten in the file");
});

Deno.test("v2: once contended, the meta is read after the shards land, not before", async () => {
  const store = await v2Bucket();
  const memo = new IndexMemo();
  await commitOne(store, "data/t/m/d/2/raw", memo);
  memo.contended = true;
  store.resetLog();
  await commitOne(store, "data/t/m/d/3/raw", memo);
  assert.deepEqual(requests(store), [
    "get _index/data--t--m.json",
    "put _index/data--t--m.json",
    "get _index/_meta.json",
    "put _index/_meta.json",
  ]);
});

Deno.test("a remembered meta of another store is not used", async () => {
  const file = `${await Deno.makeTempDir({ prefix: "sluice-memo-" })}/index-meta.json`;
  const store = await v2Bucket();
  const memo = new IndexMemo(file, "s3://a");
  await commitOne(store, "data/t/m/d/2/raw", memo);
  assert.ok(await new IndexMemo(file, "s3://a").meta());
  assert.equal(await new IndexMemo(file, "s3://b").meta(), undefined);
});

Deno.test("v2: the zero-diff pull after this cache's own push lists the shards once (2 requests), then costs 1", async () => {
  const store = await v2Bucket();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-memo-" });
  const svc = await open(store, cacheDir);
  await svc.pullChanged();
  await write(svc, "data/t/m/d/2/raw", "two");
  await svc.pushChanged();
  store.resetLog();
  assert.equal((await svc.pullChanged()).unchanged, true);
  assert.deepEqual(requests(store), ["get _index/_meta.json", "list _index/"]);
  store.resetLog();
  const fresh = await open(store, cacheDir); // the listing was kept for the next process too
  assert.equal((await fresh.pullChanged()).unchanged, true);
  assert.deepEqual(requests(store), ["get _index/_meta.json"]);
});
