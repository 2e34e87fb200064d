/**
 * A cache's first push into a datastore with no index makes the index as its
 * uploads begin: the listing that names what was there runs before the
 * uploads fill the bucket, and the commit lists nothing.
 */
import assert from "node:assert/strict";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import type { ObjectStore } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import { INDEX_KEY, readIndex } from "../transfer/remote_index.ts";
import { clone as defaultClone, put, quick, read } from "./clone_kit.ts";
import { INDEX_DISCOVERED, UNINDEXED_WRITES_LEFT } from "./index_discovered.ts";
import { hasCode } from "../errors.ts";
import { isFirstPush } from "./push_first_index.ts";

const FILES = ["notes/a.md", "notes/b.md", "notes/c.md"];

/** A clone whose first push of one file or more makes the index first (`firstIndexAtUploads` 1). */
const clone = (store: ObjectStore, name: string, config: Partial<SyncConfig> = {}) =>
  defaultClone(store, name, undefined, { firstIndexAtUploads: 1, ...config });

/**
 * `store`, whose `list` calls `onList` first (and waits for it), and whose
 * data puts (keys under `notes/`) wait for `beforeData`.
 */
function watched(
  store: InMemoryStore,
  hooks: { onList?: () => Promise<void>; beforeData?: () => Promise<void> },
): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "list") {
        return async function* (...args: unknown[]) {
          await hooks.onList?.();
          yield* value.apply(target, args);
        };
      }
      if (prop === "put") {
        return async (key: string, ...rest: unknown[]) => {
          if (key.startsWith("notes/")) await hooks.beforeData?.();
          return await value.call(target, key, ...rest);
        };
      }
      return value.bind(target);
    },
  });
}

Deno.test("a first push into an empty datastore lists it while its uploads wait, and its commit lists nothing", async () => {
  const raw = new InMemoryStore();
  const clock = new FakeClock();
  let listed = false;
  // The uploads wait until a listing has run: only a listing made as the
  // push begins (not at its commit, after every upload) lets them go.
  const store = watched(raw, {
    onList: () => {
      listed = true;
      return Promise.resolve();
    },
    beforeData: () => waitFor(() => listed, { clock, message: "no listing before the uploads" }),
  });
  const a = await clone(store, "a");
  for (const f of FILES) await put(a, f, f);
  raw.resetLog();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.sort(), FILES);
  assert.equal(raw.count("list"), 1, "one listing, before the uploads; none at the commit");
  const index = await readIndex(raw, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), FILES);
  // The index was made first (empty), then written again by the commit.
  assert.equal(raw.log.filter((l) => l.op === "put" && l.key === INDEX_KEY).length, 2);
});

Deno.test("the commit over the index a first push made reads no shard (none was written at it) and creates each", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const data = ["data/t/m1/out/1/raw", "data/t/m2/out/1/raw", "data/t/m3/out/1/raw"];
  for (const f of data) await put(a, f, f);
  store.resetLog();
  await a.pushChanged();
  const shardPuts = store.log.filter((l) =>
    l.op === "put" && l.key.startsWith("_index/") && l.key !== "_index/_meta.json"
  );
  assert.equal(shardPuts.length, 3);
  assert.ok(shardPuts.every((l) => l.mode === "create" && l.outcome === "ok"));
  assert.deepEqual(
    store.log.filter((l) => l.op !== "put" && /^_index\/data/.test(l.key)).map((l) => l.op),
    [],
    "no shard read",
  );
  const b = await defaultClone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched.sort(), data);
});

Deno.test("a first push's own uploads, met by its early listing, are neither named by it nor reported as left behind", async () => {
  const raw = new InMemoryStore();
  raw.seed("data/t/m/out/1/raw", "bytes another tool wrote");
  const clock = new FakeClock();
  // The listing waits until every upload has landed, so it meets them all.
  const store = watched(raw, {
    onList: () =>
      waitFor(() => FILES.every((f) => raw.peek(f) !== undefined), {
        clock,
        message: "the uploads did not land",
      }),
  });
  const a = await clone(store, "a");
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  for (const f of FILES) await put(a, f, f);
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.sort(), FILES);
  assert.ok(!warnings.includes(UNINDEXED_WRITES_LEFT), warnings.join(", "));
  assert.ok(warnings.includes(INDEX_DISCOVERED), "the other tool's object was named");
  const index = await readIndex(raw, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), ["data/t/m/out/1/raw", ...FILES]);
  // Named by this push's commit (with the versions it wrote), not by the discovery.
  for (const f of FILES) {
    assert.equal(index!.entries[f].v, (await raw.head(f))!.version);
    assert.ok(index!.entries[f].h, `${f} is named with its hash`);
  }
});

Deno.test("a first push into a datastore with an index writes the index once, at its commit, and lists nothing", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  await put(b, "notes/b.md", "b");
  await b.pushChanged();
  const a = await clone(store, "a");
  await put(a, "notes/a.md", "a");
  store.resetLog();
  await a.pushChanged();
  assert.equal(store.count("list"), 0);
  assert.equal(store.log.filter((l) => l.op === "put" && l.key === INDEX_KEY).length, 1);
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), ["notes/a.md", "notes/b.md"]);
});

Deno.test("a push of a cache that synced before reads no index before its uploads", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/a.md", "1");
  await a.pushChanged();
  await put(a, "notes/a.md", "2");
  store.resetLog();
  await a.pushChanged();
  const firstData = store.log.findIndex((l) => l.op === "put" && l.key === "notes/a.md");
  assert.ok(firstData >= 0);
  assert.deepEqual(
    store.log.slice(0, firstData).filter((l) => l.key === INDEX_KEY || l.op === "list"),
    [],
  );
});

Deno.test("a first push whose early listing fails makes the index at its commit, naming what was there", async () => {
  const store = new InMemoryStore();
  store.seed("data/t/m/out/1/raw", "bytes another tool wrote");
  store.failNext("list", 1);
  const a = await clone(store, "a");
  await put(a, "notes/a.md", "a");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/a.md"]);
  assert.equal(store.count("list"), 2, "the failed early listing, then the commit's");
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), ["data/t/m/out/1/raw", "notes/a.md"]);
});

Deno.test("isFirstPush: nothing synced and no index token", () => {
  assert.equal(isFirstPush({ syncedCount: 0, indexVersion: undefined }), true);
  assert.equal(isFirstPush({ syncedCount: 1, indexVersion: undefined }), false);
  assert.equal(isFirstPush({ syncedCount: 0, indexVersion: "v1:3" }), false);
});

Deno.test("with one request at a time (concurrency 1), the index is made before the first upload", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a", { concurrency: 1 });
  for (const f of FILES) await put(a, f, f);
  store.resetLog();
  await a.pushChanged();
  const firstData = store.log.findIndex((l) => l.op === "put" && FILES.includes(l.key));
  const made = store.log.findIndex((l) => l.op === "put" && l.key === INDEX_KEY);
  assert.ok(made >= 0 && made < firstData, "the index write comes before every upload");
  assert.equal(store.log.findIndex((l, i) => i > firstData && l.op === "list"), -1);
});

Deno.test("a first push of fewer files than firstIndexAtUploads (default 200), or with it 0, makes the index at its commit", async () => {
  const store = new InMemoryStore();
  const a = await defaultClone(store, "a");
  for (const f of FILES) await put(a, f, f);
  store.resetLog();
  await a.pushChanged();
  const lastData = store.log.findLastIndex((l) => l.op === "put" && FILES.includes(l.key));
  const listing = store.log.findIndex((l) => l.op === "list");
  assert.ok(listing > lastData, "one listing, at the commit");
  assert.equal(store.log.filter((l) => l.op === "put" && l.key === INDEX_KEY).length, 1);
  // 0: never first, whatever the push's size.
  const fresh = new InMemoryStore();
  const b = await clone(fresh, "b", { firstIndexAtUploads: 0 });
  for (const f of FILES) await put(b, f, f);
  await b.pushChanged();
  const bData = fresh.log.findLastIndex((l) => l.op === "put" && FILES.includes(l.key));
  assert.ok(fresh.log.findIndex((l) => l.op === "list") > bData);
  assert.equal(fresh.log.filter((l) => l.op === "put" && l.key === INDEX_KEY).length, 1);
});

Deno.test("another tool's data version at a path a first push writes too stays named: the push loses the version, a peer pulls theirs", async () => {
  const store = new InMemoryStore();
  store.seed("data/t/m/out/1/raw", "theirs");
  const a = await clone(store, "a");
  await put(a, "data/t/m/out/1/raw", "mine");
  await put(a, "notes/x.md", "x");
  await assert.rejects(a.pushChanged(), (e) => hasCode(e, "version_exists"));
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), ["data/t/m/out/1/raw", "notes/x.md"]);
  const b = await defaultClone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched.sort(), ["data/t/m/out/1/raw", "notes/x.md"]);
  assert.equal(await read(b, "data/t/m/out/1/raw"), "theirs");
});

Deno.test("another tool's marker at a path a first push writes too stays named: the push leaves it a conflict, a peer pulls theirs", async () => {
  const store = new InMemoryStore();
  store.seed("data/t/m/latest", "theirs");
  const a = await clone(store, "a");
  await put(a, "data/t/m/latest", "mine");
  await put(a, "notes/x.md", "x");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/x.md"]);
  assert.deepEqual(r.skipped.map((x) => [x.path, x.keepDirty]), [["data/t/m/latest", true]]);
  assert.equal(store.peekText("data/t/m/latest"), "theirs");
  const b = await defaultClone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched.sort(), ["data/t/m/latest", "notes/x.md"]);
  assert.equal(await read(b, "data/t/m/latest"), "theirs");
});

Deno.test("a prepared first push makes the index first too; its commit names its files and lists nothing", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const f of FILES) await put(a, f, f);
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded.sort(), FILES);
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))!.entries), []);
  store.resetLog();
  await a.commitPush(prepared);
  assert.equal(store.count("list"), 0);
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))!.entries).sort(), FILES);
});
