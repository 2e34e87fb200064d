/**
 * A push that finds its own bytes already in the store ("identical", after
 * an earlier push of them failed late) commits them only while the store
 * still holds them: a peer that saw them and deleted them meanwhile is not
 * undone by an index entry naming a deleted object.
 */
import assert from "node:assert/strict";
import { INDEX_KEY, readIndex } from "../transfer/remote_index.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { assertIndexCurrent, clone, put, quick, read, v2Store } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";

/**
 * `a`'s first push of `path` ("one"), whose shard lands and whose meta bump
 * does not: readers see the entry (`a`'s own object), and the push failed,
 * so nothing is recorded as synced. The version the entry names.
 */
async function publishedUnanswered(
  store: InMemoryStore,
  a: SyncService,
  path: string,
): Promise<string> {
  await put(a, path, "one");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: (k) => k === META_KEY });
  await assert.rejects(a.pushChanged());
  const first = (await readIndex(store, quick.retry))?.entries[path]?.v;
  assert.ok(first, "the entry is published");
  return first;
}

/** `a` pushes its "two" at `path`: the index then names what the store holds, and a fresh clone gets it. */
async function publishesTwo(store: InMemoryStore, a: SyncService, path: string): Promise<void> {
  await a.pushChanged();
  await assertIndexCurrent(store, { held: true });
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, path), "two");
}

Deno.test("a re-push of bytes a peer saw and deleted meanwhile does not name the deleted object", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const path = "notes/shared.txt";
  await writeCacheFile(a.cacheDir, path, "a's note");
  await a.markDirty({ relPath: path });
  // The shard lands, the meta's bump does not: the push fails, yet readers see the entry.
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: (k) => k === META_KEY });
  await assert.rejects(a.pushChanged());
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "a's note");
  // a pushes again: it finds its own bytes there; b deletes them before a's commit.
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.identical, [path]);
  await Deno.remove(`${b.cacheDir}/${path}`);
  await b.markDirty({ relPath: path });
  assert.deepEqual((await b.pushChanged()).deleted, [path]);
  await a.commitPush(prepared);
  const index = await readIndex(store, quick.retry);
  const named = index?.entries[path]?.v;
  const held = (await store.head(path))?.version;
  assert.ok(
    named === undefined || named === held,
    `the index names ${named}, the store holds ${held}`,
  );
});

Deno.test("a pull meeting this cache's own uncommitted write over an entry it wrote itself keeps it for the push, not as a conflict", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  const first = await publishedUnanswered(store, a, path);
  // A second edit is written over the first (its own object) and its
  // index update fails.
  await put(a, path, "two");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k.startsWith("_index/"),
  });
  await assert.rejects(a.pushChanged());
  assert.notEqual((await store.head(path))?.version, first, "the second edit's object landed");
  assert.equal((await readIndex(store, quick.retry))?.entries[path]?.v, first);

  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "its own edit over its own entry is no conflict");
  assert.equal(await read(a, path), "two");
  await publishesTwo(store, a, path);
});

Deno.test("a pull meeting an entry that names this cache's own write, whose commit's answer was lost, keeps the edit made since for the push, not as a conflict", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  const first = await publishedUnanswered(store, a, path);
  assert.equal((await store.head(path))?.version, first, "the store holds what the entry names");
  // An edit made since, pulled before it is pushed: it is based on the
  // entry, this cache's own write, so no conflict with itself.
  await put(a, path, "two");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "its own committed write is no peer's change");
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, path), "two");
  await publishesTwo(store, a, path);
});

for (
  const [where, path] of [
    ["another shard", "data/t/m2/d/1/raw"],
    ["the same shard", "notes/b.txt"],
  ]
) {
  Deno.test(`a v2 push (into ${where}) whose meta bump publishes a peer's cut-off shard write does not take the index for one it reflects`, async () => {
    const store = new InMemoryStore();
    const v2 = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
    await store.put(META_KEY, metaBody(v2), { kind: "create" });
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await put(a, "notes/first.txt", "first");
    await a.pushChanged();
    await b.pullChanged();
    // a's next commit writes its shard; its meta bump is cut off.
    await put(a, "notes/second.txt", "second");
    store.failNext("put", 1, () => new UnreachableError("cut off"), {
      match: (k) => k === META_KEY,
    });
    await assert.rejects(a.pushChanged());
    // b commits: its bump publishes a's shard write too.
    await put(b, path, "b's change");
    await b.pushChanged();
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(await read(c, "notes/second.txt"), "second", "published by b's bump");
    await b.pullChanged();
    assert.equal(await read(b, "notes/second.txt"), "second", "b's next pull reads it too");
  });
}

// The same, for a path this cache wrote as part of a marked directory (as
// swamp's core marks a model's data directory): no dirty mark names it, so the pull used to take the local copy for one it
// never synced, set it aside and pull the entry over it, while the store
// kept this cache's upload over the entry until `resolve` (chaos seed
// 36200167, where a peer had adopted the first write: readers skipped the
// path as uncommitted meanwhile).
for (const layout of ["v1", "v2"] as const) {
  Deno.test(`a pull meeting this cache's own uncommitted write, under a marked directory, over an entry a peer adopted from it keeps it for the push (${layout})`, async () => {
    const store = new InMemoryStore();
    if (layout === "v2") {
      const v2 = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
      await store.put(META_KEY, metaBody(v2), { kind: "create" });
    }
    const indexWrite = layout === "v2"
      ? (k: string) => k.startsWith("_index/")
      : (k: string) => k === INDEX_KEY;
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    const path = "notes/shared.txt";
    // a's first write lands and its index update is cut off; b, taking a
    // for gone, adopts it: the index names a's object.
    await put(a, path, "1", false);
    await a.markDirty({ relPath: "notes" });
    store.failNext("put", 1, () => new UnreachableError("cut off"), { match: indexWrite });
    await assert.rejects(a.pushChanged());
    await put(b, path, "b's");
    assert.deepEqual((await b.pushChanged({ adoptUncommitted: [path] })).conflicts, [path]);
    const first = (await readIndex(store, quick.retry))?.entries[path]?.v;
    assert.equal(first, (await store.head(path))?.version, "a's first write is published");
    // a's second write goes over the first (its own object), and its index
    // update is cut off too.
    await put(a, path, "2", false);
    await a.markDirty({ relPath: "notes" });
    store.failNext("put", 1, () => new UnreachableError("cut off"), { match: indexWrite });
    await assert.rejects(a.pushChanged());
    assert.notEqual((await store.head(path))?.version, first, "the second write's object landed");
    assert.equal((await readIndex(store, quick.retry))?.entries[path]?.v, first);

    const pulled = await a.pullChanged();
    assert.deepEqual(pulled.conflicts, [], "its own write over its own entry is no conflict");
    assert.deepEqual(pulled.setAside, []);
    assert.equal(await read(a, path), "2");
    assert.deepEqual((await a.pushChanged()).conflicts, []);
    await assertIndexCurrent(store, { held: true });
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(await read(c, path), "2");
  });
}
