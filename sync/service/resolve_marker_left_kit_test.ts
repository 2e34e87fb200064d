/**
 * What `markerMovedOn` promises for each way the marker on the datastore
 * moved on: the conflict of the deletion open in `a`, the marker here
 * naming version 1, and on the datastore the marker naming version 3,
 * committed or uploaded with no index naming it, or left as it was.
 */
import assert from "node:assert/strict";
import type { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import { sha256Hex } from "../hash.ts";
import { quick, read } from "./clone_kit.ts";
import { DATA, MARKER, RAW } from "./resolve_under_marker_kit.ts";
import { type MarkerMoved, markerMovedOn } from "./resolve_marker_left_kit.ts";

const V3 = `${DATA}/3/raw`;

/** Whether the index names the object the store holds at `path` now. */
async function indexNamesHeld(store: InMemoryStore, path: string): Promise<boolean> {
  const e = (await readIndex(store, quick.retry))?.entries[path];
  const info = await store.head(path);
  if (!e || !info) return false;
  return isUnversioned(e) ? await sha256Hex(store.peek(path)!) === e.h : e.v === info.version;
}

for (const moved of ["committed", "uploaded", "none"] as const satisfies readonly MarkerMoved[]) {
  Deno.test(`markerMovedOn ${moved}: the deletion's conflict open, the marker here naming 1, the marker there as ${moved}`, async () => {
    const { store, a } = await markerMovedOn(moved);
    assert.deepEqual(a.conflicts().map((c) => c.path), [RAW]);
    assert.equal(a.conflicts()[0].mine, null, "the side here is the deletion");
    assert.equal(await read(a, MARKER), "1");
    if (moved === "none") {
      assert.equal(store.peekText(MARKER), "2", "the marker there as it was");
      assert.equal(store.peekText(V3), undefined, "no version 3");
      assert.ok(await indexNamesHeld(store, MARKER));
      return;
    }
    assert.equal(store.peekText(MARKER), "3", "the marker there names version 3");
    assert.equal(store.peekText(V3), "version 3");
    const named = moved === "committed";
    const says = named ? "names" : "does not name";
    assert.equal(await indexNamesHeld(store, MARKER), named, `the index ${says} the marker 3`);
    assert.equal(await indexNamesHeld(store, V3), named, `the index ${says} version 3`);
  });
}
