/**
 * Cases a review of the shape and stranded-upload changes found: a peer's
 * committed entry whose object went outside Sluice is never taken out as a
 * deletion when this cache withdraws its own upload there; a file under a
 * name both shapes of which stand already is published also when the file
 * and the files beside it lie in different shards of a v2 index; a
 * resolution beside such a name goes through as a push does, reading only
 * the shards around its path; and taking an old client's change as theirs
 * is not called newer when it is the same copy.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../errors.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";
import { assertIndexCurrent, clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/shared.txt";

async function v2Store(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  const meta = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
  await store.put(META_KEY, metaBody(meta), { kind: "create" });
  return store;
}

Deno.test("withdrawing an own upload where a peer's committed object went outside Sluice: the peer keeps its copy, told as lost, never as a deletion", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  await put(b, PATH, "b's change");
  await b.pushChanged();
  await store.delete(PATH); // outside Sluice: the index names b's version, nothing is there
  const a = await clone(store, "a");
  await put(a, PATH, "a's file");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(a.pushChanged());
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  assert.deepEqual((await a.pushChanged()).strandedChecks, [{ path: PATH, outcome: "withdrawn" }]);
  await assertIndexCurrent(store, { held: true });
  await pastDanglingGrace(b);
  const p = await b.pullChanged();
  assert.deepEqual(p.removed, []);
  assert.equal(await read(b, PATH), "b's change", "b's committed change is kept");
  assert.deepEqual(p.conflicts, [PATH], "told, as a file the datastore lost");
  assert.match(b.conflicts()[0].reason, /its object is gone from the store/);
});

Deno.test("v2: a new file under a name the datastore holds both shapes of, the file and the files beside it in different shards: published, not held for good", async () => {
  const store = await v2Store();
  const FILE = "data/t/m/a"; // shard data--t--m
  const BESIDE = "data/t/m/a/x"; // shard data--t--m--a
  const NEW = "data/t/m/a/b/c"; // shard data--t--m
  const a = await clone(store, "a");
  await put(a, BESIDE, "under a directory");
  await a.pushChanged();
  await peerPush(store, { [FILE]: "a file" }); // an old client's, beside it
  await a.pullChanged();
  await put(a, NEW, "a's file under the directory");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, [NEW]);
  assert.deepEqual(r.skipped, []);
  const names = Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).sort();
  assert.deepEqual(names, [FILE, BESIDE, NEW].sort());
  await assertIndexCurrent(store, { held: true });
});

Deno.test("resolve --mine under a name the datastore holds both shapes of already goes through, as a push of a new file there does", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "clash/x.txt", "x1");
  await put(a, "clash/z.txt", "z");
  await a.pushChanged();
  await peerPush(store, { clash: "a file" });
  const c = await clone(store, "c");
  await c.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash/x.txt`);
  await a.markDirty({ relPath: "clash/x.txt" });
  assert.deepEqual((await a.pushChanged()).deleted, ["clash/x.txt"]);
  await put(c, "clash/x.txt", "c's edit");
  assert.deepEqual((await c.pushChanged()).conflicts, ["clash/x.txt"]);
  const r = await c.resolveConflict("clash/x.txt", "mine");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText("clash/x.txt"), "c's edit");
});

Deno.test("resolve --mine of a deletion on a v2 index of many shards reads only the shards around its path", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  for (let i = 0; i < 60; i++) await put(a, `workflow-runs/r${i}/out.txt`, `${i}`);
  await put(a, "notes/n.txt", "1");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/notes/n.txt`);
  await a.markDirty({ relPath: "notes/n.txt" });
  await a.pushChanged();
  await put(b, "notes/n.txt", "b's edit");
  assert.deepEqual((await b.pushChanged()).conflicts, ["notes/n.txt"]);
  const before = store.log.length;
  assert.equal((await b.resolveConflict("notes/n.txt", "mine")).resolved, true);
  const shardGets = store.log.slice(before).filter((q) =>
    q.op === "get" && q.key.startsWith("_index/") && q.key !== META_KEY
  );
  assert.ok(shardGets.length <= 4, `${shardGets.length} shard reads`);
});

for (const found of ["push", "pull"] as const) {
  Deno.test(`resolve --theirs of an old client's change the ${found} found, unchanged since: not told as newer`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    await put(a, "config/app.yaml", "v1");
    await a.pushChanged();
    await peerPush(store, { "config/app.yaml": "old client's v2" });
    await put(a, "config/app.yaml", "a's edit");
    const met = found === "push" ? await a.pushChanged() : await a.pullChanged();
    assert.deepEqual(met.conflicts, ["config/app.yaml"]);
    const r = await a.resolveConflict("config/app.yaml", "theirs");
    assert.equal(await read(a, "config/app.yaml"), "old client's v2");
    assert.equal(r.tookNewer, undefined);
  });
}
