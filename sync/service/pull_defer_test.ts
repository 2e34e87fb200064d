/**
 * A pull that defers some paths (`defer` of `pullChanged`, swamp's lazy
 * hydration): what it leaves out, what it fetches all the same, and that
 * nothing it left out is taken for a change or a deletion afterwards.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { pullLeftBehind } from "./pull_result.ts";
import { clone, put, read } from "./clone_kit.ts";

const RAW = "data/t/m/out/1/raw";
const META = "data/t/m/out/1/metadata.yaml";
const isRaw = (p: string) => p.endsWith("/raw");

async function published() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, RAW, "the bytes");
  await put(a, META, "meta");
  await put(a, "data/t/m/out/latest", "1");
  await a.pushChanged();
  return { store, a };
}

Deno.test("a deferring pull leaves out what it defers, makes its directory, and leaves nothing behind; a pull without defer fetches it", async () => {
  const { store } = await published();
  const b = await clone(store, "b");
  const r = await b.pullChanged({ defer: isRaw });
  assert.deepEqual(r.deferred, [RAW]);
  assert.deepEqual(r.fetched.sort(), [META, "data/t/m/out/latest"]);
  assert.equal(await read(b, RAW), undefined);
  assert.ok((await Deno.stat(`${b.cacheDir}/data/t/m/out/1`)).isDirectory, "its directory is made");
  assert.deepEqual(pullLeftBehind(r), { conflicts: [], left: [] }, "deferred is not left behind");
  assert.equal(b.state.synced(RAW), undefined);
  assert.equal(b.state.indexVersion, undefined, "no index token: a full pull looks again");
  // Fetched by a pull of it (hydration), or by a pull without defer.
  const one = await b.pullChanged({ prefixes: [RAW] });
  assert.deepEqual(one.fetched, [RAW]);
  assert.equal(await read(b, RAW), "the bytes");
  const c = await clone(store, "c");
  await c.pullChanged({ defer: isRaw });
  const full = await c.pullChanged();
  assert.deepEqual(full.fetched, [RAW]);
  assert.ok(c.state.indexVersion !== undefined);
});

Deno.test("a deferring pull still fetches a deferred path this cache synced (kept fresh) and compares a local file it never synced", async () => {
  // A file of no data version (those are never rewritten), deferred all the same.
  const FILE = "notes/n/raw";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, FILE, "first");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  const c = await clone(store, "c");
  await put(c, FILE, "c's own copy", false);
  await put(a, FILE, "changed there");
  await a.pushChanged();
  const rb = await b.pullChanged({ defer: isRaw });
  assert.deepEqual(rb.fetched, [FILE], "a synced copy is brought up to date");
  assert.equal(await read(b, FILE), "changed there");
  const rc = await c.pullChanged({ defer: isRaw });
  assert.deepEqual(rc.deferred, [], "a local file is not nothing: it is compared");
  assert.equal(rc.setAside.length, 1, "never synced and different: set aside, theirs taken");
  assert.equal(await read(c, FILE), "changed there");
  assert.equal(await read(c, rc.setAside[0]), "c's own copy");
});

Deno.test("after a deferring pull, pushes delete nothing the pull left out: a walk, a marked directory, a deletion pushed beside it", async () => {
  const { store, a } = await published();
  // The marker names version 2 (a version its marker names is never deleted: version-under-marker).
  await put(a, "data/t/m/out/2/raw", "two");
  await put(a, "data/t/m/out/latest", "2");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged({ defer: isRaw });
  await b.markDirty();
  const walk = await b.pushChanged();
  assert.deepEqual(walk.deleted, []);
  assert.deepEqual(walk.localDeletions ?? [], [], "never synced here: not a deletion here");
  await put(b, "data/t/m/out/1/extra", "new", false);
  await Deno.remove(`${b.cacheDir}/${META}`);
  await b.markDirty({ relPath: "data/t/m/out/1" });
  const dir = await b.pushChanged();
  assert.deepEqual(dir.uploaded, ["data/t/m/out/1/extra"]);
  assert.deepEqual(dir.deleted, [META], "the synced file deleted here is deleted there, alone");
  assert.equal(store.peekText(RAW), "the bytes", "the deferred file stays on the datastore");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, RAW), "the bytes");
});
