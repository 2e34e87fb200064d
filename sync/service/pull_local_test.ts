/**
 * The pull's look at the copies here (`pull_local.ts`): a copy an open
 * conflict names at its path is a local change, even when it holds the
 * bytes this cache last synced (a merge that took theirs' bytes, rebased on
 * theirs by its resolution, which then met a newer version of theirs): the
 * pull keeps it, as it keeps any copy in conflict, and the conflict stays
 * what it says.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

const PATH = "notes/n.txt";

Deno.test("a pull keeps a merge that met a newer version of theirs, though it holds the bytes it was rebased on", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "a1");
  await a.pushChanged();
  await b.pullChanged();
  // Both change the path: b's pull records the conflict (theirs: a2).
  await put(b, PATH, "b1");
  await put(a, PATH, "a2");
  await a.pushChanged();
  await b.pullChanged();
  assert.equal(b.conflicts()[0]?.theirs?.version, (await store.head(PATH))?.version);
  // A third write lands before b's resolution; b's merge is theirs' bytes (a2).
  await put(a, PATH, "a3");
  await a.pushChanged();
  await put(b, PATH, "a2", false);
  const r = await b.resolveConflict(PATH, "merged");
  assert.equal(r.resolved, false, "the merge met a newer version of theirs: a new conflict");
  assert.equal(await read(b, PATH), "a2", "the merge stays in the cache");
  assert.equal(b.conflicts()[0]?.mine?.location, PATH);
  // The next pull never writes theirs over the copy the open conflict names.
  await b.pullChanged();
  assert.equal(await read(b, PATH), "a2", "the merge the open conflict names is kept");
  const rec = b.conflicts()[0];
  assert.equal(rec?.theirs?.version, (await store.head(PATH))?.version);
  assert.equal(rec.mine?.location, PATH);
  // Published with --mine, as the conflict says.
  assert.equal((await b.resolveConflict(PATH, "mine")).resolved, true);
  assert.equal(store.peekText(PATH), "a2");
});
