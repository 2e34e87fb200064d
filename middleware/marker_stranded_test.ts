/**
 * The stranded upload of a synced `latest` marker held back by
 * marker-after-version (`marker_stranded.ts`): published once the version it
 * names is listed; taken back, the committed marker put back, where no push
 * will ever list that version.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { assertIndexCurrent, clone, put, quick, read } from "../sync/service/clone_kit.ts";
import { DATA, MARKER, strandedOverTwo } from "./marker_stranded_kit.ts";

/**
 * A synced `latest` marker that an earlier push of this cache rewrote, cut
 * off before its index update, then held back by marker-after-version (the
 * marker moved here onto a version no index lists): the upload stands in
 * place of the synced object, which the index still names. Held, the
 * marker is no write of any push, so nothing settles that upload: the
 * index names an object that is gone, a peer reads no marker, and its
 * marker write meets a change it cannot see. Once the version the upload
 * names is listed, a push publishes the upload, as its commit would have.
 */
Deno.test("a synced marker held back publishes this cache's own upload of it that a cut-off push left once the version it names is listed", async () => {
  const store = new InMemoryStore();
  // Another tool's version 1: no index entry, no writer id.
  const { peer, a } = await strandedOverTwo(store);
  // The marker moved here onto the other tool's version: held back, dirty.
  await put(a, MARKER, "1");
  await a.pushChanged();
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  const named = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(named, `${DATA}/3/raw`), "version 3 is published");
  // The next push, the marker still held: version 3 is listed now, and the
  // upload naming it is published.
  await a.pushChanged();
  assert.equal(await read(a, MARKER), "1");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  await assertIndexCurrent(store, { held: true });
  // A peer reads the marker the datastore holds, and moves it on.
  await peer.pullChanged();
  assert.equal(await read(peer, MARKER), "3");
  await put(peer, MARKER, "2");
  const moved = await peer.pushChanged();
  assert.deepEqual(moved.conflicts, []);
  assert.ok(moved.uploaded.includes(MARKER));
  await assertIndexCurrent(store, { held: true });
});

/**
 * A synced `latest` marker that an earlier push of this cache rewrote, cut
 * off before the marker's index update, then held back by
 * marker-after-version because the version its bytes name is gone: its
 * files deleted here (this cache's own uploads of them taken back), so no
 * push will ever list it. The upload stands in place of the synced object,
 * which the index still names: a fresh clone finds no marker, and waiting
 * for the version to be listed waits for good. The committed marker is put
 * back (its bytes found by the synced hash among the versions here) and
 * named in its place; the marker here stays held, dirty.
 */
Deno.test("a synced marker held back over a version deleted here puts back the committed marker in place of its own stranded upload", async () => {
  const store = new InMemoryStore();
  const { peer, a } = await strandedOverTwo(store);
  // Version 3 deleted here (a crashed run's output cleaned up): the marker
  // here still names it, and is held.
  await Deno.remove(`${a.cacheDir}/${DATA}/3`, { recursive: true });
  await a.markDirty({ relPaths: [`${DATA}/3/metadata.yaml`, `${DATA}/3/raw`] });
  const r = await a.pushChanged();
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.equal(store.peek(`${DATA}/3/raw`), undefined, "version 3's upload is taken back");
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(MARKER), "2");
  assert.equal(await read(a, MARKER), "3");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  // A fresh clone reads the committed marker.
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "2");
  // The peer moves it on over the copy put back; `a`, set back to version 2, syncs.
  await peer.pullChanged();
  assert.equal(await read(peer, MARKER), "2");
  await put(a, MARKER, "2");
  await a.pushChanged();
  await a.pullChanged();
  assert.deepEqual(a.conflicts(), []);
  assert.ok(!a.state.dirtyPaths().includes(MARKER));
  await assertIndexCurrent(store, { held: true });
});
