/**
 * A datastore holding objects but no index (filled by another tool, or its
 * index lost): the first pull or push names them in the index it writes,
 * and never names a write of Sluice's whose commit has not come.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { INDEX_KEY, readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick, read } from "./clone_kit.ts";
import { INDEX_DISCOVERED, UNINDEXED_WRITES_LEFT } from "./index_discovered.ts";

/** A bucket another tool filled: objects, no index. */
function filled(): InMemoryStore {
  const store = new InMemoryStore();
  store.seed("data/t/m/out/1/raw", "bytes another tool wrote");
  store.seed("notes/readme.md", "hello");
  return store;
}

Deno.test("a pull of a datastore with objects and no index names them in a new index and fetches them; a peer then pulls them from it", async () => {
  const store = filled();
  const a = await clone(store, "a");
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const r = await a.pullChanged();
  assert.deepEqual(r.fetched.sort(), ["data/t/m/out/1/raw", "notes/readme.md"]);
  assert.equal(await read(a, "notes/readme.md"), "hello");
  assert.ok(warnings.includes(INDEX_DISCOVERED));
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), ["data/t/m/out/1/raw", "notes/readme.md"]);
  const b = await clone(store, "b");
  store.resetLog();
  assert.deepEqual((await b.pullChanged()).fetched.sort(), [
    "data/t/m/out/1/raw",
    "notes/readme.md",
  ]);
  assert.ok(!store.log.some((l) => l.op === "list"), "the index is there now: no listing");
});

Deno.test("a push into a datastore with objects and no index writes an index naming them and its own", async () => {
  const store = filled();
  const a = await clone(store, "a");
  await put(a, "notes/mine.txt", "mine");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/mine.txt"]);
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), [
    "data/t/m/out/1/raw",
    "notes/mine.txt",
    "notes/readme.md",
  ]);
  const b = await clone(store, "b");
  assert.equal((await b.pullChanged()).fetched.length, 3);
  assert.equal(await read(b, "notes/readme.md"), "hello");
});

Deno.test("an empty datastore: a pull writes no index and lists once; a push's index names only its own", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  store.resetLog();
  const r = await a.pullChanged();
  assert.deepEqual(r.fetched, []);
  assert.ok(!store.log.some((l) => l.op === "put"), "nothing written");
  assert.equal(store.log.filter((l) => l.op === "list").length, 1);
  assert.equal(store.peek(INDEX_KEY), undefined);
  await put(a, "x.txt", "x");
  await a.pushChanged();
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))!.entries), ["x.txt"]);
});

Deno.test("a write of Sluice's whose commit has not come is never named by a discovery: a peer's pull and push leave it out and say so", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "outputs/o.yaml", "prepared");
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded, ["outputs/o.yaml"]);
  const b = await clone(store, "b");
  const warnings: string[] = [];
  b.events.on("warning", (w) => void warnings.push(w.code));
  assert.deepEqual((await b.pullChanged()).fetched, []);
  await put(b, "notes/b.txt", "b");
  await b.pushChanged();
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))!.entries), ["notes/b.txt"]);
  assert.ok(warnings.includes(UNINDEXED_WRITES_LEFT));
  assert.ok(!warnings.includes(INDEX_DISCOVERED));
  await a.commitPush(prepared);
  const c = await clone(store, "c");
  assert.deepEqual((await c.pullChanged()).fetched.sort(), ["notes/b.txt", "outputs/o.yaml"]);
});
