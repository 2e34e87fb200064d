/**
 * A local deletion over an uncommitted object: this cache's own is deleted,
 * a peer's is waited for, and only a committed change is a conflict.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { META_KEY, metaBody, MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { UnreachableError } from "../errors.ts";
import { FakeClock, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
const PATH = "notes/shared.txt";

async function clone(store: InMemoryStore, name: string): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-delete-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

async function edit(svc: SyncService, text: string) {
  await writeCacheFile(svc.cacheDir, PATH, text);
  await svc.markDirty({ relPath: PATH });
}

/** An edit whose upload lands and whose index update never does. */
async function uncommittedEdit(store: InMemoryStore, svc: SyncService, text: string) {
  await edit(svc, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(svc.pushChanged());
}

async function remove(svc: SyncService) {
  await Deno.remove(`${svc.cacheDir}/${PATH}`);
  await svc.markDirty({ relPath: PATH });
  return await svc.pushChanged();
}

const indexed = async (store: InMemoryStore) =>
  (await readIndex(store, quick.retry))?.entries[PATH];

Deno.test("a deletion over this cache's own uncommitted edit deletes it and its index entry", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await edit(a, "one");
  await a.pushChanged();
  await uncommittedEdit(store, a, "two");
  const r = await remove(a);
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.deleted, [PATH]);
  assert.equal(store.peek(PATH), undefined);
  assert.equal(await indexed(store), undefined);
});

Deno.test("a deletion over a peer's uncommitted edit waits for it; once committed, it is a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await edit(a, "one");
  await a.pushChanged();
  await b.pullChanged();
  await uncommittedEdit(store, b, "theirs");
  const waiting: string[] = [];
  a.events.on("warning", (w) => waiting.push(w.code));
  const r = await remove(a);
  assert.deepEqual(r.conflicts, [], "no committed change yet");
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[PATH, true]]);
  assert.ok(waiting.includes("push_waiting_uncommitted"), waiting.join());
  assert.equal(store.peekText(PATH), "theirs", "the peer's object is not taken from under it");
  // The peer's push completes: now a committed change stands in the way.
  await b.pushChanged();
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  assert.equal(store.peekText(PATH), "theirs");
  assert.ok(await indexed(store));
});

Deno.test("a deletion over a peer's upload no index names, where the index names nothing at the path (a committed deletion): it goes through, and the peer keeps its file marked", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const c = await clone(store, "c");
  await edit(a, "one");
  await a.pushChanged();
  await b.pullChanged();
  // b deletes it (committed), c publishes a directory of its name, and b's
  // new file of that name is then left out beside it (path_blocked): its
  // upload stands on the store, named by no index.
  await remove(b);
  await writeCacheFile(c.cacheDir, `${PATH}/part`, "c's part");
  await c.markDirty({ relPath: `${PATH}/part` });
  await c.pushChanged();
  await edit(b, "b's new file");
  const blocked = await b.pushChanged();
  assert.deepEqual(blocked.uploaded, []);
  assert.ok(blocked.skipped.some((s) => s.path === PATH && s.keepDirty));
  assert.equal(store.peekText(PATH), "b's new file");
  assert.equal(await indexed(store), undefined);
  // a, which synced "one" and never pulled since, deletes it too.
  const r = await remove(a);
  assert.deepEqual(r.conflicts, [], "no committed change of a peer's: the index names nothing");
  assert.deepEqual(a.conflicts(), []);
  assert.deepEqual(r.deleted, [PATH]);
  assert.equal(a.state.synced(PATH), undefined);
  assert.deepEqual(a.state.dirtyPaths(), []);
  // b's upload is not taken from under it, and b still has its file to push.
  assert.equal(store.peekText(PATH), "b's new file");
  assert.ok(b.state.dirtyPaths().includes(PATH));
  // a's next pull takes c's directory, with nothing of a's in its way.
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  assert.deepEqual(pulled.fetched, [`${PATH}/part`]);
});

for (const layout of ["v1", "v2"] as const) {
  Deno.test(`a deletion over this cache's own update whose commit landed, its answer lost, removes the entry naming it (${layout})`, async () => {
    const store = new InMemoryStore();
    if (layout === "v2") {
      await store.put(META_KEY, metaBody({ version: 2, partitions: [], commitSeq: 0, raw: {} }), {
        kind: "create",
      });
    }
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await edit(a, "one");
    await a.pushChanged();
    // The update's commit lands (the index object written), its answer is lost.
    await edit(a, "two");
    const commit = layout === "v1" ? MONOLITH_KEY : "_index/_unpartitioned.json";
    store.failNext("put", 1, () => new UnreachableError("cut off"), {
      afterEffect: true,
      match: (k) => k === commit,
    });
    await assert.rejects(a.pushChanged());
    const two = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
    assert.ok(two, "the update's entry is published");
    // Deleted here, and the deletion pushed: its delete of that write lands, its answer lost too.
    let deletes = 0;
    store.failNext("delete", 1, () => new UnreachableError("cut off"), {
      afterEffect: true,
      match: (k) => k === PATH && ++deletes === 2,
    });
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await a.markDirty({ relPath: PATH });
    // The same cache in a process whose calls are retried once.
    const again = await createSluice({
      cacheDir: a.cacheDir,
      store,
      identity: { holder: "a@host", hostname: "host", pid: 2 },
      clock: new FakeClock(),
      config: { retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 } },
      conditional: new ConditionalWrites(),
    });
    const r = await again.pushChanged();
    assert.equal(deletes, 2, "the delete of its own write (the second delete) was cut off");
    assert.deepEqual(r.deleted, [PATH]);
    assert.equal(store.peek(PATH), undefined, "the object is gone");
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[PATH],
      undefined,
      "and no entry names it",
    );
    assert.deepEqual(again.conflicts(), []);
    const pulled = await b.pullChanged();
    assert.deepEqual(pulled.conflicts, []);
  });
}

for (const layout of ["v1", "v2"] as const) {
  Deno.test(`a deletion over this cache's own update whose commit landed, its answer lost, cut off after its delete: the next push removes the entry, no conflict with itself (${layout})`, async () => {
    const store = new InMemoryStore();
    if (layout === "v2") {
      await store.put(META_KEY, metaBody({ version: 2, partitions: [], commitSeq: 0, raw: {} }), {
        kind: "create",
      });
    }
    const a = await clone(store, "a");
    await edit(a, "one");
    await a.pushChanged();
    // The update's commit lands (the index object written), its answer is lost.
    await edit(a, "two");
    const commit = layout === "v1" ? MONOLITH_KEY : "_index/_unpartitioned.json";
    store.failNext("put", 1, () => new UnreachableError("cut off"), {
      afterEffect: true,
      match: (k) => k === commit,
    });
    await assert.rejects(a.pushChanged());
    const two = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
    assert.ok(two, "the update's entry is published");
    // Deleted here, and the deletion pushed: cut off at its first index
    // write once the delete of that write has landed (a crash, an outage).
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await a.markDirty({ relPath: PATH });
    store.failNext("put", 1, () => new UnreachableError("cut off"), {
      match: (k) =>
        (k === MONOLITH_KEY || k.startsWith("_index/")) && store.peek(PATH) === undefined,
    });
    await assert.rejects(a.pushChanged());
    // The next push finishes the deletion: its own committed write is no peer's change.
    const r = await a.pushChanged();
    assert.deepEqual(r.conflicts, [], "no conflict with its own write");
    assert.deepEqual(a.conflicts(), []);
    assert.deepEqual(r.deleted, [PATH]);
    assert.equal(store.peek(PATH), undefined, "the object is gone");
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[PATH],
      undefined,
      `the index still names ${PATH} (${two}), which the store no longer holds`,
    );
  });
}
