/**
 * On a store whose versions are ETags (the same bytes carry one version), a
 * peer's write between a prepared push's upload and its commit can carry
 * exactly the version this cache records as synced: the peer put the synced
 * bytes back. That is another writer's overwrite, never a later push of this
 * cache (which moved no synced record): a conflict, the push's write not
 * reported as superseded by a newer change of its own.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";
import { SUPERSEDED_REASON } from "./push_result.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";

const PATH = "definitions/ss.yaml";

Deno.test("ETag store: a peer's write of the synced bytes over a prepared write before its commit is a conflict, not this cache's later push", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const a = await clone(store, "a");
  await put(a, PATH, "X0");
  await a.pushChanged();
  const syncedBefore = a.state.synced(PATH)?.version;
  await put(a, PATH, "X1");
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded, [PATH]);
  // An old client writes X0 there (its own edit, bytes equal to a's base).
  await peerPush(store, { [PATH]: "X0" });
  assert.equal((await store.head(PATH))?.version, syncedBefore);
  const done = await a.commitPush(prepared);
  assert.ok(
    !done.skipped.some((s) => s.path === PATH && s.reason === SUPERSEDED_REASON),
    "the peer's write is not this cache's newer change",
  );
  assert.deepEqual(done.overwritten, [PATH]);
  assert.ok(a.conflicts().some((c) => c.path === PATH), "a conflict is recorded");
});

Deno.test("ETag store: a prepared write replaced before its commit by a later push of the same cache putting the synced bytes back is left out: the index never names the prepared version the store no longer holds", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const a = await clone(store, "a");
  await put(a, PATH, "X0");
  await a.pushChanged();
  await put(a, PATH, "X1");
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded, [PATH]);
  // The edit is undone here, and a later push of this cache writes X0 back
  // over the prepared upload and commits it (its version is the one synced
  // before: the store's versions are the bytes').
  await put(a, PATH, "X0");
  const later = await a.pushChanged();
  assert.deepEqual(later.uploaded, [PATH]);
  assert.equal(store.peekText(PATH), "X0");
  const done = await a.commitPush(prepared);
  assert.ok(!done.uploaded.includes(PATH), "X1 is not reported published");
  assert.deepEqual(done.conflicts, []);
  await storeHoldsX0(store, a);
});

Deno.test("ETag store: a prepared walk's write replaced before its commit by a later walk of the same cache putting the synced bytes back is left out: the index never names the prepared version the store no longer holds", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const a = await clone(store, "a");
  await put(a, PATH, "X0");
  await a.pushChanged();
  // An edit no mark names: a walk of the cache finds and uploads it.
  await put(a, PATH, "X1", false);
  await a.markDirty();
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded, [PATH]);
  // The edit is undone here, and a later walk of this cache writes X0 back
  // over the prepared upload and commits it.
  await put(a, PATH, "X0", false);
  await a.markDirty();
  const later = await a.pushChanged();
  assert.deepEqual(later.uploaded, [PATH]);
  assert.equal(store.peekText(PATH), "X0");
  const done = await a.commitPush(prepared);
  assert.ok(!done.uploaded.includes(PATH), "X1 is not reported published");
  await storeHoldsX0(store, a);
});

/**
 * The index names the version the store holds at PATH, `a` records it as
 * synced, and a peer's pull gets the file (X0).
 */
async function storeHoldsX0(store: InMemoryStore, a: SyncService): Promise<void> {
  const held = (await store.head(PATH))?.version;
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH]?.v,
    held,
    "the index names the version the store holds",
  );
  assert.equal(a.state.synced(PATH)?.version, held, "the synced record is the store's version");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, PATH), "X0", "a peer gets the file");
}
