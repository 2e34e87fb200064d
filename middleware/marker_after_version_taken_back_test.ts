/**
 * The steps of chaos seed 212900046 in-process: a v2 bucket, where a data
 * version's files and its `latest` marker are named by two shards. A push of
 * version 2 and the marker moved onto it lands the version's shard and stops
 * before the marker's: the marker's upload stands in place of the committed
 * one, which the index still names. Version 2 is deleted here and pushed:
 * the push holds the marker (version 2 is listed only by the uploads it
 * takes back), version 2's files are taken back, and the hold's look at the
 * marker's upload fails. The next push holds the marker (its version
 * neither here nor listed now): the committed marker is put back in place
 * of the upload and named, so that the index names what the store holds
 * and a fresh clone reads the marker. Committed bytes the put-back cannot
 * recover here are told of.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../sync/errors.ts";
import { assertIndexCurrent, clone, put, read, v2Store } from "../sync/service/clone_kit.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { putVersion } from "./marker_stranded_kit.ts";
import {
  ANSWER_LOST,
  type Cut,
  DATA,
  deletedHere,
  MARKER,
  pushCutOff,
  SHARD_CUT,
} from "./marker_taken_back_kit.ts";

/**
 * The steps above, the committed marker holding `committed`; returns the
 * store, the clone and the warnings of the push that holds the marker.
 */
async function heldOverOwnUpload(committed: string) {
  const store = await v2Store();
  const a = await clone(store, "a");
  await putVersion(a, "1", { data: DATA });
  await put(a, MARKER, committed);
  await a.pushChanged();
  await putVersion(a, "2", { data: DATA });
  // The shard naming the marker is never written.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "_index/data--shell--cmd.json",
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(MARKER), "2", "the marker's upload stands");
  // Version 2 deleted here and pushed; the commit's look at the marker fails.
  await deletedHere(a, "2");
  store.failNext("head", 1, () => new UnreachableError("flaky"), {
    afterEffect: true,
    match: (k) => k === MARKER,
  });
  const first = await a.pushChanged();
  assert.ok(first.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.equal(store.peek(`${DATA}/2/raw`), undefined, "version 2 is taken back");
  assert.equal(store.peekText(MARKER), "2", "the look failed: the upload stands");
  // The next push: the marker is held, its upload taken back.
  const warnings: { code: string; message: string; path?: string }[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const r = await a.pushChanged();
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  return { store, a, warnings };
}

Deno.test("a marker whose commit failed after the version it names was taken back is replaced by the committed marker at the next push", async () => {
  const { store } = await heldOverOwnUpload("1");
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(MARKER), "1");
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
});

Deno.test("a committed marker whose bytes cannot be recovered here, not put back in place of the upload, is told of", async () => {
  const committed = " 1\r\n"; // another tool's: no bare version number
  const { store, a, warnings } = await heldOverOwnUpload(committed);
  if (store.peekText(MARKER) === committed) return; // put back after all
  const told = warnings.filter((w) => w.code === "committed_marker_unrestored");
  assert.equal(told.length, 1, JSON.stringify(warnings.map((w) => w.code)));
  assert.equal(told[0].path, MARKER);
  // The way out it names: a marker here naming a version that exists, pushed.
  await put(a, MARKER, "1");
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), "1");
  await assertIndexCurrent(store, { held: true });
});

/**
 * Nothing fails at the delete push: version 2's own uploads, named by the
 * index (a cut-off shard write before, or a commit whose answer was lost),
 * are taken back by the push that deletes them here, after the marker's
 * write met its own upload naming that version. The marker is held, and the
 * datastore's goes back to the committed one (or goes, where none was), so
 * that no fresh clone reads a marker naming a version the push took back.
 */
async function deletePushAfter(
  store: InMemoryStore,
  first: boolean,
  cut: Cut,
) {
  const a = await clone(store, "a");
  if (first) {
    await putVersion(a, "1", { data: DATA });
    await a.pushChanged();
  }
  await pushCutOff(store, a, "2", cut);
  await deletedHere(a, "2");
  const r = await a.pushChanged();
  assert.deepEqual(
    r.strandedChecks.map((c) => c.outcome),
    ["withdrawn", "withdrawn"],
    "version 2 is taken back",
  );
  assert.equal(store.peek(`${DATA}/2/raw`), undefined);
  const held = r.skipped.find((s) => s.path === MARKER);
  assert.ok(held, "the marker is held");
  assert.match(held.reason, /deleted here/);
  assert.ok(a.state.dirtyPaths().includes(MARKER), "the marker stays dirty");
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  return { a, fresh };
}

Deno.test("a delete push taking back the version its marker's upload names puts the committed marker back (the marker's shard cut off)", async () => {
  const store = await v2Store();
  const { fresh } = await deletePushAfter(store, true, SHARD_CUT);
  assert.equal(store.peekText(MARKER), "1");
  assert.equal(await read(fresh, MARKER), "1");
  assert.equal(await read(fresh, `${DATA}/1/raw`), "a's raw 1");
});

Deno.test("a delete push taking back the version its committed marker names puts the marker before it back (the commit's answer lost)", async () => {
  const store = new InMemoryStore();
  const { a, fresh } = await deletePushAfter(store, true, ANSWER_LOST);
  assert.equal(store.peekText(MARKER), "1");
  assert.equal(await read(fresh, MARKER), "1");
  // The next push holds it still, and writes nothing.
  const again = await a.pushChanged();
  assert.ok(again.skipped.some((s) => s.path === MARKER));
  assert.equal(store.peekText(MARKER), "1");
});

Deno.test("a delete push taking back the only version a first marker names takes the marker back too", async () => {
  const store = new InMemoryStore();
  const { fresh } = await deletePushAfter(store, false, ANSWER_LOST);
  assert.equal(store.peek(MARKER), undefined, "no marker is left naming nothing");
  assert.equal(await read(fresh, MARKER), undefined);
});

Deno.test("a first marker naming only a version taken back, whose take-back's look failed, is taken back by the next push", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await pushCutOff(store, a, "2", ANSWER_LOST);
  await deletedHere(a, "2");
  // The delete push's look at the marker's upload fails: it stands.
  store.failNext("get", 1, () => new UnreachableError("flaky"), { match: (k) => k === MARKER });
  const r = await a.pushChanged();
  assert.equal(store.peek(`${DATA}/2/raw`), undefined, "version 2 is taken back");
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.equal(store.peekText(MARKER), "2", "the look failed: the upload stands");
  // The next push holds the marker (its version neither here nor listed) and takes it back.
  const again = await a.pushChanged();
  assert.ok(again.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.ok(a.state.dirtyPaths().includes(MARKER), "the marker stays dirty");
  assert.equal(store.peek(MARKER), undefined, "no marker is left naming nothing");
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), undefined);
});
