/**
 * `deleteUploads` and the index: an upload a peer's commit names is kept,
 * or put back where the erasure's delete took it; one it cannot settle is
 * left pending for the next push. Old clients' writes on ETag-versioned
 * stores: `erasure_steps_old_client_test.ts`.
 */
import assert from "node:assert/strict";
import { deleteUploads } from "./erasure_steps.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { META_KEY, MONOLITH_KEY, monolithBody } from "../sync/transfer/bucket_layout.ts";
import { UnreachableError } from "../sync/errors.ts";
import { hookedStore, InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";
import {
  D,
  enc,
  eraseAsMe,
  eraseLocal,
  namedThenGone,
  NO_RETRY,
  onceAt,
  sameUpload,
  uploadAsMe,
} from "./erasure_steps_kit.ts";

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
  const mine = await namedThenGone(store, RAW);
  const wrong = await eraseLocal(store, RAW, mine.version, "other");
  assert.deepEqual(wrong.pending.map((u) => u.path), [RAW], "other bytes are never put back");
  assert.equal(await store.head(RAW), null);
  const r = await eraseLocal(store, RAW, mine.version, "out");
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
  const first = await eraseLocal(store, RAW, mine.version);
  assert.deepEqual(first.pending.map((u) => u.path), [RAW], "not named yet: pending");
  const again = await eraseLocal(store, RAW, mine.version);
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
  const r = await eraseLocal(store, RAW, mine.version);
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
  const r = await eraseLocal(store, RAW, mine.version);
  assert.deepEqual(r.pending, []);
  assert.equal((await readIndex(inner, NO_RETRY))?.entries[RAW], undefined, "the deletion stands");
  assert.equal(await inner.head(RAW), null, "nothing left holding the path");
});

Deno.test("deleteUploads leaves a named upload it was to put back pending when its look at the index after its deletes fails", async () => {
  const inner = new InMemoryStore();
  const GONE = `${D}/3/raw`;
  const MINE = `${D}/4/raw`;
  // A peer's committed version this erasure deleted before it was cut off: named, gone.
  const named = await namedThenGone(inner, GONE);
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
  const mine = await namedThenGone(inner, RAW);
  const { store, seen } = inFlight(inner);
  const r = await eraseLocal(store, RAW, mine.version, "out");
  assert.deepEqual(r.restored, [RAW]);
  assert.deepEqual(seen.side, [], "no store call of the erasure runs beside another");
  assert.equal(seen.most, 1);
  assert.equal(seen.now.size, 0, "nothing of the erasure is left running after it returned");
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
