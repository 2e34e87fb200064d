import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { keepUnindexedAbove, lostVersion, setAsideVersion, versionDir } from "./lost_version.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const DIR = "data/t/m/out/1";

Deno.test("a lost version is set aside once; this cache's unnamed objects of it go, named ones and a peer's stay", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  for (const f of ["raw", "metadata.yaml", "extra", "peer"]) {
    await m.cache.write(`${DIR}/${f}`, bytes(f));
  }
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  await store.put(`${DIR}/raw`, bytes("theirs"), PutModes.overwrite); // the refused one
  await store.put(`${DIR}/metadata.yaml`, bytes("m"), PutModes.overwrite, mine);
  const named = await store.put(`${DIR}/extra`, bytes("e"), PutModes.overwrite, mine);
  await store.put(`${DIR}/peer`, bytes("p"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await updateIndex(store, {
    set: { [`${DIR}/extra`]: { v: named.version, h: await sha256Hex(bytes("e")), s: 1 } },
    remove: [],
  }, retry);

  assert.equal(versionDir(`${DIR}/raw`), DIR);
  const aside = await setAsideVersion(m.ctx, DIR, `${DIR}/raw`, false, "me");
  assert.equal(aside.length, 4, "every local file set aside");
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), undefined, "own and unnamed: deleted");
  assert.equal(store.peekText(`${DIR}/extra`), "e", "own but named: kept");
  assert.equal(store.peekText(`${DIR}/peer`), "p", "a peer's: kept");
  assert.equal(store.peekText(`${DIR}/raw`), "theirs");
  assert.equal(lostVersion(m.ctx, DIR)?.own, false);
  assert.deepEqual(
    await setAsideVersion(m.ctx, DIR, `${DIR}/peer`, false, "me"),
    [],
    "once per directory",
  );
});

Deno.test("keepUnindexedAbove keeps the versions above the lost one that no index names, never an indexed one or one below", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const data = "data/t/m/out";
  // The index first (a first index names every object it finds), then uploads it does not name.
  const named = await store.put(`${data}/5/raw`, bytes("v5"), PutModes.create);
  await updateIndex(store, {
    set: { [`${data}/5/raw`]: { v: named.version, h: await sha256Hex(bytes("v5")), s: 2 } },
    remove: [],
  }, retry);
  for (const v of [1, 3, 4, 6]) {
    await store.put(`${data}/${v}/raw`, bytes(`v${v}`), PutModes.create);
  }
  await store.put(`${data}/latest`, bytes("6"), PutModes.overwrite);
  await m.cache.write(`${data}/4/raw`, bytes("here"));
  assert.deepEqual(await keepUnindexedAbove(m.ctx, `${data}/2`), [`${data}/3`, `${data}/6`]);
  assert.ok(Deno.statSync(`${m.cache.dir}/${data}/3`).isDirectory);
  assert.equal(new TextDecoder().decode((await m.cache.read(`${data}/4/raw`))!), "here");
  assert.throws(() => Deno.statSync(`${m.cache.dir}/${data}/5`), "indexed: a pull brings it");
  // A listing that fails keeps nothing, and says nothing more.
  store.failNext("list", 1, () => new Error("down"));
  assert.deepEqual(await keepUnindexedAbove(m.ctx, `${data}/5`), []);
  assert.deepEqual(await keepUnindexedAbove(m.ctx, "data/t/m/out/latest"), []);
});

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
