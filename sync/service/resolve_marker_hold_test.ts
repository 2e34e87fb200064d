import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { markerHoldReader } from "./resolve_marker_hold.ts";
import { put } from "./clone_kit.ts";
import { DATA, MARKER, RAW, twoVersionsPublished } from "./resolve_under_marker_kit.ts";

/** Versions 1 and 2 published (the marker naming 2), the look over that clone. */
async function published() {
  const store = new InMemoryStore();
  const a = await twoVersionsPublished(store);
  return { store, a, look: markerHoldReader(a) };
}

Deno.test("markerHoldReader: the marker here naming the version holds it; no data version, or the marker removed here, holds nothing", async () => {
  const { a, look } = await published();
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2" });
  assert.equal(await look("config/a.yaml"), undefined);
  await Deno.remove(`${a.cacheDir}/${MARKER}`);
  assert.equal(await look(RAW), undefined);
});

Deno.test("markerHoldReader: the committed marker naming it holds it unless the marker here, changed, names a version whose files are published", async () => {
  const { a, look } = await published();
  await put(a, MARKER, "1");
  assert.equal(await look(RAW), undefined, "version 1 published: the marker goes in its place");
  await put(a, MARKER, "7");
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2", here: "7" });
  await put(a, MARKER, "latest one");
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2", here: "latest one" });
  // Version 3 held here, never pushed: the marker would be held with it.
  await put(a, `${DATA}/3/raw`, "version 3");
  await put(a, MARKER, "3");
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2", here: "3" });
});

Deno.test("markerHoldReader: a version none of whose files are here counts as followed where the index lists it", async () => {
  const { store, a, look } = await published();
  await put(a, MARKER, "4");
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2", here: "4" });
  await peerPush(store, { [`${DATA}/4/raw`]: "a peer's version 4" });
  assert.equal(await look(RAW), undefined);
});

Deno.test("markerHoldReader: the index naming the version while the marker here is the synced one (not pushed) holds it", async () => {
  const { store, a, look } = await published();
  await put(a, MARKER, "1");
  await a.pushChanged({ only: [MARKER] });
  assert.equal(await look(`${DATA}/2/raw`), undefined, "committed names 1");
  // Another writer moves the datastore's marker back onto 2.
  await peerPush(store, { [MARKER]: "2" });
  assert.deepEqual(await look(RAW), { marker: MARKER, n: "2", here: "1" });
});
