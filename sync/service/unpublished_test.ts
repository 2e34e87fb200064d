/**
 * A push whose write met another writer's uncommitted object with the same
 * bytes ("identical") commits that object as its own; when the object is
 * deleted before the commit (its writer's run refused and erased), nothing
 * is published: the push must say so and keep the file, never record it as
 * synced (the next pull would take the missing entry for a remote deletion).
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

const P = "notes/same.txt";
const isIndexKey = (k: string) => k === ".datastore-index.json" || k.startsWith("_index/");

Deno.test("equal bytes erased before a commit whose first index write was refused: not reported published, the file kept", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  await put(b, "notes/other.txt", "x");
  await b.pushChanged();
  await put(b, P, "same");
  await b.preparePush(); // b's object is in the store, never committed
  const c = await clone(store, "c");
  await c.pullChanged();
  let armed = true;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (armed && isIndexKey(key)) {
          armed = false;
          await store.delete(P); // b's upload erased (its run refused)
          // A peer commits first: a's index write is refused, a commits in a second round.
          await put(c, "notes/peer.txt", "p");
          await c.pushChanged();
        }
      },
    }),
    "a",
  );
  await put(a, P, "same");
  const ra = await a.pushChanged();
  assert.ok(!ra.identical.includes(P), "not reported as published");
  assert.deepEqual(ra.skipped.filter((s) => s.keepDirty).map((s) => s.path), [P]);
  await a.pullChanged();
  assert.equal(await read(a, P), "same", "a's file is still here after its next pull");
  // a's next push publishes it.
  assert.deepEqual((await a.pushChanged()).uploaded, [P]);
  assert.equal(store.peekText(P), "same");
});
