import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import { deleteUploads, recomputeLatest } from "./erasure_steps.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { MONOLITH_KEY, monolithBody } from "../sync/transfer/bucket_layout.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);
const D = "data/t/m/d";

function fresh() {
  return erasureFixture("sluice-erasure-steps-");
}

Deno.test("recomputeLatest matches the synced copy byte for byte, or forgets it", async () => {
  const f = await fresh();
  await f.synced(`${D}/1/raw`, "a");
  await f.synced(`${D}/latest`, "1\n");
  await f.dirty(`${D}/latest`, "2");
  const kept = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(kept, { path: `${D}/latest`, version: 1, dirty: false, was: "2" });
  assert.equal(text(await f.cache.read(`${D}/latest`)), "1\n");
  assert.deepEqual(f.state.dirtyPaths(), []);

  await f.synced(`${D}/latest`, "7"); // the synced marker names something no longer local
  await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.equal(text(await f.cache.read(`${D}/latest`)), "1");
  assert.equal(f.state.synced(`${D}/latest`), undefined); // the next pull refreshes it
  assert.deepEqual(f.state.dirtyPaths(), []);
});

Deno.test("recomputeLatest leaves a marker naming a version still here as it is (one set by hand after the run)", async () => {
  const f = await fresh();
  await f.synced(`${D}/1/raw`, "a");
  await f.synced(`${D}/2/raw`, "b");
  await f.synced(`${D}/latest`, "2");
  await f.dirty(`${D}/latest`, "1"); // one back, by hand; the refused run's version 3 is gone
  const kept = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(kept, { path: `${D}/latest`, version: 1, dirty: true });
  assert.equal(text(await f.cache.read(`${D}/latest`)), "1");
  assert.deepEqual(f.state.dirtyPaths(), [`${D}/latest`], "it is pushed as set");
});

Deno.test("deleteUploads falls back to compare-then-delete where conditional deletes are refused", async () => {
  const store = new InMemoryStore();
  const a = await store.put("k1", enc("a"), PutModes.overwrite);
  const b = await store.put("k2", enc("b"), PutModes.overwrite);
  await store.put("k2", enc("peer"), PutModes.overwrite);
  store.conditionalMode = "refuse";
  const r = await deleteUploads(store, [
    { path: "k1", version: a.version },
    { path: "k2", version: b.version },
  ]);
  assert.deepEqual(r, { deleted: ["k1"], kept: ["k2"], pending: [] });
  assert.equal(store.peekText("k2"), "peer");
});

Deno.test("deleteUploads keeps an upload the remote index names: a peer committed it as its own", async () => {
  const store = new InMemoryStore();
  const a = await store.put("data/t/m/d/2/raw", enc("same"), PutModes.create);
  const b = await store.put("data/t/m/d/2/metadata.yaml", enc("v"), PutModes.create);
  const entries = { "data/t/m/d/2/raw": { v: a.version, h: await sha256Hex(enc("same")), s: 4 } };
  await store.put(MONOLITH_KEY, monolithBody(entries, new Date(0).toISOString()), PutModes.create);
  const r = await deleteUploads(store, [
    { path: "data/t/m/d/2/raw", version: a.version },
    { path: "data/t/m/d/2/metadata.yaml", version: b.version },
  ]);
  assert.deepEqual(r, {
    deleted: ["data/t/m/d/2/metadata.yaml"],
    kept: ["data/t/m/d/2/raw"],
    pending: [],
  });
  assert.equal(store.peekText("data/t/m/d/2/raw"), "same");
});

Deno.test("recomputeLatest makes up no marker where there was none (the refused run wrote none)", async () => {
  const f = await fresh();
  await f.synced(`${D}/4/raw`, "four");
  const out = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(out, { path: `${D}/latest`, version: null, dirty: false });
  assert.equal(await f.cache.read(`${D}/latest`), null);
  assert.deepEqual(f.state.dirtyPaths(), []);
});
