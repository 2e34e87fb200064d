/**
 * The steps of chaos seed 212900046 in-process: a v2 bucket, where a data
 * version's files and its `latest` marker are named by two shards. A push of
 * version 2 and the marker moved onto it lands the version's shard and stops
 * before the marker's: the marker's upload stands in place of the committed
 * one, which the index still names. Version 2 is deleted here and pushed:
 * the marker's write meets its own upload (version 2 still listed), version
 * 2's files are taken back, and the commit's look at the marker fails. The
 * next push holds the marker (its version neither here nor listed now): the
 * committed marker is put back in place of the upload and named, so that
 * the index names what the store holds and a fresh clone reads the marker.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../sync/errors.ts";
import { assertIndexCurrent, clone, put, read, v2Store } from "../sync/service/clone_kit.ts";

const DATA = "data/shell/cmd/m0/out";
const MARKER = `${DATA}/latest`;

Deno.test("a marker whose commit failed after the version it names was taken back is replaced by the committed marker at the next push", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  await put(a, `${DATA}/1/metadata.yaml`, "version: 1\n");
  await put(a, `${DATA}/1/raw`, "a's raw 1");
  await put(a, MARKER, "1");
  await a.pushChanged();
  await put(a, `${DATA}/2/metadata.yaml`, "version: 2\n");
  await put(a, `${DATA}/2/raw`, "a's raw 2");
  await put(a, MARKER, "2");
  // The shard naming the marker is never written.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "_index/data--shell--cmd.json",
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(MARKER), "2", "the marker's upload stands");
  // Version 2 deleted here and pushed; the commit's look at the marker fails.
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  await a.markDirty({ relPaths: [`${DATA}/2/metadata.yaml`, `${DATA}/2/raw`] });
  store.failNext("head", 1, () => new UnreachableError("flaky"), {
    afterEffect: true,
    match: (k) => k === MARKER,
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peek(`${DATA}/2/raw`), undefined, "version 2 is taken back");
  // The next push: the marker is held, its upload taken back.
  const r = await a.pushChanged();
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(MARKER), "1");
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
});
