/**
 * A `latest` marker that marker-after-version holds back, where an earlier
 * push of this cache wrote the marker and stopped before its index update:
 * that upload, named by no index, must not stay in the store (no reader
 * sees it, and a peer's marker write waits on it), while the marker here
 * stays dirty with the reason.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { isLayoutInternal } from "../sync/transfer/bucket_layout.ts";
import { assertIndexCurrent, put, quick, read } from "../sync/service/clone_kit.ts";
import { DATA, MARKER, markerBucket } from "./marker_stranded_kit.ts";

/** Objects of the store (locks and the index aside) that the index does not name. */
async function unnamed(store: InMemoryStore): Promise<string[]> {
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  return store.keys().filter((k) =>
    !isLayoutInternal(k) && !k.endsWith(".lock") && !Object.hasOwn(entries, k)
  );
}

Deno.test("a marker held back for naming a version no index lists takes back this cache's own upload of it whose commit never came", async () => {
  const store = new InMemoryStore();
  // A bucket with an index already (a peer's push), then another tool's
  // version 1, written with no index entry and no writer id.
  const { a, pushCutOff } = await markerBucket(store);
  await put(a, `${DATA}/2/metadata.yaml`, "version: 2\n");
  await put(a, `${DATA}/2/raw`, "a's raw");
  await put(a, MARKER, "2");
  // The push is cut off once its marker is written, before the index update.
  await pushCutOff();
  assert.deepEqual(await unnamed(store), [
    `${DATA}/1/metadata.yaml`,
    `${DATA}/1/raw`,
    `${DATA}/2/metadata.yaml`,
    `${DATA}/2/raw`,
    MARKER,
  ]);
  assert.equal(store.peekText(MARKER), "2", "the marker was written before the cut");
  // The user moves the marker one back, onto the other tool's version that
  // no index lists: the marker is held back, dirty.
  await put(a, MARKER, "1");
  await a.pushChanged();
  const named = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(named, `${DATA}/2/raw`), "version 2 is published");
  assert.equal(await read(a, MARKER), "1");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  // Only the other tool's version stays unnamed (its own writer indexes it).
  assert.deepEqual(await unnamed(store), [`${DATA}/1/metadata.yaml`, `${DATA}/1/raw`]);
  await assertIndexCurrent(store, { held: true });
  // A later push changes nothing of it.
  await a.pushChanged();
  assert.deepEqual(await unnamed(store), [`${DATA}/1/metadata.yaml`, `${DATA}/1/raw`]);
});
