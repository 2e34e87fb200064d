/**
 * A cache copied with its state (a backup restored on another machine, a CI
 * cache restored on several runners) carries the writer id it was made
 * with: bound to the state directory it was made in, the id is not the
 * copy's, which takes one of its own, so a write of the one copy is never
 * taken for the other's.
 */
import assert from "node:assert/strict";
import { readWriterId } from "../transfer/writer_id.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, copyTree, put, read, v2Store } from "./clone_kit.ts";

Deno.test("a copy of a cache meeting the other copy's committed write, with an edit of its own, keeps both (a conflict), never writes over it", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  await put(a, path, "one");
  await a.pushChanged();
  const copyDir = `${await Deno.makeTempDir({ prefix: "sluice-copy-" })}/cache`;
  await copyTree(a.cacheDir, copyDir);
  const b = await clone(store, "b", copyDir);
  assert.equal(await readWriterId(b.cache), null, "the copied id is not the copy's");
  // The first copy commits an edit; the second edits too, then syncs.
  await put(a, path, "two");
  await a.pushChanged();
  await put(b, path, "three");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, [path], "the other copy's commit is a peer's change");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, path), "two", "the other copy's committed edit stands");
  assert.equal(await read(b, path), "three", "the copy's edit is kept here");
  assert.notEqual(await readWriterId(b.cache), await readWriterId(a.cache));
});

Deno.test("processes sharing one cache share its writer id", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/x.txt", "x");
  await a.pushChanged();
  const again = await clone(store, "a", a.cacheDir);
  assert.ok(await readWriterId(a.cache));
  assert.equal(await readWriterId(again.cache), await readWriterId(a.cache));
});
