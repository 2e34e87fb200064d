/**
 * As `held_marker_test.ts`, but the run's `latest` marker is written over a
 * committed one (version 1's, published before): the second pass, refused
 * into a held version, must not leave its marker upload in place of the
 * committed marker, which the index names and readers would lose.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { resolveHeldVersions } from "../../middleware/erasure.ts";
import { acquireModelLocks } from "../locks/model_locks.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";
import { breakglassA, DATA, MARKER, MODEL, othersUpload, refusedRun } from "./held_marker_kit.ts";

const V1 = `${DATA}/1`;
const V2 = `${DATA}/2`;
const META = `${V2}/metadata.yaml`;

for (const globalLock of [false, true]) {
  const how = globalLock ? "under the global lock" : "without the global lock";
  Deno.test(`${how}: a second pass refused into a held version puts back the committed marker its upload was written over`, async () => {
    const store = new InMemoryStore();
    const k = await breakglassA(store, META);
    const { a } = k;
    // Version 1 and its marker, published.
    const first = await acquireModelLocks(a, [MODEL]);
    await put(a, `${V1}/raw`, "raw 1");
    await put(a, `${V1}/metadata.yaml`, "meta 1");
    await put(a, MARKER, "1");
    await first.push([V1]);
    await first.release();
    const committed = (await readIndex(store, quick.retry))!.entries[MARKER];
    assert.equal(store.peekText(MARKER), "1");
    // Another writer's upload of version 2's metadata, never committed.
    await othersUpload(store, META);
    await refusedRun(k, "2", globalLock);
    // The committed marker is on the store again, named by the index.
    assert.equal(store.peekText(MARKER), "1");
    const named = (await readIndex(store, quick.retry))!.entries[MARKER];
    assert.equal(named.h, committed.h);
    assert.equal(named.v, (await store.head(MARKER))!.version);
    await assertIndexCurrent(store, { held: true });
    // The run's marker stays in a's cache, held and dirty.
    assert.equal(await read(a, MARKER), "2");
    assert.ok(a.state.dirtyPaths().includes(MARKER));
    // A fresh clone reads the committed marker.
    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, MARKER), "1");
    // Released with "keep", the version is published with the run's marker.
    assert.deepEqual(await resolveHeldVersions(a, [V2], "keep"), [V2]);
    await a.pushChanged();
    assert.equal(store.peekText(MARKER), "2");
    assert.equal(store.peekText(META), "same output");
    await assertIndexCurrent(store, { held: true });
  });
}
