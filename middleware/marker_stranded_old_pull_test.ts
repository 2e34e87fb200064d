/**
 * The put-back of `marker_stranded.ts` on a v1 bucket beside an old
 * client's pull, which rewrites the index with no lock and drops the entry
 * of each object it finds gone: a push of version 2 and the marker moved
 * onto it is cut off before its index write (the marker's upload stands in
 * place of the committed one), version 2 is deleted here, and a later push
 * holds the marker (its version neither here nor listed) and puts the
 * committed marker back in place of the upload. The old client's pull
 * looks at the marker as that put-back writes: the committed marker must
 * not be lost from the store and the index.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { UnreachableError } from "../sync/errors.ts";
import { assertIndexCurrent, clone, isIndexKey, read } from "../sync/service/clone_kit.ts";
import { oldPullOnMarker, putVersion } from "./marker_stranded_kit.ts";

const DATA = "data/shell/cmd/m0/out";
const MARKER = `${DATA}/latest`;

Deno.test("an old client's pull during the put-back of a committed marker over a stranded upload loses no committed marker", async () => {
  const store = new InMemoryStore();
  const { a, arm, pulled } = await oldPullOnMarker(store, MARKER);
  await putVersion(a, "1", { data: DATA });
  await a.pushChanged();
  await putVersion(a, "2", { data: DATA });
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(MARKER), "2", "the marker's upload stands");
  // Version 2 deleted here; the pushes take its uploads back and hold the marker.
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  await a.markDirty({ relPaths: [`${DATA}/2/metadata.yaml`, `${DATA}/2/raw`] });
  arm();
  await a.pushChanged().catch(() => undefined);
  await a.pushChanged().catch(() => undefined);
  assert.ok(pulled() !== undefined, "the old client pulled as the marker was put back");
  assert.ok(a.state.dirtyPaths().includes(MARKER), "the marker is held");
  assert.equal(store.peekText(MARKER), "1", `the old pull dropped ${pulled()}`);
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
});
