import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import { recomputeLatest } from "./erasure_markers.ts";

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
