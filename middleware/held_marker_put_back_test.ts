/**
 * `putBackOverwrittenMarkers` alone: this cache's upload of a `latest`
 * marker written over the committed one the index names, after a refusal
 * into a held version.
 */
import assert from "node:assert/strict";
import { mockPushContext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { putBackOverwrittenMarkers } from "./held_marker_put_back.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const MARKER = "data/t/m/d/latest";
const V2 = "data/t/m/d/2";
const enc = (s: string) => new TextEncoder().encode(s);

/**
 * The committed marker "1" named by the index, then this cache's upload of
 * "2" written over it by the push (recorded in `ctx.uploaded`); version 1's
 * files are in the cache where `versionHere`.
 */
async function overwritten(versionHere: boolean) {
  const m = await mockPushContext({ written: [] });
  await m.cache.writeState("writer.json", { id: "me" });
  if (versionHere) await m.cache.write("data/t/m/d/1/raw", enc("raw 1"));
  await m.cache.write(`${V2}/raw`, enc("raw 2"));
  const committed = await m.store.put(MARKER, enc("1"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  const h = await sha256Hex(enc("1"));
  await updateIndex(m.store, {
    set: { [MARKER]: { v: committed.version, h, s: 1 } },
    remove: [],
    base: { [MARKER]: null },
  }, NO_RETRY);
  const up = await m.store.put(MARKER, enc("2"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  m.ctx.uploaded.push({ path: MARKER, info: up, created: false, outcome: "written" });
  return { m, committed, up, h };
}

const text = async (m: { store: { get(p: string): Promise<{ body: Uint8Array }> } }) =>
  new TextDecoder().decode((await m.store.get(MARKER)).body);

Deno.test("the committed marker is written back over this cache's upload and named in the index", async () => {
  const { m, up, h } = await overwritten(true);
  await putBackOverwrittenMarkers(m.ctx, [V2]);
  assert.equal(await text(m), "1");
  const head = await m.store.head(MARKER);
  assert.notEqual(head!.version, up.version);
  const named = (await readIndex(m.store, NO_RETRY))!.entries[MARKER];
  assert.equal(named.h, h);
  assert.equal(named.v, head!.version);
  assert.deepEqual(m.warnings, []);
});

Deno.test("nothing is done when the index no longer names the committed version", async () => {
  const { m, committed, up } = await overwritten(true);
  // A deletion of the marker committed meanwhile: the index names nothing there.
  await updateIndex(m.store, {
    set: {},
    remove: [MARKER],
    base: { [MARKER]: committed.version },
  }, NO_RETRY);
  await putBackOverwrittenMarkers(m.ctx, [V2]);
  assert.equal(await text(m), "2");
  assert.equal((await m.store.head(MARKER))!.version, up.version);
  const index = await readIndex(m.store, NO_RETRY);
  assert.equal(index?.entries[MARKER], undefined);
  assert.deepEqual(m.warnings, []);
});

Deno.test("committed bytes no version number here hashes to leave the upload and warn committed_marker_unrestored", async () => {
  const { m, committed, up } = await overwritten(false);
  await putBackOverwrittenMarkers(m.ctx, [V2]);
  assert.equal(await text(m), "2");
  assert.equal((await m.store.head(MARKER))!.version, up.version);
  const named = (await readIndex(m.store, NO_RETRY))!.entries[MARKER];
  assert.equal(named.v, committed.version);
  assert.deepEqual(m.warnings.map((w) => [w.code, w.path]), [
    ["committed_marker_unrestored", MARKER],
  ]);
});
