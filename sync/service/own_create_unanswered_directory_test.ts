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
import { clone, createAnswerLost, put, quick, read } from "./clone_kit.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";

const isIndexKey = (k: string) => k === ".datastore-index.json" || k.startsWith("_index/");

Deno.test("a created file whose commit answer was lost, replaced here by a directory, the removal of its entry cut off: the index never keeps naming the deleted object", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/n.md";
  const v = await createAnswerLost(store, a, path, "a file at first");
  assert.equal(a.state.synced(path), undefined, "the answer was lost: never synced here");
  // The user replaces the file by a directory of its name and pushes that name.
  await Deno.remove(`${a.cacheDir}/${path}`);
  await put(a, `${path}/x.md`, "under a directory now", false);
  await a.markDirty({ relPath: path });
  // The push's index update that takes the file's entry out is cut off.
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  // The next push, the store reachable again.
  await a.pushChanged();
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, path) || store.peekText(path) !== undefined,
    `the index names ${path} (version ${
      entries[path]?.v
    }, this cache's own write ${v}), which the store no longer holds`,
  );
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
  assert.deepEqual(a.conflicts(), []);
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, `${path}/x.md`), "under a directory now");
  assert.equal(await read(b, path), undefined);
});

/**
 * The same beside an old client's entry anywhere in the index: there every
 * conditional removal is checked against the store (`checkAll` in
 * `index_apply.ts`), and the removal that should go before the delete finds
 * this cache's upload still standing, so it is left out as another's and
 * the delete goes first after all; the removal after it, cut off, leaves
 * the entry naming nothing, as before the reordering.
 */
Deno.test("beside an old client's entry: a created file whose commit answer was lost, replaced here by a directory, the removal of its entry cut off: the index never keeps naming the deleted object", async () => {
  const store = new InMemoryStore();
  // An old client's file, elsewhere in the bucket: an entry without Sluice's fields.
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const a = await clone(store, "a");
  await a.pullChanged();
  const path = "notes/n.md";
  const v = await createAnswerLost(store, a, path, "a file at first");
  assert.equal(a.state.synced(path), undefined, "the answer was lost: never synced here");
  await Deno.remove(`${a.cacheDir}/${path}`);
  await put(a, `${path}/x.md`, "under a directory now", false);
  await a.markDirty({ relPath: path });
  // The push's first index write (meant to take the file's entry out) is cut off.
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  await a.pushChanged();
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, path) || store.peekText(path) !== undefined,
    `the index names ${path} (version ${
      entries[path]?.v
    }, this cache's own write ${v}), which the store no longer holds`,
  );
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
});

/**
 * Beside an old client's entry, with no cut-off at all: the delete of this
 * cache's own committed upload lands and its answer is lost; its retry
 * finds nothing there (`deleteAt` takes that for "another version", false),
 * so `dropOwnStranded` skips the removal after it, and the removal before
 * it was left out (the store still held the upload then). The push reports
 * success and the index names the deleted object for good.
 */
Deno.test("beside an old client's entry: the delete of this cache's own committed upload, its answer lost, never leaves the index naming the deleted object", async () => {
  const store = new InMemoryStore();
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const first = await clone(store, "a");
  await first.pullChanged();
  const path = "notes/n.md";
  await createAnswerLost(store, first, path, "a file at first");
  // The same cache opened again, its requests retried as by default (here once, at once).
  const a = await clone(store, "a", first.cacheDir, {
    retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 },
  });
  await Deno.remove(`${a.cacheDir}/${path}`);
  await put(a, `${path}/x.md`, "under a directory now", false);
  await a.markDirty({ relPath: path });
  store.failNext("delete", 1, () => new UnreachableError("answer lost"), {
    afterEffect: true,
    match: (k) => k === path,
  });
  await a.pushChanged();
  assert.equal(store.peekText(path), undefined, "the upload is deleted");
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(!Object.hasOwn(entries, path), `the index still names ${path}, deleted`);
});
