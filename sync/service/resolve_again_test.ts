/**
 * A resolution that meets a newer version of theirs (a third writer in
 * between) is a new conflict, never a loss: the copies an earlier conflict
 * of the path set aside stay named by the new record, as they would by any
 * later conflict of the path.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

const PATH = "notes/n.txt";

Deno.test("resolve --mine meeting a newer version of theirs keeps naming the copies set aside earlier", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "a1");
  await a.pushChanged();
  // Pull 1 sets b's copy, never synced, aside; b then edits the path again by hand.
  await put(b, PATH, "b's first copy", false);
  const aside = (await b.pullChanged()).setAside[0];
  await put(b, PATH, "b's second copy", false);
  await put(a, PATH, "a2");
  await a.pushChanged();
  await b.pullChanged();
  assert.deepEqual(b.conflicts()[0].keptAside?.map((k) => k.location), [aside]);
  // A third writer lands before b's resolution.
  await put(a, PATH, "a3");
  await a.pushChanged();
  const r = await b.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, false);
  assert.equal(store.peekText(PATH), "a3", "the third write is not lost");
  assert.equal(await read(b, PATH), "b's second copy", "b's copy is not lost");
  const rec = b.conflicts()[0];
  assert.equal(rec?.theirs?.version, (await store.head(PATH))?.version);
  assert.deepEqual(
    rec.keptAside?.map((k) => k.location),
    [aside],
    `the first set-aside copy is still named: ${JSON.stringify(rec)}`,
  );
  assert.equal(await read(b, aside), "b's first copy");
});

Deno.test("resolve --mine of a copy set aside, meeting a newer version of theirs, keeps it named", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "a1");
  await a.pushChanged();
  await put(b, PATH, "b's copy", false);
  const aside = (await b.pullChanged()).setAside[0];
  assert.equal(b.conflicts()[0].mine?.location, aside);
  await put(a, PATH, "a2");
  await a.pushChanged();
  const r = await b.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, false);
  assert.equal(store.peekText(PATH), "a2");
  assert.equal(await read(b, PATH), "b's copy", "put back in place, kept");
  const rec = b.conflicts()[0];
  assert.equal(rec?.theirs?.version, (await store.head(PATH))?.version);
  assert.equal(rec.mine?.location, PATH);
  assert.deepEqual(rec.keptAside?.map((k) => k.location), [aside], "the copy left aside is named");
  assert.equal(await read(b, aside), "b's copy");
});
