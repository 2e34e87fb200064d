/**
 * A file created here whose push commit landed with its answer lost, then
 * replaced here by a directory of its name: the push of that name deletes
 * the file's object (this cache's own write, committed) and takes the index
 * entry naming it out with it. When the index update that takes the entry
 * out is cut off, the index must not be left naming the deleted object for
 * good: the next push finishes the removal, and this cache's pull never
 * takes its own committed write for a peer's change (a conflict with
 * itself).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";
import type { SyncService } from "./service.ts";
import { migrateIndex } from "./migrate.ts";

const PATH = "notes/n.md";

/** `a`'s user replaces the file at PATH by a directory of its name and marks the name. */
async function toDirectory(a: SyncService): Promise<void> {
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await put(a, `${PATH}/x.md`, "under a directory now", false);
  await a.markDirty({ relPath: PATH });
}

/**
 * `a` creates PATH, its commit's answer lost, and its user replaces the
 * file by a directory of its name; the push's first index write (the one
 * that takes the file's entry out) is cut off, and the next push runs with
 * the store reachable again. Returns the version of `a`'s own write.
 */
async function removalCutOff(
  store: InMemoryStore,
  a: SyncService,
  v2 = false,
): Promise<string> {
  const v = await createAnswerLost(
    store,
    a,
    PATH,
    "a file at first",
    v2 ? "_index/_meta.json" : undefined,
  );
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  await toDirectory(a);
  // v1: the push's first index write; v2: the one after the shard and meta
  // that take the entry out (before the delete), so that the cut-off comes
  // after the delete whatever was taken out before it.
  let seen = 0;
  const cut = (k: string) => isIndexKey(k) && ++seen === (v2 ? 3 : 1);
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: cut });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  await a.pushChanged();
  return v;
}

/** Fails when the index names PATH while the store holds nothing there. */
async function assertNotNamingGone(store: InMemoryStore, v: string): Promise<void> {
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, PATH) || store.peekText(PATH) !== undefined,
    `the index names ${PATH} (version ${
      entries[PATH]?.v
    }, this cache's own write ${v}), which the store no longer holds`,
  );
}

Deno.test("a created file whose commit answer was lost, replaced here by a directory, the removal of its entry cut off: the index never keeps naming the deleted object", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await assertNotNamingGone(store, await removalCutOff(store, a));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
  assert.deepEqual(a.conflicts(), []);
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, `${PATH}/x.md`), "under a directory now");
  assert.equal(await read(b, PATH), undefined);
});

/**
 * The same beside an old client's entry anywhere in the index: there every
 * conditional removal is checked against the store (`checkAll` in
 * `index_apply.ts`), and the removal that goes before the delete found this
 * cache's upload still standing and was left out as another writer's, so
 * the delete went first after all (`removeHeld` takes it out now).
 */
Deno.test("beside an old client's entry: a created file whose commit answer was lost, replaced here by a directory, the removal of its entry cut off: the index never keeps naming the deleted object", async () => {
  const store = new InMemoryStore();
  // An old client's file, elsewhere in the bucket: an entry without Sluice's fields.
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const a = await clone(store, "a");
  await a.pullChanged();
  await assertNotNamingGone(store, await removalCutOff(store, a));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
});

/**
 * Beside an old client's entry, with no cut-off at all: the delete of this
 * cache's own committed upload lands and its answer is lost; its retry
 * finds nothing there (`deleteAt` takes that for "another version"), so
 * nothing after it takes the entry out: the removal before it must have.
 */
Deno.test("beside an old client's entry: the delete of this cache's own committed upload, its answer lost, never leaves the index naming the deleted object", async () => {
  const store = new InMemoryStore();
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const first = await clone(store, "a");
  await first.pullChanged();
  await createAnswerLost(store, first, PATH, "a file at first");
  // The same cache opened again, its requests retried as by default (here once, at once).
  const a = await clone(store, "a", first.cacheDir, {
    retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 },
  });
  await toDirectory(a);
  store.failNext("delete", 1, () => new UnreachableError("answer lost"), {
    afterEffect: true,
    match: (k) => k === PATH,
  });
  await a.pushChanged();
  assert.equal(store.peekText(PATH), undefined, "the upload is deleted");
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(!Object.hasOwn(entries, PATH), `the index still names ${PATH}, deleted`);
});

/**
 * The same on a v2 bucket, another client's entry in the shard of the
 * path: each shard's change carries the mark of the removal made before
 * its delete (a chaos history found it left out there, its shard's change
 * built without it).
 */
Deno.test("v2, beside another client's entry in the path's shard: a created file whose commit answer was lost, replaced here by a directory, the removal of its entry cut off: the index never keeps naming the deleted object", async () => {
  const store = new InMemoryStore();
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const a = await clone(store, "a");
  await migrateIndex(a);
  await a.pullChanged();
  await assertNotNamingGone(store, await removalCutOff(store, a, true));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
});
