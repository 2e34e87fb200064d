/**
 * A file created here whose push commit landed with its answer lost, then
 * deleted here: the deletion is pushed, the file never comes back.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, createAnswerLost, read } from "./clone_kit.ts";

Deno.test("a created file whose commit answer was lost, deleted here, stays deleted", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  assert.ok(await createAnswerLost(store, a, path, "one"), "the commit landed");
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
