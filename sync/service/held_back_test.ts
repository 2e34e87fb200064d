/**
 * Commit-step writes (latest markers, index files) that a push did not make
 * keep their directory's dirty mark: held back by a failure elsewhere in the
 * push, or deferred by a preparation to a commit that then failed. The next
 * push makes them, so the index never stays behind the store.
 */
import assert from "node:assert/strict";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { clone, quick } from "./clone_kit.ts";

const DATA = "data/shell/cmd/m0/log";
const MARKER = `${DATA}/latest`;

async function synced(): Promise<{ store: InMemoryStore; svc: SyncService }> {
  const store = new InMemoryStore();
  const svc = await clone(store, "a");
  await writeCacheFile(svc.cacheDir, `${DATA}/1/raw`, "one");
  await writeCacheFile(svc.cacheDir, MARKER, "1");
  await svc.markDirty({ relPath: DATA });
  await svc.pushChanged();
  // A run writes version 2 and points the marker at it; as swamp core does, it marks directories.
  await writeCacheFile(svc.cacheDir, `${DATA}/2/raw`, "two");
  await writeCacheFile(svc.cacheDir, MARKER, "2");
  await svc.markDirty({ relPath: DATA });
  await svc.markDirty({ relPath: `${DATA}/2` });
  return { store, svc };
}

async function assertMarkerCommitted(store: InMemoryStore) {
  assert.equal(store.peekText(MARKER), "2");
  const index = await readIndex(store, quick.retry);
  assert.equal(index?.entries[MARKER]?.v, (await store.head(MARKER))?.version);
}

Deno.test("a marker held back by a failed upload in the same push is made by the next push", async () => {
  const { store, svc } = await synced();
  await writeCacheFile(svc.cacheDir, "notes/a.txt", "a");
  await svc.markDirty({ relPath: "notes/a.txt" });
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "notes/a.txt",
  });
  await assert.rejects(svc.pushChanged());
  assert.equal(store.peekText(MARKER), "1", "held back");
  const r = await svc.pushChanged();
  assert.ok(r.uploaded.includes(MARKER), `uploaded ${r.uploaded}`);
  await assertMarkerCommitted(store);
});

Deno.test("a marker whose write failed in the commit of a prepared push is made by the next push", async () => {
  const { store, svc } = await synced();
  const prepared = await svc.preparePush();
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: (k) => k === MARKER });
  await assert.rejects(svc.commitPush(prepared));
  assert.equal(store.peekText(MARKER), "1");
  const r = await svc.pushChanged();
  assert.ok(r.uploaded.includes(MARKER), `uploaded ${r.uploaded}`);
  await assertMarkerCommitted(store);
});

Deno.test("a prepared push whose commit succeeds leaves no directory mark behind", async () => {
  const { store, svc } = await synced();
  await svc.commitPush(await svc.preparePush());
  await assertMarkerCommitted(store);
  assert.deepEqual(svc.state.dirtyPaths(), []);
});

Deno.test("a deletion held back by a failed upload in the same push is made by the next push", async () => {
  const { store, svc } = await synced();
  await svc.pushChanged(); // version 2 and the marker published
  await Deno.remove(`${svc.cacheDir}/${DATA}/1/raw`);
  await svc.markDirty({ relPath: DATA });
  await writeCacheFile(svc.cacheDir, "notes/a.txt", "a");
  await svc.markDirty({ relPath: "notes/a.txt" });
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "notes/a.txt",
  });
  await assert.rejects(svc.pushChanged());
  assert.equal(store.peekText(`${DATA}/1/raw`), "one", "held back");
  const r = await svc.pushChanged();
  assert.deepEqual(r.deleted, [`${DATA}/1/raw`]);
  assert.equal(store.peek(`${DATA}/1/raw`), undefined);
});
