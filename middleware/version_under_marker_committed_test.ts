/**
 * version-under-marker and the datastore's committed marker: one push that
 * deletes here both the version the committed `latest` marker names
 * (version 1) and the version this cache's own marker upload names, which
 * the push takes back (version 2: its commit landed with the answer lost,
 * or its marker's shard was cut off). marker-after-version holds the
 * marker here (it names a version gone by the push's end), and the
 * committed marker is put back in place of the upload: so version 1's
 * deletion is held, dirty, with the reason, rather than leaving that
 * marker naming a version the datastore no longer holds.
 */
import assert from "node:assert/strict";
import { assertIndexCurrent, clone, put, read, v2Store } from "../sync/service/clone_kit.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { putVersion } from "./marker_stranded_kit.ts";
import {
  ANSWER_LOST,
  type Cut,
  DATA,
  deletedHere,
  FILES,
  MARKER,
  pushCutOff,
  SHARD_CUT,
} from "./marker_taken_back_kit.ts";

type Client = Awaited<ReturnType<typeof clone>>;
type PushResult = Awaited<ReturnType<Client["pushChanged"]>>;

/** The store's `latest` marker names a version whose files the store holds. */
function assertMarkerFollowable(store: InMemoryStore) {
  const named = store.peekText(MARKER)?.trim();
  if (named === undefined) return;
  for (const f of FILES(named)) {
    assert.ok(store.peek(f), `the datastore's marker names ${named}, and ${f} is gone`);
  }
}

/** The push `r` held the marker here and each of version 1's files' deletions, for the datastore's marker. */
function assertVersion1DeletionHeld(store: InMemoryStore, r: PushResult) {
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assertMarkerFollowable(store);
  for (const f of FILES("1")) {
    const held = r.skipped.find((s) => s.path === f);
    assert.ok(held?.keepDirty, `${f}: its deletion is held`);
    assert.match(held.reason, /datastore's latest marker/);
  }
}

/**
 * Version 1 and its marker published; version 2 and the marker moved onto
 * it pushed, `cut` failing that push; then versions 1 and 2 deleted here
 * and pushed at once, the marker here still naming 2.
 */
async function bothDeleted(store: InMemoryStore, cut: Cut) {
  const a = await clone(store, "a");
  await putVersion(a, "1", { data: DATA });
  await a.pushChanged();
  await pushCutOff(store, a, "2", cut);
  await deletedHere(a, "1", "2");
  const r = await a.pushChanged();
  assert.equal(store.peek(`${DATA}/2/raw`), undefined, "version 2 is taken back");
  assertVersion1DeletionHeld(store, r);
  for (const f of FILES("1")) assert.ok(a.state.dirtyPaths().includes(f), `${f} stays dirty`);
  assert.equal(store.peekText(MARKER), "1", "the committed marker is put back");
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
  assert.equal(await read(fresh, `${DATA}/1/raw`), "a's raw 1");
  return a;
}

/** The way out the reason names: the marker removed here too (no version left), then pushed. */
async function markerRemovedToo(store: InMemoryStore, a: Client) {
  await Deno.remove(`${a.cacheDir}/${MARKER}`);
  await a.markDirty({ relPath: MARKER });
  const r = await a.pushChanged();
  assert.ok(r.deleted.includes(`${DATA}/1/raw`), JSON.stringify(r.skipped));
  assert.equal(store.peek(MARKER), undefined);
  assert.equal(store.peek(`${DATA}/1/raw`), undefined);
  await assertIndexCurrent(store, { held: true });
}

/** Version 1 and its marker published by a new clone `a`, then version 1 deleted here. */
async function version1DeletedHere(options?: Parameters<typeof clone>[3]) {
  const store = new InMemoryStore();
  const a = await clone(store, "a", undefined, options);
  await putVersion(a, "1", { data: DATA });
  await a.pushChanged();
  await deletedHere(a, "1");
  return { store, a };
}

/** The push `r` held the marker here and version 1's deletion: the committed marker still names 1. */
function assertVersion1Held(store: InMemoryStore, r: PushResult) {
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assertMarkerFollowable(store);
  assert.ok(r.skipped.some((s) => s.path === `${DATA}/1/raw` && s.keepDirty));
  assert.equal(store.peekText(MARKER), "1");
}

Deno.test("a push deleting the committed marker's version and taking back the version its marker's upload names holds the first deletion (the commit's answer lost)", async () => {
  const store = new InMemoryStore();
  const a = await bothDeleted(store, ANSWER_LOST);
  await markerRemovedToo(store, a);
});

Deno.test("a push deleting the committed marker's version and taking back the version its marker's upload names holds the first deletion (the marker's shard cut off)", async () => {
  const store = await v2Store();
  const a = await bothDeleted(store, SHARD_CUT);
  await markerRemovedToo(store, a);
});

Deno.test("a push deleting the committed marker's version while the marker here names a version nowhere holds that deletion", async () => {
  const { store, a } = await version1DeletedHere();
  await put(a, MARKER, "7");
  const r = await a.pushChanged();
  assertVersion1Held(store, r);
});

Deno.test("a push deleting the committed marker's version with the marker moved to a version it publishes deletes it", async () => {
  const { store, a } = await version1DeletedHere();
  await putVersion(a, "2", { data: DATA });
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted.sort(), FILES("1"));
  assert.equal(store.peekText(MARKER), "2");
  assertMarkerFollowable(store);
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a push deleting the committed marker's version with the marker moved to a version still being written holds that deletion", async () => {
  const { store, a } = await version1DeletedHere({ unfinishedVersions: "hold" });
  // Version 2's raw, its metadata.yaml not written yet: held back, and the marker with it.
  await put(a, `${DATA}/2/raw`, "a's raw 2");
  await put(a, MARKER, "2");
  const r = await a.pushChanged();
  assertVersion1Held(store, r);
});

Deno.test("a push deleting the committed marker's version holds that deletion when the version the marker here names is held back by another writer's upload in the way", async () => {
  const { store, a } = await version1DeletedHere();
  await store.put(`${DATA}/2/raw`, new TextEncoder().encode("theirs"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "another-writer" },
  });
  await putVersion(a, "2", { data: DATA });
  const r = await a.pushChanged();
  assertVersion1DeletionHeld(store, r);
  assert.equal(store.peekText(MARKER), "1");
  await assertIndexCurrent(store, { held: true });
  // That writer's upload gone: the next push publishes version 2 and the marker, then deletes 1.
  await store.delete(`${DATA}/2/raw`);
  const next = await a.pushChanged();
  assert.deepEqual(next.deleted.sort(), FILES("1"));
  assert.equal(store.peekText(MARKER), "2");
  assertMarkerFollowable(store);
  await assertIndexCurrent(store, { held: true });
});
