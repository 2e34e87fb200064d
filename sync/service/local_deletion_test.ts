import assert from "node:assert/strict";
import { createSyncService, LOCAL_DELETION_REASON } from "./service.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { pushLeftBehind } from "./push.ts";
import { leftBehindError } from "../left_behind.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function cloneOf(store: InMemoryStore, name: string) {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-deleted-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
  });
}

async function synced(store: InMemoryStore) {
  const a = await cloneOf(store, "a");
  await Deno.mkdir(`${a.cacheDir}/notes`, { recursive: true });
  for (const n of ["a", "b", "c"]) await Deno.writeTextFile(`${a.cacheDir}/notes/${n}.txt`, n);
  await a.markDirty();
  await a.pushChanged();
  return a;
}

Deno.test("a walk push leaves a file deleted here on the datastore, and says so (not a clean push)", async () => {
  const store = new InMemoryStore();
  const a = await synced(store);
  await Deno.remove(`${a.cacheDir}/notes/b.txt`);
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.localDeletions, ["notes/b.txt"]);
  assert.deepEqual(r.deleted, []);
  assert.equal(store.peekText("notes/b.txt"), "b", "a walk never deletes remotely");
  const left = leftBehindError("push", pushLeftBehind(r));
  assert.equal(left?.code, "sync_incomplete");
  assert.match(
    left!.message,
    /1 file\(s\) deleted here were not deleted on the datastore \(notes\/b\.txt\)/,
  );
  assert.match(left!.message, /sluice pull --restore-deleted/);
  // status lists it too, with what to run.
  const status = await a.status({ walk: true });
  assert.deepEqual(status.map((e) => [e.path, e.action, e.reason]), [
    ["notes/b.txt", "skip", LOCAL_DELETION_REASON],
  ]);
});

Deno.test("a push by path deletes it on the datastore; a later walk push is clean", async () => {
  const store = new InMemoryStore();
  const a = await synced(store);
  await Deno.remove(`${a.cacheDir}/notes/b.txt`);
  await a.markDirty({ relPath: "notes/b.txt" });
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, ["notes/b.txt"]);
  assert.equal(store.peekText("notes/b.txt"), undefined);
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).localDeletions, []);
});

Deno.test("a pull keeps a deletion made here; with restoreDeleted it takes the datastore's copy back", async () => {
  const store = new InMemoryStore();
  const a = await synced(store);
  await a.pullChanged();
  await Deno.remove(`${a.cacheDir}/notes/b.txt`);
  await Deno.remove(`${a.cacheDir}/notes/c.txt`);
  await a.markDirty({ relPath: "notes/c.txt" }); // a deletion to push: left alone
  const kept = await a.pullChanged();
  assert.deepEqual(kept.fetched, []);
  const restored = await a.pullChanged({ restoreDeleted: true });
  assert.deepEqual(restored.fetched, ["notes/b.txt"]);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/notes/b.txt`), "b");
  await assert.rejects(Deno.stat(`${a.cacheDir}/notes/c.txt`), Deno.errors.NotFound);
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.localDeletions, []);
  assert.deepEqual(r.deleted, ["notes/c.txt"]);
  assert.equal(store.peekText("notes/b.txt"), "b");
});

Deno.test("a file deleted here and changed there is reported as the conflict it is, not as a deletion to push", async () => {
  const store = new InMemoryStore();
  const a = await synced(store);
  const b = await cloneOf(store, "b");
  await b.pullChanged();
  await Deno.writeTextFile(`${b.cacheDir}/notes/b.txt`, "b, changed there");
  await b.markDirty({ relPath: "notes/b.txt" });
  await b.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/b.txt`);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, ["notes/b.txt"]);
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.localDeletions, []);
  assert.deepEqual(r.conflicts, ["notes/b.txt"]);
  assert.equal(leftBehindError("push", pushLeftBehind(r))?.code, "conflicts_left");
  assert.equal(store.peekText("notes/b.txt"), "b, changed there");
  // Resolved as mine: the deletion is published over the version seen.
  const mine = await a.resolveConflict("notes/b.txt", "mine");
  assert.equal(mine.resolved, true);
  assert.equal(mine.deleted, true);
  assert.equal(store.peekText("notes/b.txt"), undefined);
});

Deno.test("files a failed pull fetched count as synced after a restart: deleting one by hand is a local change, not a file to fetch again", async () => {
  const { clone, put, read } = await import("./clone_kit.ts");
  const { UnreachableError } = await import("../errors.ts");
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, "notes/a.txt", "a");
  await put(peer, "notes/b.txt", "b");
  await peer.pushChanged();
  const dir = await Deno.makeTempDir({ prefix: "sluice-failed-pull-" });
  const first = await clone(store, "me", dir);
  // One file comes down, the other's read fails: the pull fails.
  store.failNext("get", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "notes/b.txt",
  });
  await assert.rejects(first.pullChanged());
  assert.equal(await read(first, "notes/a.txt"), "a");
  // The process ends (nothing kept in memory); the user deletes what came down.
  await Deno.remove(`${dir}/notes/a.txt`);
  const again = await clone(store, "me", dir);
  await again.pullChanged();
  assert.equal(await read(again, "notes/a.txt"), undefined, "the local deletion stands");
  assert.equal(await read(again, "notes/b.txt"), "b");
  const listed = (await again.status({ walk: true })).filter((e) => e.path === "notes/a.txt");
  assert.deepEqual(listed.map((e) => e.reason), [LOCAL_DELETION_REASON]);
});
