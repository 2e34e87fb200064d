/**
 * `deleteUploads` and old clients' writes on an ETag-versioned store (S3:
 * the version is the bytes' MD5), told apart from this run's own uploads by
 * the writer id these carry: an old client's write of the same bytes is
 * never deleted, and put back only while an index names it.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../sync/hash.ts";
import { hookedStore, InMemoryStore, peerPull, peerPush } from "../packages/testing/mod.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import {
  enc,
  eraseAsMe,
  eraseRun,
  etagStore,
  META,
  NO_RETRY,
  oldClientWriteTaken,
  onceAt,
  RAW,
  runUploads,
  uploadAsMe,
} from "./erasure_steps_kit.ts";

/**
 * An old client's plain write of the same bytes over this run's upload (on S3
 * the version is the ETag, the bytes' MD5: it stays as it was), and its
 * commit, which names the path with no version, before or after the erasure.
 */
for (const commitFirst of [true, false]) {
  Deno.test(
    `deleteUploads never deletes an old client's write of the same bytes over the run's upload (an ETag-versioned store; its commit ${
      commitFirst ? "before" : "after"
    } the erasure)`,
    async () => {
      const store = new InMemoryStore({ versionFromBytes: true });
      const mine = await uploadAsMe(store, META, "same");
      const theirs = await store.put(META, enc("same"), PutModes.overwrite);
      assert.equal(theirs.version, mine.version, "the same bytes, the same ETag");
      const h = await sha256Hex(enc("same"));
      const commit = () =>
        updateIndex(store, { set: { [META]: { v: `~${h}`, h, s: 4 } }, remove: [] }, NO_RETRY);
      if (commitFirst) await commit();
      const r = await eraseAsMe(store, META, mine.version, "same");
      if (!commitFirst) await commit();
      assert.equal(store.peekText(META), "same", "the old client's committed file is there");
      assert.deepEqual(r, { deleted: [], kept: [META], pending: [], restored: [] });
    },
  );
}

Deno.test("deleteUploads deletes the run's own upload on an ETag-versioned store (it carries this cache's writer id)", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const mine = await uploadAsMe(store, RAW, "out");
  const r = await eraseAsMe(store, RAW, mine.version, "out");
  assert.deepEqual(r, { deleted: [RAW], kept: [], pending: [], restored: [] });
  assert.equal(await store.head(RAW), null);
});

Deno.test("deleteUploads puts back an object an old client's commit names by its bytes, deleted before that commit was seen", async () => {
  const inner = new InMemoryStore({ versionFromBytes: true });
  const mine = await uploadAsMe(inner, RAW, "same");
  const h = await sha256Hex(enc("same"));
  // The old client found the bytes it meant to write in place, and its commit
  // lands between the erasure's index read and its delete.
  const commit = () =>
    updateIndex(inner, { set: { [RAW]: { v: `~${h}`, h, s: 4 } }, remove: [] }, NO_RETRY);
  const store = hookedStore(inner, { beforeDelete: onceAt(RAW, commit) });
  const r = await eraseAsMe(store, RAW, mine.version, "same");
  assert.deepEqual(r, { deleted: [], kept: [], pending: [], restored: [RAW] });
  assert.equal(inner.peekText(RAW), "same");
  assert.equal((await readIndex(inner, NO_RETRY))!.entries[RAW].h, h, "its entry as it wrote it");
});

Deno.test("deleteUploads deletes the run's upload by its version when the look at its writer fails, rather than leave it for a later push", async () => {
  const store = new InMemoryStore();
  const mine = await uploadAsMe(store, RAW, "out");
  store.failNext("head", 1);
  const r = await eraseAsMe(store, RAW, mine.version, "out");
  assert.deepEqual(r, { deleted: [RAW], kept: [], pending: [], restored: [] });
});

Deno.test("ETag store: an old client's same-bytes write an erasure's delete took is put back before the erasure's next delete, so an old client's pull meanwhile finds it there", async () => {
  const { inner, now } = etagStore();
  await peerPush(inner, { "logs/old.log": "an old client's log" }, { now });
  const { meta, raw } = await runUploads(inner);
  // An old client writes the run's metadata (the same bytes: the same
  // version) with its entry between the erasure's look at the object and
  // its delete; then, before the erasure's next delete, an old client's
  // pull meets that object gone and writes back its index without the entry.
  const store = hookedStore(inner, {
    beforeDelete: async (key) => {
      if (key === META) await peerPush(inner, { [META]: "same meta" }, { now });
      if (key === RAW) await peerPull(inner);
    },
  });
  await eraseRun(store, [
    { path: META, version: meta.version },
    { path: RAW, version: raw.version },
  ]);
  const entry = (await readIndex(inner, NO_RETRY))?.entries[META];
  assert.equal(
    entry?.h,
    await sha256Hex(enc("same meta")),
    "the index names the old client's write",
  );
  assert.equal(inner.peekText(META), "same meta", "the store holds the old client's write");
  assert.equal(await inner.head(RAW), null, "the run's own upload is gone");
});

Deno.test("ETag store: a pending put-back of an old client's same-bytes write is not made once an old client's pull has dropped its entry, so no unnamed bytes hold that version", async () => {
  // An earlier erasure's delete took an old client's write of the run's
  // metadata (the same bytes, the same version; its entry kept), and its
  // delete of the raw output failed: both left to this, the next push's.
  const { inner, meta, raw } = await oldClientWriteTaken();
  // An old client's pull met that object gone and writes back its index
  // without the entry while this erasure deletes the raw output.
  const store = hookedStore(inner, {
    beforeDelete: async (key) => {
      if (key === RAW) await peerPull(inner);
    },
  });
  const r = await eraseRun(store, [
    { path: RAW, version: raw.version },
    { path: META, version: meta.version },
  ]);
  assert.equal((await readIndex(inner, NO_RETRY))?.entries[META], undefined, "dropped");
  assert.equal(
    await inner.head(META),
    null,
    "no bytes put back that no index names: a later run of the version would take them for another writer's",
  );
  assert.deepEqual(r.restored, []);
  assert.deepEqual(r.pending, []);
  assert.equal(await inner.head(RAW), null, "the run's own upload is gone");
});

Deno.test("ETag store: a put-back of an old client's same-bytes write looks at the index right before it, so an old client's pull that dropped the entry meanwhile leaves the path empty", async () => {
  // An earlier erasure's deletes took an old client's write of the run's
  // metadata (the same bytes, the same version; its entry kept) and the
  // raw output, and its look at the index after failed: both left to this,
  // the next push's.
  const { inner, meta, raw } = await oldClientWriteTaken();
  await inner.delete(RAW);
  // An old client's pull that met the metadata gone writes back its index
  // without the entry while this erasure looks at the raw output, after its
  // one index read.
  let pulled = false;
  const store: ObjectStore = {
    ...inner,
    endpoint: inner.endpoint,
    get: (k, o) => inner.get(k, o),
    put: (k, b, m, o) => inner.put(k, b, m, o),
    delete: (k, o) => inner.delete(k, o),
    list: (p, o) => inner.list(p, o),
    head: async (k, o) => {
      if (k === RAW && !pulled) {
        pulled = true;
        await peerPull(inner);
      }
      return inner.head(k, o);
    },
  };
  const r = await eraseRun(store, [
    { path: META, version: meta.version },
    { path: RAW, version: raw.version },
  ]);
  assert.ok(pulled);
  assert.equal((await readIndex(inner, NO_RETRY))?.entries[META], undefined, "dropped");
  assert.equal(await inner.head(META), null, "no bytes put back that no index names");
  assert.deepEqual(r.restored, []);
  assert.deepEqual(r.pending, []);
});
