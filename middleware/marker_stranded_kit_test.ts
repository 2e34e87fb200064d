import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { put, quick } from "../sync/service/clone_kit.ts";
import { DATA, MARKER, markerBucket } from "./marker_stranded_kit.ts";

Deno.test("markerBucket: an indexed bucket, another tool's unindexed version 1, and a push cut off after its marker, before the index", async () => {
  const store = new InMemoryStore();
  const { a, pushCutOff } = await markerBucket(store);
  const before = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(before, "notes/readme.md"), "the peer's push made the index");
  assert.equal(store.peekText(`${DATA}/1/raw`), "their raw");
  assert.ok(!Object.hasOwn(before, `${DATA}/1/raw`), "another tool's version: no index entry");

  // Unrelated to the marker: nothing is cut off.
  await put(a, "notes/other.md", "x");
  await a.pushChanged();
  const after = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(after, "notes/other.md"));

  // Once the marker is written, the index update fails.
  await put(a, `${DATA}/2/metadata.yaml`, "version: 2\n");
  await put(a, `${DATA}/2/raw`, "a's raw");
  await put(a, MARKER, "2");
  await pushCutOff();
  assert.equal(store.peekText(MARKER), "2", "the marker was written before the cut");
  const cut = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(!Object.hasOwn(cut, MARKER), "no index names it");
});
