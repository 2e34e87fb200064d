/**
 * A pull that holds back some directories (`holdBack` of `pullChanged`: the
 * extension's, under another run's held model lock): what is under them is
 * left as it is, and the next pull without it takes what changed there.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

const DIR = "data/t/m";
const RAW = `${DIR}/out/1/raw`;
const OTHER = "data/t/n/out/1/raw";

Deno.test("a pull holding back a directory leaves a local copy there as it is (never set aside for the datastore's), takes what is elsewhere, and keeps no index token", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(b, RAW, "b's own, unpublished", false);
  await put(a, RAW, "a's");
  await put(a, OTHER, "a's other");
  await a.pushChanged();
  const r = await b.pullChanged({ holdBack: [DIR] });
  assert.deepEqual(r.fetched, [OTHER]);
  assert.deepEqual(r.conflicts, []);
  assert.equal(await read(b, RAW), "b's own, unpublished");
  assert.equal(b.state.indexVersion, undefined, "no index token: a full pull looks again");
  // Without it, the copy here (never synced, other bytes) is set aside for the datastore's.
  const again = await b.pullChanged();
  assert.deepEqual(again.fetched, [RAW]);
  assert.equal(await read(b, RAW), "a's");
});

Deno.test("a pull holding back a directory leaves a synced file there that the datastore no longer holds", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, RAW, "a's");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/${RAW}`);
  await a.markDirty({ relPath: RAW });
  await a.pushChanged();
  const r = await b.pullChanged({ holdBack: [DIR] });
  assert.deepEqual(r.removed, []);
  assert.equal(await read(b, RAW), "a's");
  const again = await b.pullChanged();
  assert.deepEqual(again.removed, [RAW]);
  assert.equal(await read(b, RAW), undefined);
});
