/**
 * A resolution whose push (`--mine`) or pull (`--theirs`) fails part way (the
 * datastore unreachable) leaves the conflict open: `status` still lists it,
 * a plain push still leaves the path out, and the same resolution, run
 * again, completes it. Nothing of either side is lost meanwhile.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { bothSynced, clone, put, read } from "./clone_kit.ts";

const PATH = "notes/m.txt";

/** `b` holds a conflict at PATH: both edited it, `a` pushed first. */
async function conflicted() {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, PATH, "base", "a's edit");
  await a.pushChanged();
  await put(b, PATH, "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, [PATH]);
  return { store, b };
}

Deno.test("resolve --mine whose push fails keeps the conflict open; run again, it publishes", async () => {
  const { store, b } = await conflicted();
  store.failNext("put", 1, () => new UnreachableError("injected outage"));
  await assert.rejects(b.resolveConflict(PATH, "mine"), UnreachableError);
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  assert.equal(store.peekText(PATH), "a's edit");
  assert.equal(await read(b, PATH), "b's edit");
  const plain = await b.pushChanged();
  assert.deepEqual(plain.conflicts, [PATH], "a plain push leaves it out, as before");
  assert.equal(store.peekText(PATH), "a's edit");
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit");
  assert.deepEqual(b.conflicts(), []);
});

Deno.test("resolve --theirs whose pull fails keeps the conflict open, its copy back in place; run again, it takes theirs", async () => {
  const { store, b } = await conflicted();
  store.failNext("get", 1, () => new UnreachableError("injected outage"), {
    match: (k) => k === PATH,
  });
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  const rec = b.conflicts().find((c) => c.path === PATH);
  assert.ok(rec, "still open");
  assert.equal(rec.mine?.location, PATH);
  // Its synced version is back, on disk too: a service opened again sees it.
  const again0 = await clone(store, "b", b.cacheDir);
  assert.ok(again0.state.synced(PATH), "still synced at the version it had");
  assert.equal(await read(b, PATH), "b's edit", "the copy it had set aside is back in place");
  assert.ok(b.state.dirtyPaths().includes(PATH), "still a change of this cache's");
  const again = await b.resolveConflict(PATH, "theirs");
  assert.equal(again.resolved, true);
  assert.equal(await read(b, PATH), "a's edit");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(again.setAside.length, 1);
  assert.equal(await read(b, again.setAside[0]), "b's edit", "kept aside by the resolution");
});

Deno.test("after a --theirs cut off, a pull and then --mine publish this cache's copy, never theirs", async () => {
  const { store, b } = await conflicted();
  store.failNext("get", 1, () => new UnreachableError("injected outage"), {
    match: (k) => k === PATH,
  });
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  // The copy went back where it was: the cut-off resolution changed nothing here.
  assert.equal(await read(b, PATH), "b's edit");
  assert.deepEqual((await b.pullChanged()).conflicts, [PATH]);
  assert.equal(await read(b, PATH), "b's edit", "a pull keeps the copy in conflict");
  const r = await b.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit", "mine is what was published");
});

Deno.test("a --theirs that meets this cache's own upload no index names keeps the conflict open and both copies", async () => {
  const { store, b } = await conflicted();
  // A --mine whose upload landed and whose index write failed.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(b.resolveConflict(PATH, "mine"));
  assert.equal(store.peekText(PATH), "b's edit", "uploaded, not committed");
  const r = await b.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, false, "theirs was not there to take");
  for (const l of r.setAside) assert.ok(await read(b, l), `${l} named as set aside is there`);
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  const rec = b.conflicts()[0];
  assert.ok(rec.mine);
  assert.equal(await read(b, rec.mine.location), "b's edit", "mine is named where it is");
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit");
  assert.deepEqual(b.conflicts(), []);
});
