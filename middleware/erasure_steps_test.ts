import assert from "node:assert/strict";
import { deleteUploads } from "./erasure_steps.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { META_KEY, MONOLITH_KEY, monolithBody } from "../sync/transfer/bucket_layout.ts";
import { UnreachableError } from "../sync/errors.ts";
import {
  FakeClock,
  hookedStore,
  InMemoryStore,
  peerPull,
  peerPush,
} from "../packages/testing/mod.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

const enc = (s: string) => new TextEncoder().encode(s);
const D = "data/t/m/d";

/** The erasure of this run's upload of "same" at `path` (its local copy "same"). */
function eraseSame(store: InMemoryStore, path: string, version: string) {
  return deleteUploads(
    store,
    [{ path, version }],
    undefined,
    1,
    () => Promise.resolve(enc("same")),
  );
}

/** This run's upload of `text` at `path`, as a cache whose writer id is "me" writes it. */
function uploadAsMe(store: InMemoryStore, path: string, text: string) {
  return store.put(path, enc(text), PutModes.create, { metadata: { "sluice-writer": "me" } });
}

/** The erasure, by the cache whose writer id is "me", of its upload at `path` (its local copy `text`). */
function eraseAsMe(store: ObjectStore, path: string, version: string, text: string) {
  return deleteUploads(
    store,
    [{ path, version }],
    undefined,
    1,
    () => Promise.resolve(enc(text)),
    "me",
  );
}

/** An upload of "same" at `path` (this run's), and a peer's commit that names it, to run when wanted. */
/** A store hook that runs `fn` once, before the first call on `path`; `fired` once it has. */
function onceAt(path: string, fn: () => Promise<unknown>) {
  const hook = async (key: string) => {
    if (hook.fired || key !== path) return;
    hook.fired = true;
    await fn();
  };
  hook.fired = false;
  return hook;
}

async function sameUpload(store: InMemoryStore, path: string) {
  const mine = await store.put(path, enc("same"), PutModes.create);
  const h = await sha256Hex(enc("same"));
  const name = () =>
    updateIndex(store, {
      set: { [path]: { v: mine.version, h, s: 4 } },
      remove: [],
      base: { [path]: null },
      check: [path],
    }, NO_RETRY);
  return { mine, h, name };
}

Deno.test("deleteUploads falls back to compare-then-delete where conditional deletes are refused", async () => {
  const store = new InMemoryStore();
  const a = await store.put("k1", enc("a"), PutModes.overwrite);
  const b = await store.put("k2", enc("b"), PutModes.overwrite);
  await store.put("k2", enc("peer"), PutModes.overwrite);
  store.conditionalMode = "refuse";
  const r = await deleteUploads(store, [
    { path: "k1", version: a.version },
    { path: "k2", version: b.version },
  ]);
  assert.deepEqual(r, { deleted: ["k1"], kept: ["k2"], pending: [], restored: [] });
  assert.equal(store.peekText("k2"), "peer");
});

Deno.test("deleteUploads keeps an upload the remote index names: a peer committed it as its own", async () => {
  const store = new InMemoryStore();
  const a = await store.put("data/t/m/d/2/raw", enc("same"), PutModes.create);
  const b = await store.put("data/t/m/d/2/metadata.yaml", enc("v"), PutModes.create);
  const entries = { "data/t/m/d/2/raw": { v: a.version, h: await sha256Hex(enc("same")), s: 4 } };
  await store.put(MONOLITH_KEY, monolithBody(entries, new Date(0).toISOString()), PutModes.create);
  const r = await deleteUploads(store, [
    { path: "data/t/m/d/2/raw", version: a.version },
    { path: "data/t/m/d/2/metadata.yaml", version: b.version },
  ]);
  assert.deepEqual(r, {
    deleted: ["data/t/m/d/2/metadata.yaml"],
    kept: ["data/t/m/d/2/raw"],
    pending: [],
    restored: [],
  });
  assert.equal(store.peekText("data/t/m/d/2/raw"), "same");
});

for (const withPutBack of [true, false]) {
  Deno.test(
    `deleteUploads ${
      withPutBack ? "puts back" : "with no local copy to put back, leaves pending"
    } an object a peer's commit named between its index read and its delete`,
    async () => {
      const inner = new InMemoryStore();
      const RAW = `${D}/2/raw`;
      const { mine, h, name } = await sameUpload(inner, RAW);
      // The peer checked the object was there, then its commit lands.
      const store = hookedStore(inner, { beforeDelete: onceAt(RAW, name) });
      const r = await deleteUploads(
        store,
        [{ path: RAW, version: mine.version }],
        undefined,
        1,
        withPutBack ? () => Promise.resolve(enc("same")) : undefined,
      );
      const named = (await readIndex(inner, NO_RETRY))!.entries[RAW];
      const held = await inner.head(RAW);
      if (!withPutBack) {
        // Without its local copy the erasure cannot put it back: the peer's
        // published file is gone, and it says so (pending, not deleted).
        assert.equal(held, null);
        assert.deepEqual(r.pending.map((u) => u.path), [RAW]);
        return;
      }
      assert.deepEqual(r, { deleted: [], kept: [], pending: [], restored: [RAW] });
      assert.equal(inner.peekText(RAW), "same");
      assert.equal(named.v, held!.version, "the entry names the object put back");
      assert.equal(named.h, h);
    },
  );
}

Deno.test("deleteUploads puts back an upload the index names whose object is gone (an erasure cut off after its delete), and never bytes that differ", async () => {
  const store = new InMemoryStore();
  const RAW = `${D}/3/raw`;
  const mine = await store.put(RAW, enc("out"), PutModes.create);
  const h = await sha256Hex(enc("out"));
  await updateIndex(store, {
    set: { [RAW]: { v: mine.version, h, s: 3 } },
    remove: [],
    base: { [RAW]: null },
  }, NO_RETRY);
  await store.delete(RAW);
  const wrong = await deleteUploads(
    store,
    [{ path: RAW, version: mine.version }],
    undefined,
    1,
    () => Promise.resolve(enc("other")),
  );
  assert.deepEqual(wrong.pending.map((u) => u.path), [RAW], "other bytes are never put back");
  assert.equal(await store.head(RAW), null);
  const r = await deleteUploads(
    store,
    [{ path: RAW, version: mine.version }],
    undefined,
    1,
    () => Promise.resolve(enc("out")),
  );
  assert.deepEqual(r.restored, [RAW]);
  assert.equal(store.peekText(RAW), "out");
  assert.equal(
    (await readIndex(store, NO_RETRY))!.entries[RAW].v,
    (await store.head(RAW))!.version,
  );
});

Deno.test("deleteUploads names its own earlier put-back whose index update failed, on the next try", async () => {
  const inner = new InMemoryStore();
  const RAW = `${D}/4/raw`;
  const { mine, name } = await sameUpload(inner, RAW);
  let failIndex = false;
  const store = hookedStore(inner, {
    // A peer's commit names the object just before the delete.
    beforeDelete: onceAt(RAW, async () => {
      await name();
      failIndex = true; // the put-back's index update fails once
    }),
    before: (key) => {
      if (failIndex && key !== RAW) {
        failIndex = false;
        throw new Error("network");
      }
    },
  });
  const first = await eraseSame(store, RAW, mine.version);
  assert.deepEqual(first.pending.map((u) => u.path), [RAW], "not named yet: pending");
  const again = await eraseSame(store, RAW, mine.version);
  assert.deepEqual(again.restored, [RAW]);
  const named = (await readIndex(inner, NO_RETRY))!.entries[RAW];
  assert.equal(named.v, (await inner.head(RAW))!.version, "the index names the object put back");
});

Deno.test("deleteUploads leaves a put-back pending when what refused its create is gone before it can be read", async () => {
  const inner = new InMemoryStore();
  const RAW = `${D}/5/raw`;
  const { mine, name } = await sameUpload(inner, RAW);
  await name();
  await inner.delete(RAW); // gone: this erasure was cut off after its delete
  let other = false;
  const store = hookedStore(inner, {
    before: async (key) => {
      // Another upload of the same bytes is there at the put-back ...
      if (!other && key === RAW) {
        other = true;
        await inner.put(RAW, enc("same"), PutModes.create);
      }
    },
  });
  // ... and gone again before it can be read.
  const get = inner.get.bind(inner);
  inner.get = async (key, o) => {
    if (key === RAW && other) await inner.delete(RAW);
    return await get(key, o);
  };
  const r = await eraseSame(store, RAW, mine.version);
  assert.deepEqual(r.restored, []);
  assert.deepEqual(r.pending.map((u) => u.path), [RAW], "looked at again by the next push");
});

Deno.test("deleteUploads never puts back a path whose deletion was committed after the peer named it", async () => {
  const inner = new InMemoryStore();
  const RAW = `${D}/6/raw`;
  const { mine, name } = await sameUpload(inner, RAW);
  // The peer's commit names the object just before the delete ...
  const named = onceAt(RAW, name);
  const store = hookedStore(inner, {
    beforeDelete: named,
    before: async (key) => {
      // ... and before the put-back, a deletion of the path is committed.
      if (named.fired && key === RAW) {
        await updateIndex(inner, { set: {}, remove: [RAW] }, NO_RETRY);
      }
    },
  });
  const r = await eraseSame(store, RAW, mine.version);
  assert.deepEqual(r.pending, []);
  assert.equal((await readIndex(inner, NO_RETRY))?.entries[RAW], undefined, "the deletion stands");
  assert.equal(await inner.head(RAW), null, "nothing left holding the path");
});

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
      const META = `${D}/1/metadata.yaml`;
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
  const RAW = `${D}/1/raw`;
  const mine = await uploadAsMe(store, RAW, "out");
  const r = await eraseAsMe(store, RAW, mine.version, "out");
  assert.deepEqual(r, { deleted: [RAW], kept: [], pending: [], restored: [] });
  assert.equal(await store.head(RAW), null);
});

Deno.test("deleteUploads puts back an object an old client's commit names by its bytes, deleted before that commit was seen", async () => {
  const inner = new InMemoryStore({ versionFromBytes: true });
  const RAW = `${D}/1/raw`;
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
  const RAW = `${D}/1/raw`;
  const mine = await uploadAsMe(store, RAW, "out");
  store.failNext("head", 1);
  const r = await eraseAsMe(store, RAW, mine.version, "out");
  assert.deepEqual(r, { deleted: [RAW], kept: [], pending: [], restored: [] });
});

Deno.test("ETag store: an old client's same-bytes write an erasure's delete took is put back before the erasure's next delete, so an old client's pull meanwhile finds it there", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const inner = new InMemoryStore({ versionFromBytes: true, clock });
  const now = () => clock.now();
  const META = `${D}/1/metadata.yaml`;
  const RAW = `${D}/1/raw`;
  await peerPush(inner, { "logs/old.log": "an old client's log" }, { now });
  const meta = await uploadAsMe(inner, META, "same meta");
  const raw = await uploadAsMe(inner, RAW, "same raw");
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
  const local: Record<string, string> = { [META]: "same meta", [RAW]: "same raw" };
  await deleteUploads(
    store,
    [{ path: META, version: meta.version }, { path: RAW, version: raw.version }],
    undefined,
    1,
    (path) => Promise.resolve(enc(local[path])),
    "me",
  );
  const entry = (await readIndex(inner, NO_RETRY))?.entries[META];
  assert.equal(
    entry?.h,
    await sha256Hex(enc("same meta")),
    "the index names the old client's write",
  );
  assert.equal(inner.peekText(META), "same meta", "the store holds the old client's write");
  assert.equal(await inner.head(RAW), null, "the run's own upload is gone");
});

Deno.test("deleteUploads leaves a named upload it was to put back pending when its look at the index after its deletes fails", async () => {
  const inner = new InMemoryStore();
  const GONE = `${D}/3/raw`;
  const MINE = `${D}/4/raw`;
  // A peer's committed version this erasure deleted before it was cut off: named, gone.
  const named = await inner.put(GONE, enc("out"), PutModes.create);
  await updateIndex(inner, {
    set: { [GONE]: { v: named.version, h: await sha256Hex(enc("out")), s: 3 } },
    remove: [],
    base: { [GONE]: null },
  }, NO_RETRY);
  await inner.delete(GONE);
  // And the run's own upload, named by nothing: deleted, then the index read after fails.
  const mine = await uploadAsMe(inner, MINE, "out");
  const store = hookedStore(inner, {
    beforeDelete: (key) => {
      if (key === MINE) inner.failNext("get", 1, () => new Error("cut off"));
      return Promise.resolve();
    },
  });
  const r = await deleteUploads(
    store,
    [{ path: GONE, version: named.version }, { path: MINE, version: mine.version }],
    undefined,
    1,
    () => Promise.resolve(enc("out")),
    "me",
  );
  assert.equal(await inner.head(MINE), null);
  // Neither is settled: both are looked at again by the next push, whose
  // erasure puts the named one back.
  assert.deepEqual(r.pending.map((u) => u.path).sort(), [GONE, MINE]);
  const again = await deleteUploads(
    inner,
    r.pending,
    undefined,
    1,
    () => Promise.resolve(enc("out")),
    "me",
  );
  assert.deepEqual(again.restored, [GONE]);
  assert.equal(inner.peekText(GONE), "out");
});

/** `store`, counting its calls in flight; `most` is the largest number seen at once, `side` names the calls made beside another. */
function inFlight(store: ObjectStore) {
  const seen = { now: new Set<string>(), most: 0, side: [] as string[] };
  const counted = <T>(what: string, call: () => Promise<T>): Promise<T> => {
    if (seen.now.size > 0) seen.side.push(`${what} beside ${[...seen.now].join(", ")}`);
    seen.now.add(what);
    seen.most = Math.max(seen.most, seen.now.size);
    return call().finally(() => seen.now.delete(what));
  };
  const wrapped: ObjectStore = {
    ...store,
    endpoint: store.endpoint,
    get: (k, o) => counted(`get ${k}`, () => store.get(k, o)),
    head: (k, o) => counted(`head ${k}`, () => store.head(k, o)),
    put: (k, b, m, o) => counted(`put ${k}`, () => store.put(k, b, m, o)),
    delete: (k, o) => counted(`delete ${k}`, () => store.delete(k, o)),
    list: (p, o) => store.list(p, o),
  };
  return { store: wrapped, seen };
}

Deno.test("deleteUploads with concurrency 1 puts back and names an upload one request at a time: no shard read runs beside its index write", async () => {
  const inner = new InMemoryStore();
  const RAW = `${D}/3/raw`;
  const mine = await inner.put(RAW, enc("out"), PutModes.create);
  await updateIndex(inner, {
    set: { [RAW]: { v: mine.version, h: await sha256Hex(enc("out")), s: 3 } },
    remove: [],
    base: { [RAW]: null },
  }, NO_RETRY);
  await inner.delete(RAW);
  const { store, seen } = inFlight(inner);
  const r = await deleteUploads(
    store,
    [{ path: RAW, version: mine.version }],
    undefined,
    1,
    () => Promise.resolve(enc("out")),
  );
  assert.deepEqual(r.restored, [RAW]);
  assert.deepEqual(seen.side, [], "no store call of the erasure runs beside another");
  assert.equal(seen.most, 1);
  assert.equal(seen.now.size, 0, "nothing of the erasure is left running after it returned");
});

Deno.test("ETag store: a pending put-back of an old client's same-bytes write is not made once an old client's pull has dropped its entry, so no unnamed bytes hold that version", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const inner = new InMemoryStore({ versionFromBytes: true, clock });
  const now = () => clock.now();
  const META = `${D}/1/metadata.yaml`;
  const RAW = `${D}/1/raw`;
  // An earlier erasure's delete took an old client's write of the run's
  // metadata (the same bytes, the same version; its entry kept), and its
  // delete of the raw output failed: both left to this, the next push's.
  const meta = await uploadAsMe(inner, META, "same meta");
  const raw = await uploadAsMe(inner, RAW, "same raw");
  await peerPush(inner, { [META]: "same meta" }, { now });
  await inner.delete(META);
  // An old client's pull met that object gone and writes back its index
  // without the entry while this erasure deletes the raw output.
  const store = hookedStore(inner, {
    beforeDelete: async (key) => {
      if (key === RAW) await peerPull(inner);
    },
  });
  const local: Record<string, string> = { [META]: "same meta", [RAW]: "same raw" };
  const r = await deleteUploads(
    store,
    [{ path: RAW, version: raw.version }, { path: META, version: meta.version }],
    undefined,
    1,
    (path) => Promise.resolve(enc(local[path])),
    "me",
  );
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
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const inner = new InMemoryStore({ versionFromBytes: true, clock });
  const now = () => clock.now();
  const META = `${D}/1/metadata.yaml`;
  const RAW = `${D}/1/raw`;
  // An earlier erasure's deletes took an old client's write of the run's
  // metadata (the same bytes, the same version; its entry kept) and the
  // raw output, and its look at the index after failed: both left to this,
  // the next push's.
  const meta = await uploadAsMe(inner, META, "same meta");
  const raw = await uploadAsMe(inner, RAW, "same raw");
  await peerPush(inner, { [META]: "same meta" }, { now });
  await inner.delete(META);
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
  const local: Record<string, string> = { [META]: "same meta", [RAW]: "same raw" };
  const r = await deleteUploads(
    store,
    [{ path: META, version: meta.version }, { path: RAW, version: raw.version }],
    undefined,
    1,
    (path) => Promise.resolve(enc(local[path])),
    "me",
  );
  assert.ok(pulled);
  assert.equal((await readIndex(inner, NO_RETRY))?.entries[META], undefined, "dropped");
  assert.equal(await inner.head(META), null, "no bytes put back that no index names");
  assert.deepEqual(r.restored, []);
  assert.deepEqual(r.pending, []);
});

Deno.test("deleteUploads keeps an upload a v2 shard names that the meta does not list yet (a peer's commit cut off before its meta bump): the next commit into that shard publishes the entry", async () => {
  const store = new InMemoryStore();
  await store.put(
    META_KEY,
    enc(JSON.stringify({ version: 2, partitions: [], commitSeq: 0 })),
    PutModes.create,
  );
  const path = `${D}/1/raw`;
  const mine = await uploadAsMe(store, path, "same");
  // A same-output peer took this upload as its own; its commit wrote the
  // shard, and the meta bump that lists it was cut off.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: false,
    match: (k) => k === META_KEY,
  });
  await assert.rejects(updateIndex(store, {
    set: { [path]: { v: mine.version, h: await sha256Hex(enc("same")), s: 4 } },
    remove: [],
    base: { [path]: null },
    check: [path],
  }, NO_RETRY));
  assert.equal((await readIndex(store, NO_RETRY))?.entries[path], undefined, "not listed yet");
  const r = await eraseAsMe(store, path, mine.version, "same");
  assert.deepEqual([r.deleted, r.kept], [[], [path]]);
  // Another commit into that shard lists it, and the entry with it.
  const other = await store.put(`${D}/2/raw`, enc("x"), PutModes.create);
  await updateIndex(store, {
    set: { [`${D}/2/raw`]: { v: other.version, h: await sha256Hex(enc("x")), s: 1 } },
    remove: [],
    base: {},
  }, NO_RETRY);
  assert.equal((await readIndex(store, NO_RETRY))?.entries[path]?.v, mine.version);
  assert.equal(store.peekText(path), "same", "the index names an object the erasure deleted");
});
