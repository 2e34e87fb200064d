/**
 * A run's push whose first pass committed part of its version (the rest,
 * found in place, was erased before the commit) and held back the `latest`
 * marker it had created; its second pass is then refused for a lost lock,
 * and the version is held (`erasure_refused`: it holds a file the first
 * pass synced). The marker object the first pass created is named by no
 * index: it must not stay in the store, where it would hold off every
 * peer's marker write as an uncommitted write, while the held version waits
 * for its user (`resolveHeldVersions`).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { resolveHeldVersions } from "../../middleware/erasure.ts";
import { acquireModelLocks } from "../locks/model_locks.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { isLayoutInternal } from "../transfer/bucket_layout.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";
import { breakglassA, DATA, MARKER, MODEL, othersUpload, refusedRun } from "./held_marker_kit.ts";

const V1 = `${DATA}/1`;
const META = `${V1}/metadata.yaml`;

/** Objects of the store (locks and the index aside) that the index does not name. */
async function unnamed(store: InMemoryStore): Promise<string[]> {
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  return store.keys().filter((k) =>
    !isLayoutInternal(k) && !k.endsWith(".lock") && !Object.hasOwn(entries, k)
  );
}

/**
 * Clone a runs the model (version 1 and its marker) under its lock; another
 * writer's upload of version 1's metadata, with the same bytes, is in place
 * and is erased just before a's commit, and a's lock is broken then too. The
 * first pass commits `raw` and holds back the metadata and the marker; the
 * second pass is refused, and the version held.
 */
async function heldAfterSecondPass(globalLock: boolean) {
  const store = new InMemoryStore();
  // Another writer's upload, never committed (its run is refused and erased).
  await othersUpload(store, META);
  const k = await breakglassA(store, META);
  const { a } = k;
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const error = await refusedRun(k, "1", globalLock);
  assert.match(error.message, /already synced with the datastore/);
  // What the first pass published is said, not denied.
  assert.doesNotMatch(error.message, /Nothing was pushed/);
  assert.match(
    error.message,
    /this push had published 1 file\(s\).*\(data\/shell\/m1\/out\/1\/raw\); they stay published/,
  );
  return { store, a, warnings };
}

for (const globalLock of [false, true]) {
  const how = globalLock ? "under the global lock" : "without the global lock";
  Deno.test(`${how}: a second pass refused into held versions leaves no marker the first pass created, and a peer's marker write is not held off by it`, async () => {
    const { store, a, warnings } = await heldAfterSecondPass(globalLock);
    assert.deepEqual(await unnamed(store), [], "no object the index does not name");
    // The run's version and its marker stay in a's cache, held and dirty.
    assert.equal(await read(a, MARKER), "1");
    assert.equal(await read(a, META), "same output");
    assert.ok(a.state.dirtyPaths().includes(MARKER));
    assert.ok(a.state.dirtyPaths().includes(META));
    assert.ok(!warnings.includes("erasure_pending"), warnings.join());
    // A plain sync of a's still publishes nothing of the held version.
    await a.pushChanged();
    assert.deepEqual(await unnamed(store), []);
    assert.equal(store.peek(MARKER), undefined);
    // A peer runs the model and publishes version 2 with its marker.
    const b = await clone(store, "b");
    const told: string[] = [];
    b.events.on("warning", (w) => void told.push(w.code));
    const setB = await acquireModelLocks(b, [MODEL]);
    await put(b, `${DATA}/2/raw`, "b's raw");
    await put(b, MARKER, "2");
    await setB.push([`${DATA}/2`]);
    await setB.release();
    assert.ok(!told.includes("push_waiting_uncommitted"), told.join());
    assert.equal(store.peekText(MARKER), "2");
    assert.deepEqual(await unnamed(store), []);
    await assertIndexCurrent(store, { held: true });
  });

  Deno.test(`${how}: the held version, released with "keep", is published with its marker by the next push; "discard" leaves nothing of it on the store`, async () => {
    const kept = await heldAfterSecondPass(globalLock);
    assert.deepEqual(await resolveHeldVersions(kept.a, [V1], "keep"), [V1]);
    const r = await kept.a.pushChanged();
    assert.deepEqual([...r.uploaded, ...r.identical].sort(), [META, MARKER]);
    assert.equal(kept.store.peekText(MARKER), "1");
    assert.equal(kept.store.peekText(META), "same output");
    assert.deepEqual(await unnamed(kept.store), []);
    await assertIndexCurrent(kept.store, { held: true });
    const fresh = await clone(kept.store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, MARKER), "1");
    assert.equal(await read(fresh, META), "same output");

    const dropped = await heldAfterSecondPass(globalLock);
    assert.deepEqual(await resolveHeldVersions(dropped.a, [V1], "discard"), [V1]);
    await dropped.a.pushChanged();
    assert.equal(dropped.store.peek(MARKER), undefined);
    assert.deepEqual(await unnamed(dropped.store), []);
    assert.equal(await read(dropped.a, MARKER), undefined);
    assert.deepEqual(dropped.a.state.dirtyPaths(), []);
  });
}
