/**
 * A file created here whose push commit landed with its answer lost, then
 * deleted here: the deletion is pushed, the file never comes back.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, quick, read } from "./clone_kit.ts";

Deno.test("a created file whose commit answer was lost, deleted here, stays deleted", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  await put(a, path, "one");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: true,
    match: (k) => k === MONOLITH_KEY,
  });
  await assert.rejects(a.pushChanged());
  assert.ok((await readIndex(store, quick.retry))?.entries[path], "the commit landed");
  assert.equal(a.state.synced(path), undefined);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  await a.pushChanged();
  await a.pullChanged();
  assert.equal(await read(a, path), undefined, "the deletion here stands");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, path), undefined, "and reaches a peer");
});
