import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import { recomputeLatest } from "./erasure_markers.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { clone, put, quick, read } from "../sync/service/clone_kit.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);
const D = "data/t/m/d";

function fresh() {
  return erasureFixture("sluice-erasure-markers-");
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

Deno.test("recomputeLatest makes up no marker where there was none (the refused run wrote none)", async () => {
  const f = await fresh();
  await f.synced(`${D}/4/raw`, "four");
  const out = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(out, { path: `${D}/latest`, version: null, dirty: false });
  assert.equal(await f.cache.read(`${D}/latest`), null);
  assert.deepEqual(f.state.dirtyPaths(), []);
});

Deno.test("recomputeLatest reports a marker changed here without a mark (written by hand) that it removes or resets", async () => {
  const f = await fresh();
  // Never synced, written by hand (no mark), naming the refused run's version 1, now erased.
  await f.cache.write(`${D}/latest`, new TextEncoder().encode("1"));
  const removed = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(removed, { path: `${D}/latest`, version: null, dirty: false, was: "1" });
  assert.equal(await f.cache.read(`${D}/latest`), null);

  // Synced as "1", changed by hand to "3" (the erased version): reset, and told.
  await f.synced(`${D}/1/raw`, "a");
  await f.synced(`${D}/latest`, "1");
  await f.cache.write(`${D}/latest`, new TextEncoder().encode("3"));
  const reset = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.deepEqual(reset, { path: `${D}/latest`, version: 1, dirty: false, was: "3" });

  // The synced copy itself, naming a version no longer here: no change of this cache's to report.
  await f.synced(`${D}/latest`, "7");
  const plain = await recomputeLatest(f.cache, f.state, `${D}/latest`);
  assert.equal(plain.was, undefined);
});

Deno.test("recomputeLatest never names a version still being written where unfinished versions are held (its raw here, no metadata.yaml)", async () => {
  const setUp = async () => {
    const f = await fresh();
    await f.synced(`${D}/1/raw`, "a");
    await f.synced(`${D}/1/metadata.yaml`, "m");
    // Version 2: its writer stopped (a crash) before finalizing it.
    await f.dirty(`${D}/2/raw`, "part 1");
    // The refused run's version 3 is gone; its marker named it.
    await f.dirty(`${D}/latest`, "3");
    return f;
  };
  const held = await setUp();
  const m = await recomputeLatest(held.cache, held.state, `${D}/latest`, "hold");
  assert.equal(m.version, 1);
  assert.equal(text(await held.cache.read(`${D}/latest`)), "1");
  assert.ok(
    !held.state.dirtyPaths().includes(`${D}/latest`),
    "nothing to push: version 1 is synced",
  );

  // Where unfinished versions are pushed as they are, the highest version is taken.
  const pushed = await setUp();
  const p = await recomputeLatest(pushed.cache, pushed.state, `${D}/latest`);
  assert.equal(p.version, 2);
  assert.equal(text(await pushed.cache.read(`${D}/latest`)), "2");
});

Deno.test("a refused run's marker, recomputed to a peer's version pulled in over a marker this cache wrote, is never pushed", async () => {
  const store = new InMemoryStore();
  const model = "shell/cmd/m0";
  const data = `data/${model}/log`;
  const marker = `${data}/latest`;
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  // a publishes version 1 and its marker: the store's marker object is a's own write.
  await put(a, `${data}/1/metadata.yaml`, "version: 1\n");
  await put(a, `${data}/1/raw`, "one");
  await put(a, marker, "1");
  await a.pushChanged();
  await b.pullChanged();
  // b's run of version 2 got its metadata.yaml published, its raw not yet (its upload
  // failed), and no marker: the index lists 2/metadata.yaml alone.
  await put(b, `${data}/2/metadata.yaml`, "version: 2\n");
  await b.pushChanged();
  // a pulls that file in, then runs version 3 under its model lock, which a breakglass takes.
  await a.pullChanged();
  assert.equal(await read(a, `${data}/2/metadata.yaml`), "version: 2\n");
  const run = await acquireModelLocks(a, [model]);
  await put(a, `${data}/3/metadata.yaml`, "version: 3\n");
  await put(a, `${data}/3/raw`, "three");
  await put(a, marker, "3");
  await releaseLock(b, { model, force: true });
  await assert.rejects(run.push([`${data}/3`]), ModelLockLostError);
  await run.release();
  // The marker's local copy names no version of the refused run; a's next sync
  // publishes nothing of it, and no marker naming a version whose raw is unlisted.
  await a.pushChanged();
  await a.pullChanged();
  await a.pushChanged();
  assert.equal(store.peekText(marker), "1");
  const index = await readIndex(store, quick.retry);
  assert.equal(index?.entries[marker]?.h, await sha256Hex(enc("1")));
  assert.equal(await read(a, marker), "1");
  assert.deepEqual(a.state.dirtyPaths(), []);
});
