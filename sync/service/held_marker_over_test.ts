/**
 * As `held_marker_test.ts`, but the run's `latest` marker is written over a
 * committed one (version 1's, published before): the second pass, refused
 * into a held version, must not leave its marker upload in place of the
 * committed marker, which the index names and readers would lose.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { resolveHeldVersions } from "../../middleware/erasure.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, quick, read } from "./clone_kit.ts";
import {
  breakglassA,
  MARKER,
  META,
  othersUpload,
  publishVersionOne,
  refusedRun,
  V2,
} from "./held_marker_kit.ts";

for (const globalLock of [false, true]) {
  const how = globalLock ? "under the global lock" : "without the global lock";
  Deno.test(`${how}: a second pass refused into a held version puts back the committed marker its upload was written over`, async () => {
    const store = new InMemoryStore();
    const k = await breakglassA(store, META);
    const { a } = k;
    // Version 1 and its marker, published.
    const committed = await publishVersionOne(store, a);
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
