import assert from "node:assert/strict";
import {
  hookedStore,
  InMemoryStore,
  mockPushContext,
  mockWriteContext,
  planEntry,
} from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { assertIndexCurrent, clone, pastDanglingGrace, put } from "../sync/service/clone_kit.ts";
import { VersionConflictError } from "../sync/errors.ts";
import { setAsideVersion } from "./lost_version.ts";
import { settleRefused } from "./config_cas_met.ts";
import { PUSH_WAITING_UNCOMMITTED } from "./cas_outcomes.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const indexKey = (k: string) => k.startsWith("_") || k.startsWith(".");

/**
 * Cache "a" pushes version 1 of `D` and its marker, then writes version 2 and
 * moves the marker to it; that push uploads both (the marker over the
 * committed one) and its commit is cut off.
 */
async function cutOffMarkerPush(store: InMemoryStore, D: string) {
  const marker = `${D}/latest`;
  const a = await clone(store, "a");
  await put(a, `${D}/1/raw`, "v1");
  await put(a, `${D}/1/metadata.yaml`, "version: 1");
  await put(a, marker, "1");
  await a.pushChanged();
  await put(a, `${D}/2/raw`, "v2");
  await put(a, `${D}/2/metadata.yaml`, "version: 2");
  await put(a, marker, "2");
  store.failNext("put", 50, undefined, { match: indexKey });
  await assert.rejects(a.pushChanged());
  store.heal();
  return { a, marker };
}

/** The index is current, and a fresh clone pulls nothing uncommitted and reads marker "1". */
async function assertFreshCloneReadsOne(store: InMemoryStore, marker: string) {
  await assertIndexCurrent(store, { held: true });
  const b = await clone(store, "b");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.uncommitted, []);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${marker}`), "1");
}

Deno.test("a lost version's marker reset here takes back this cache's unnamed upload of the marker, never a peer's or a named one", async () => {
  // Chaos seed 118000955: a run's marker upload (naming version 2), its commit
  // cut off; the marker then set one back here (to version 1), which another
  // writer publishes first. The reset leaves nothing of the marker to push,
  // and a peer's push of its own marker waits on that upload while it stays.
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  const setUp = async (data: string) => {
    await m.cache.write(`${data}/1/raw`, bytes("mine 1"));
    await m.cache.write(`${data}/2/raw`, bytes("mine 2"));
    const two = await store.put(`${data}/2/raw`, bytes("mine 2"), PutModes.create, mine);
    await updateIndex(store, {
      set: { [`${data}/2/raw`]: { v: two.version, h: await sha256Hex(bytes("mine 2")), s: 6 } },
      remove: [],
    }, retry);
    await m.state.recordSynced(`${data}/2/raw`, {
      hash: await sha256Hex(bytes("mine 2")),
      version: two.version,
      size: 6,
    });
    await m.cache.write(`${data}/latest`, bytes("1"));
    await m.state.markDirty(`${data}/latest`);
    await store.put(`${data}/1/raw`, bytes("theirs"), PutModes.create, {
      metadata: { [WRITER_METADATA]: "peer" },
    });
  };
  const data = "data/t/m/out";
  await setUp(data);
  await store.put(`${data}/latest`, bytes("2"), PutModes.create, mine);

  await setAsideVersion(m.ctx, `${data}/1`, `${data}/1/raw`, false, "me");
  assert.equal(new TextDecoder().decode((await m.cache.read(`${data}/latest`))!), "2");
  assert.ok(!m.state.dirtyPaths().includes(`${data}/latest`), "nothing of it left to push");
  assert.deepEqual(m.warnings.map((w) => w.code), ["latest_reset"]);
  assert.equal(store.peekText(`${data}/latest`), undefined, "own and unnamed: deleted");

  // A peer's upload of the marker, and one of this cache's the index names, stay.
  const peer = "data/t/m/peer";
  await setUp(peer);
  await store.put(`${peer}/latest`, bytes("2"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await setAsideVersion(m.ctx, `${peer}/1`, `${peer}/1/raw`, false, "me");
  assert.equal(store.peekText(`${peer}/latest`), "2", "a peer's: kept");
  const named = "data/t/m/named";
  await setUp(named);
  const marker = await store.put(`${named}/latest`, bytes("2"), PutModes.create, mine);
  await updateIndex(store, {
    set: { [`${named}/latest`]: { v: marker.version, h: await sha256Hex(bytes("2")), s: 1 } },
    remove: [],
  }, retry);
  await setAsideVersion(m.ctx, `${named}/1`, `${named}/1/raw`, false, "me");
  assert.equal(store.peekText(`${named}/latest`), "2", "own but named: kept");
});

Deno.test("a marker take-back never deletes the upload a peer's commit names meanwhile (its same-bytes write took this cache's object)", async () => {
  // This cache's run uploaded the marker naming version 2, its commit cut
  // off. A peer that pulled version 2 pushes its own marker naming it: the
  // same bytes, so its write counts as done (`identical`) and its commit
  // names this cache's object. That commit lands between the take-back's
  // look at the index and its delete.
  const data = "data/t/m/race";
  const marker = `${data}/latest`;
  const inner = new InMemoryStore();
  let peerCommitted = false;
  const store = hookedStore(inner, {
    beforeDelete: async (key) => {
      if (key !== marker || peerCommitted) return;
      peerCommitted = true;
      const head = (await inner.head(marker))!;
      await updateIndex(inner, {
        set: { [marker]: { v: head.version, h: await sha256Hex(bytes("2")), s: 1 } },
        remove: [],
      }, retry);
    },
  });
  const m = await mockPushContext({ store });
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  await m.cache.write(`${data}/1/raw`, bytes("mine 1"));
  await m.cache.write(`${data}/2/raw`, bytes("mine 2"));
  const two = await inner.put(`${data}/2/raw`, bytes("mine 2"), PutModes.create, mine);
  await updateIndex(inner, {
    set: { [`${data}/2/raw`]: { v: two.version, h: await sha256Hex(bytes("mine 2")), s: 6 } },
    remove: [],
  }, retry);
  await m.state.recordSynced(`${data}/2/raw`, {
    hash: await sha256Hex(bytes("mine 2")),
    version: two.version,
    size: 6,
  });
  await m.cache.write(marker, bytes("1"));
  await m.state.markDirty(marker);
  await inner.put(`${data}/1/raw`, bytes("theirs"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await inner.put(marker, bytes("2"), PutModes.create, mine);

  await setAsideVersion(m.ctx, `${data}/1`, `${data}/1/raw`, false, "me");
  assert.ok(peerCommitted, "the peer's commit landed before the take-back's delete");
  assert.equal(
    inner.peekText(marker),
    "2",
    "the marker a peer's commit names is on the store (put back, or never deleted)",
  );
  assert.equal((await inner.head(marker))?.metadata?.[WRITER_METADATA], "me", "as this cache's");
  assert.equal(
    entryTime(inner, marker),
    new Date(m.clock.now()).toISOString(),
    "timed by its clock",
  );
});

/**
 * The marker was committed naming version 1. A run here wrote version 2
 * and moved the marker to it; its push uploaded both, the marker over the
 * committed one (a bucket without object versions keeps only that
 * upload), and its commit was cut off. Version 2 then changed here: lost
 * (a data version is never rewritten), and the reset sets the marker back
 * to 1, its synced copy, taking the upload back.
 */
async function takeBackOverCommitted() {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  const data = "data/t/m/over";
  const marker = `${data}/latest`;
  await m.cache.write(`${data}/1/raw`, bytes("mine 1"));
  const one = await store.put(`${data}/1/raw`, bytes("mine 1"), PutModes.create, mine);
  const committed = await store.put(marker, bytes("1"), PutModes.create, mine);
  await updateIndex(store, {
    set: {
      [`${data}/1/raw`]: { v: one.version, h: await sha256Hex(bytes("mine 1")), s: 6 },
      [marker]: { v: committed.version, h: await sha256Hex(bytes("1")), s: 1 },
    },
    remove: [],
  }, retry);
  await m.state.recordSynced(`${data}/1/raw`, {
    hash: await sha256Hex(bytes("mine 1")),
    version: one.version,
    size: 6,
  });
  await m.state.recordSynced(marker, {
    hash: await sha256Hex(bytes("1")),
    version: committed.version,
    size: 1,
  });
  await m.cache.write(`${data}/2/raw`, bytes("mine 2, changed since"));
  await store.put(`${data}/2/raw`, bytes("mine 2"), PutModes.create, mine); // commit cut off
  await m.cache.write(marker, bytes("2"));
  await m.state.markDirty(marker);
  await store.put(marker, bytes("2"), PutModes.update(committed.version), mine); // commit cut off

  await setAsideVersion(m.ctx, `${data}/2`, `${data}/2/raw`, true, "me");
  return { store, m, marker };
}

Deno.test("a marker take-back over a committed marker never leaves the path the index names with no object", async () => {
  const { store, m, marker } = await takeBackOverCommitted();
  assert.equal(
    new TextDecoder().decode((await m.cache.read(marker))!),
    "1",
    "reset to its synced copy",
  );
  assert.ok(!m.state.dirtyPaths().includes(marker), "nothing of it left to push");
  assert.notEqual(
    store.peekText(marker),
    undefined,
    "the index names the marker: the take-back must not leave no object there (put back the synced bytes, or keep the upload)",
  );
  // Best: the committed bytes put back, and named in place of the version they had.
  assert.equal(store.peekText(marker), "1");
  await assertIndexCurrent(store, { held: true });
  assert.equal(
    m.state.synced(marker)?.version,
    (await store.head(marker))?.version,
    "synced as named",
  );
});

/** The time the monolithic index records for `path`'s entry. */
function entryTime(store: InMemoryStore, path: string): string | undefined {
  return JSON.parse(store.peekText(".datastore-index.json")!).entries[path]?.lastModified;
}

Deno.test("a marker take-back puts the committed marker back as this cache's write: its entry dropped after, this cache's next write of the marker waits on no one", async () => {
  // Chaos seed 210400008: the copy put back carried no writer id; an old
  // client's pull then dropped its entry, and this cache's write of the
  // marker waited on it as on another writer's uncommitted upload.
  const { store, m, marker } = await takeBackOverCommitted();
  assert.equal((await store.head(marker))?.metadata?.[WRITER_METADATA], "me");
  // An old client's pull writes back the index it read, without the entry.
  await updateIndex(store, { set: {}, remove: [marker] }, retry);
  const ctx = mockWriteContext(m.ctx, marker, "3", {
    entry: planEntry(marker, { class: "latest-marker" }),
    mode: PutModes.create,
  });
  await settleRefused(ctx, "me");
  assert.deepEqual(m.warnings.filter((w) => w.code === PUSH_WAITING_UNCOMMITTED), []);
  assert.equal(ctx.outcome, "written");
  assert.equal(store.peekText(marker), "3");
});

Deno.test("a marker take-back names the committed marker it puts back at the injected clock's time", async () => {
  const { store, m, marker } = await takeBackOverCommitted();
  assert.equal(entryTime(store, marker), new Date(m.clock.now()).toISOString());
});

for (const versionFromBytes of [false, true]) {
  Deno.test(
    `a push cut off before its commit, then its version changed here: the committed marker stays readable to a fresh clone (${
      versionFromBytes ? "ETag" : "generation"
    } versions)`,
    async () => {
      const store = new InMemoryStore({ versionFromBytes });
      const D = "data/t/m/out";
      // A run wrote version 2 and moved the marker to it; the push uploaded
      // both (the marker over the committed one), and its commit was cut off.
      const { a } = await cutOffMarkerPush(store, D);
      assert.equal(store.peekText(`${D}/latest`), "2", "the marker upload landed");
      // Version 2 changed here since: lost (never rewritten); the marker reset to 1.
      await put(a, `${D}/2/raw`, "v2 changed");
      await assert.rejects(a.pushChanged(), VersionConflictError);
      assert.equal(await Deno.readTextFile(`${a.cacheDir}/${D}/latest`), "1");
      // The index names the marker: the store holds it, and a fresh clone gets it.
      await assertIndexCurrent(store, { held: true });
      const b = await clone(store, "b");
      const pulled = await b.pullChanged();
      assert.deepEqual(pulled.vanished, []);
      assert.equal(await Deno.readTextFile(`${b.cacheDir}/${D}/latest`), "1");
    },
  );
}

Deno.test("a marker take-back cut off between its put-back of the committed marker and its index write is repaired by the next pull and push (generation versions)", async () => {
  // Chaos seed 199980016: the take-back put the committed bytes back under a
  // new version, the upload it deleted having written over the committed
  // marker (the version the index names is gone), and its index write naming
  // the copy never came. Nothing named that copy after: the index named a
  // version the store no longer held for good.
  const store = new InMemoryStore();
  const D = "data/t/m/cut";
  const { a, marker } = await cutOffMarkerPush(store, D);
  assert.equal(store.peekText(marker), "2", "the marker upload landed");
  await put(a, `${D}/2/raw`, "v2 changed");
  // The take-back's index write is cut off (its put-back landed).
  store.failNext("put", 50, undefined, { match: indexKey });
  await assert.rejects(a.pushChanged(), VersionConflictError);
  store.heal();
  assert.equal(store.peekText(marker), "1", "the committed bytes were put back");
  // The next pull and push of this cache name the copy put back.
  await a.pullChanged();
  await a.pushChanged();
  await assertFreshCloneReadsOne(store, marker);
});

Deno.test("a marker take-back whose put-back of the committed marker lands with its answer lost is repaired by the next pull and push", async () => {
  const store = new InMemoryStore();
  const D = "data/t/m/lost";
  const { a, marker } = await cutOffMarkerPush(store, D);
  assert.equal(store.peekText(marker), "2", "the marker upload landed");
  await put(a, `${D}/2/raw`, "v2 changed");
  // The take-back's create of the committed bytes lands, its answer lost.
  store.failNext("put", 1, undefined, { afterEffect: true, match: (k) => k === marker });
  await assert.rejects(a.pushChanged(), VersionConflictError);
  store.heal();
  assert.equal(store.peekText(marker), "1", "the committed bytes were put back");
  await a.pullChanged();
  await a.pushChanged();
  await assertFreshCloneReadsOne(store, marker);
});

Deno.test("a marker take-back whose write of the committed marker over this cache's upload fails (an outage) is made by the next push", async () => {
  const store = new InMemoryStore();
  const D = "data/t/m/outage";
  const { a, marker } = await cutOffMarkerPush(store, D);
  await put(a, `${D}/2/raw`, "v2 changed");
  store.failNext("put", 1, undefined, { match: (k) => k === marker });
  await assert.rejects(a.pushChanged(), VersionConflictError);
  store.heal();
  assert.equal(store.peekText(marker), "2", "the upload stayed");
  await a.pushChanged();
  assert.equal(store.peekText(marker), "1", "the committed bytes are there again");
  await assertFreshCloneReadsOne(store, marker);
});

for (const peerFirst of [false, true]) {
  Deno.test(
    `a marker take-back whose process dies between its put-back's create and the record of its version: the next pull and push of the cache name the copy put back, no conflict${
      peerFirst ? " (a peer pulls past the dangling-entry grace first)" : ""
    }`,
    async () => {
      // The create of the committed bytes lands, and the process stops right
      // there: the cache records the version the index names (gone), the store
      // holds the copy put back, under a version nothing knows.
      const inner = new InMemoryStore();
      const D = "data/t/m/died";
      const marker = `${D}/latest`;
      const stop = new AbortController();
      let armed = false;
      const store = hookedStore(inner, {
        after: (key) => {
          if (!armed || key !== marker || inner.peekText(marker) !== "1") return;
          armed = false;
          stop.abort();
          throw new Error("the process died here");
        },
      });
      const { a } = await cutOffMarkerPush(store, D);
      const peer = await clone(inner, "peer");
      await peer.pullChanged();
      const named = a.state.synced(marker)?.version;
      await put(a, `${D}/2/raw`, "v2 changed");
      armed = true;
      await assert.rejects(a.pushChanged({ signal: stop.signal }));
      assert.equal(armed, false, "the put-back's create landed");
      assert.equal(inner.peekText(marker), "1", "the committed bytes were put back");
      const putBack = (await inner.head(marker))?.version;
      assert.notEqual(putBack, named);
      if (peerFirst) {
        // The entry names a version the store no longer holds: no peer's pull
        // takes that for a dangling entry to remove.
        await pastDanglingGrace(peer);
        assert.deepEqual((await peer.pullChanged()).vanished, []);
        assert.equal((await readIndex(inner, retry))?.entries[marker]?.v, named);
      }
      // A new process over the same cache.
      const again = await clone(inner, "a", a.cacheDir);
      assert.equal(again.state.synced(marker)?.version, named, "its version was never recorded");
      const pulled = await again.pullChanged();
      assert.deepEqual([pulled.conflicts, pulled.uncommitted], [[], []]);
      const pushed = await again.pushChanged();
      assert.deepEqual(pushed.conflicts, []);
      assert.deepEqual(again.conflicts(), []);
      assert.equal(again.state.synced(marker)?.version, putBack, "synced as the copy put back");
      assert.deepEqual(again.state.dirtyPaths(), []);
      await assertFreshCloneReadsOne(inner, marker);
    },
  );
}

Deno.test("a marker take-back never deletes the committed marker an earlier take-back put back, whose entry an old client dropped since", async () => {
  // The committed marker put back (as this cache's write) and named; an old
  // client's pull then drops its entry, while the store still holds it and
  // peers keep it to name again. A later run here writes version 3, lost to
  // another writer before the marker was uploaded: the reset sets the marker
  // back to its synced copy, and there is no upload of this cache's to take
  // back. The committed copy must stay.
  const { store, m, marker } = await takeBackOverCommitted();
  const putBack = (await store.head(marker))!.version;
  await updateIndex(store, { set: {}, remove: [marker] }, retry);
  const data = marker.slice(0, marker.lastIndexOf("/"));
  await m.cache.write(`${data}/3/raw`, bytes("mine 3"));
  await m.state.markDirty(`${data}/3/raw`);
  await m.cache.write(marker, bytes("3"));
  await m.state.markDirty(marker);
  await store.put(`${data}/3/raw`, bytes("theirs 3"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await setAsideVersion(m.ctx, `${data}/3`, `${data}/3/raw`, false, "me");
  assert.equal(new TextDecoder().decode((await m.cache.read(marker))!), "1", "reset");
  assert.equal(store.peekText(marker), "1", "the committed marker put back is still there");
  assert.equal((await store.head(marker))?.version, putBack);
});
