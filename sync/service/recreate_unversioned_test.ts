/**
 * A file whose index entry names no object version (another tool's object,
 * named by the listing that made the first index; an old client's write),
 * deleted by this cache's push that stopped before its index commit, then
 * written here again: the next push creates it again over that uncommitted
 * deletion, as it does over a versioned entry, not a conflict with a
 * deletion nobody made (chaos seed 60701182).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";

const P = "notes/shared.txt";

Deno.test("a file named without an object version, deleted by a push cut off before its commit, is created again by the next push", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("another tool's\n"), PutModes.create);
  const a = await clone(store, "a");
  await a.pullChanged(); // makes the first index, naming P as it found it
  assert.equal(await read(a, P), "another tool's\n");
  assert.ok((await readIndex(store, quick.retry))?.entries[P]?.v.startsWith("~"));
  await Deno.remove(`${a.cacheDir}/${P}`);
  await a.markDirty({ relPath: P });
  await a.preparePush(); // deletes the object; its commit never runs
  assert.equal(store.peek(P), undefined);
  await put(a, P, "mine again\n");
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, [], "no conflict with a deletion nobody committed");
  assert.deepEqual(r.uploaded, [P]);
  assert.equal(store.peekText(P), "mine again\n");
  await assertIndexCurrent(store, { held: true });
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, P), "mine again\n");
});

Deno.test("an entry without an object version that names other bytes than this cache synced (another writer's change) is still a conflict", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("another tool's\n"), PutModes.create);
  const a = await clone(store, "a");
  await a.pullChanged();
  // An old client's change of the same size, committed, then its object deleted.
  const size = "another tool's\n".length;
  await updateIndex(store, {
    set: { [P]: { v: "~changed", h: "f".repeat(64), s: size } },
    remove: [],
  }, quick.retry);
  await store.delete(P);
  await put(a, P, "mine again\n");
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, [P], "not written over a change this cache never saw");
  assert.equal(store.peek(P), undefined);
});
