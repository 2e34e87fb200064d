/**
 * version-under-marker and a deletion that already landed: version 2,
 * which the marker here names, deleted here (held); the marker moved back
 * onto version 1 and pushed, that push cut off after its marker write and
 * its deletes of version 2's files, before the index update, its process
 * gone; then the marker here moved onto version 2 again and pushed. The
 * datastore holds none of version 2's files, and the index still names
 * them: holding the deletions would leave those entries naming nothing for
 * good (a fresh clone skips them), and the marker here, naming a version
 * neither held here nor on the datastore, is not published.
 */
import assert from "node:assert/strict";
import {
  assertIndexCurrent,
  clone,
  isIndexKey,
  put,
  quick,
  read,
  v2Store,
} from "../sync/service/clone_kit.ts";
import { hookedStore, InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { putVersion } from "./marker_stranded_kit.ts";
import { DATA, deletedHere, FILES, MARKER } from "./marker_taken_back_kit.ts";

/** The interleaving above over `store`, up to the push of the marker moved onto 2 again. */
async function deletionLandedUnderMarker(store: InMemoryStore) {
  let cut = false;
  let deleted = false;
  const cutStore = hookedStore(store, {
    before: (key) => {
      if (cut && deleted && isIndexKey(key)) throw new Error("cut off before the index");
      return Promise.resolve();
    },
    beforeDelete: (key) => {
      if (cut && key === `${DATA}/2/raw`) deleted = true;
    },
  });
  const a = await clone(cutStore, "a");
  await putVersion(a, "1", { data: DATA });
  await a.pushChanged();
  await putVersion(a, "2", { data: DATA });
  await a.pushChanged();
  await deletedHere(a, "2");
  await Deno.mkdir(`${a.cacheDir}/${DATA}/2`);
  const held = await a.pushChanged();
  assert.ok(held.skipped.some((s) => s.path === `${DATA}/2/raw` && s.keepDirty));
  await put(a, MARKER, "1");
  cut = true;
  await assert.rejects(a.pushChanged(), /cut off before the index/);
  cut = false;
  assert.ok(deleted, "the cut-off push deleted version 2's raw");
  assert.equal(store.peek(`${DATA}/2/raw`), undefined);
  const named = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(named[`${DATA}/2/raw`], "the index still names version 2's raw");
  // The process restarted over the cache; the marker here moved onto 2 again.
  const again = await clone(store, "a", a.cacheDir);
  await put(again, MARKER, "2");
  const r = await again.pushChanged();
  return { a: again, r };
}

async function check(store: InMemoryStore) {
  const { a, r } = await deletionLandedUnderMarker(store);
  await assertIndexCurrent(store, { held: true });
  const marker = r.skipped.find((s) => s.path === MARKER);
  assert.ok(marker?.keepDirty, "the marker here, naming a version nowhere, is held");
  assert.equal(store.peekText(MARKER), "1");
  for (const f of FILES("2")) assert.ok(!a.state.dirtyPaths().includes(f), `${f}: committed`);
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
  assert.equal(await read(fresh, `${DATA}/1/raw`), "a's raw 1");
  assert.equal(await read(fresh, `${DATA}/2/raw`), undefined);
}

Deno.test("a deletion under the marker here whose deletes landed, their commit cut off, is committed, not held, and the marker naming that version is held", async () => {
  await check(new InMemoryStore());
});

Deno.test("a deletion under the marker here whose deletes landed, their commit cut off, is committed, not held (a v2 bucket)", async () => {
  await check(await v2Store());
});
