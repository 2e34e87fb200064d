/**
 * A deletion under a marked directory whose object delete landed but whose
 * index update never came (the push cut off), and the file then put back
 * by hand as it was synced: the next push must write it again, or the index
 * names an object the store no longer holds (chaos seed 45200526, I7/I8).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";

async function cutOffDeletion() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/a.txt", "synced a");
  await put(a, "notes/b.txt", "synced b");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  // The user removes notes/ by hand and pushes the directory; the index write is cut off.
  await Deno.remove(`${a.cacheDir}/notes`, { recursive: true });
  await a.markDirty({ relPath: "notes" });
  store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText("notes/a.txt"), undefined, "the object delete landed");
  assert.ok(
    (await readIndex(store, quick.retry))?.entries["notes/a.txt"],
    "the index still names it",
  );
  return { store, a, b };
}

Deno.test("a deletion cut off before its commit, then undone by hand: the next push writes the file again", async () => {
  const { store, a, b } = await cutOffDeletion();
  // The user puts a.txt back as it was synced, and leaves b.txt deleted.
  await Deno.mkdir(`${a.cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/notes/a.txt`, "synced a");
  await a.pushChanged();
  assert.equal(store.peekText("notes/a.txt"), "synced a", "written again");
  const index = await readIndex(store, quick.retry);
  assert.ok(index?.entries["notes/a.txt"]);
  assert.equal(index?.entries["notes/b.txt"], undefined, "the other deletion committed");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, "notes/a.txt"), "synced a", "a fresh clone gets it");
  await b.pullChanged();
  assert.equal(await read(b, "notes/a.txt"), "synced a");
  assert.equal(await read(b, "notes/b.txt"), undefined);
});

Deno.test("a deletion cut off before its commit, undone by hand, while a peer committed the deletion: the deletion stands", async () => {
  const { store, a, b } = await cutOffDeletion();
  await Deno.remove(`${b.cacheDir}/notes/a.txt`);
  await b.markDirty({ relPath: "notes/a.txt" });
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries["notes/a.txt"], undefined);
  await Deno.mkdir(`${a.cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/notes/a.txt`, "synced a");
  await a.pushChanged().catch(() => {});
  assert.equal(
    (await readIndex(store, quick.retry))?.entries["notes/a.txt"],
    undefined,
    "b's deletion stands",
  );
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, "notes/a.txt"), undefined);
});
