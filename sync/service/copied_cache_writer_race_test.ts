/**
 * Two processes opening a copied cache at once (its writer id made under
 * another state directory) take one writer id between them, as two
 * processes making a new cache's id do.
 */
import assert from "node:assert/strict";
import { ensureWriterId, readWriterId } from "../transfer/writer_id.ts";
import { clone, copyTree, put, v2Store } from "./clone_kit.ts";

Deno.test("two processes taking a copied cache's writer id at once take the same one", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  await put(a, "notes/x.txt", "x");
  await a.pushChanged();
  const copyDir = `${await Deno.makeTempDir({ prefix: "sluice-copy-" })}/cache`;
  await copyTree(a.cacheDir, copyDir);
  const b1 = await clone(store, "b", copyDir);
  const b2 = await clone(store, "b", copyDir);
  const [id1, id2] = await Promise.all([
    ensureWriterId(b1.cache, false),
    ensureWriterId(b2.cache, false),
  ]);
  const kept = await readWriterId(b1.cache);
  assert.notEqual(kept, await readWriterId(a.cache));
  assert.equal(id1, kept, "the first process's uploads carry the cache's id");
  assert.equal(id2, kept, "the second process's uploads carry the cache's id");
});
