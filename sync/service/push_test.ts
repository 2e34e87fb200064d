/**
 * The push as callers drive it: marked directories, the two-phase push
 * (prepare, then commit), and a delete that meets a peer's newer copy.
 */
import assert from "node:assert/strict";
import { createSyncService, type SyncService } from "./service.ts";
import { FakeClock, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { SluiceError } from "../errors.ts";
import { clone as gatedClone, put } from "./clone_kit.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: InMemoryStore, name: string): Promise<SyncService> {
  const cacheDir = await Deno.makeTempDir({ prefix: `sluice-push-${name}-` });
  return await createSyncService({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
  });
}

async function write(dir: string, path: string, text: string) {
  const file = `${dir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}

const DATA = "data/shell/cmd/m1/out";

Deno.test("a marked directory pushes every changed file under it, then is clean", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  // Marked before the write, as a caller that does not yet know the version does.
  await a.markDirty({ relPath: DATA });
  await write(a.cacheDir, `${DATA}/1/raw`, "one");
  await write(a.cacheDir, `${DATA}/1/metadata.yaml`, "m: 1");
  await write(a.cacheDir, `${DATA}/latest`, "1");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.sort(), [
    `${DATA}/1/metadata.yaml`,
    `${DATA}/1/raw`,
    `${DATA}/latest`,
  ]);
  assert.equal(store.peekText(`${DATA}/1/raw`), "one");
  assert.deepEqual(a.state.dirtyPaths(), []);
  const b = await clone(store, "b");
  const pulled = await b.pullChanged();
  assert.equal(pulled.fetched.length, 3);
});

Deno.test("a marked directory that was removed deletes what was synced under it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, `${DATA}/1/raw`, "one");
  await write(a.cacheDir, `${DATA}/2/raw`, "two");
  await a.markDirty({ relPath: DATA });
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/${DATA}/1`, { recursive: true });
  await a.markDirty({ relPath: `${DATA}/1` });
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, [`${DATA}/1/raw`]);
  assert.equal(store.peekText(`${DATA}/1/raw`), undefined);
  assert.equal(store.peekText(`${DATA}/2/raw`), "two");
  assert.deepEqual(a.state.dirtyPaths(), []);
  const b = await clone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched, [`${DATA}/2/raw`]);
});

Deno.test("a prepared push is invisible to peers and stays dirty until its commit", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "outputs/o.yaml", "o");
  await a.markDirty({ relPath: "outputs/o.yaml" });
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.uploaded, ["outputs/o.yaml"]);
  assert.equal(store.peekText("outputs/o.yaml"), "o"); // the object is written
  assert.deepEqual((await b.pullChanged()).fetched, []); // but not committed
  assert.deepEqual(a.state.dirtyPaths(), ["outputs/o.yaml"]);
  await a.commitPush(prepared);
  assert.deepEqual(a.state.dirtyPaths(), []);
  assert.deepEqual((await b.pullChanged()).fetched, ["outputs/o.yaml"]);
});

Deno.test("a delete of a file a peer changed since keeps the peer's object and index entry", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "notes/n.txt", "a1");
  await a.markDirty({ relPath: "notes/n.txt" });
  await a.pushChanged();
  await b.pullChanged();
  // a changes it; b, which saw only a1, deletes it.
  await write(a.cacheDir, "notes/n.txt", "a2");
  await a.markDirty({ relPath: "notes/n.txt" });
  await a.pushChanged();
  await Deno.remove(`${b.cacheDir}/notes/n.txt`);
  await b.markDirty({ relPath: "notes/n.txt" });
  const r = await b.pushChanged();
  assert.deepEqual(r.deleted, []);
  assert.equal(r.skipped[0]?.path, "notes/n.txt");
  assert.deepEqual(r.conflicts, ["notes/n.txt"], "reported as a conflict");
  assert.equal(store.peekText("notes/n.txt"), "a2");
  // A fresh clone still gets the peer's change; b gets it back by taking theirs.
  const c = await clone(store, "c");
  assert.deepEqual((await c.pullChanged()).fetched, ["notes/n.txt"]);
  assert.equal(await Deno.readTextFile(`${c.cacheDir}/notes/n.txt`), "a2");
  assert.deepEqual((await b.pullChanged()).conflicts, ["notes/n.txt"]);
  assert.ok((await b.resolveConflict("notes/n.txt", "theirs")).resolved);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/notes/n.txt`), "a2");
});

Deno.test("a path marked dirty again, unchanged since this cache synced it, is not written again", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "config/app.yaml", "x: 1");
  await a.markDirty({ relPath: "config/app.yaml" });
  assert.deepEqual((await a.pushChanged()).uploaded, ["config/app.yaml"]);
  const version = (await store.head("config/app.yaml"))?.version;
  for (let i = 0; i < 2; i++) {
    await a.markDirty({ relPath: "config/app.yaml" });
    const r = await a.pushChanged();
    assert.deepEqual([r.uploaded, r.identical, r.skipped], [[], [], []]);
    assert.deepEqual(a.state.dirtyPaths(), []);
  }
  assert.equal(
    (await store.head("config/app.yaml"))?.version,
    version,
    "the object was not rewritten",
  );
  // Changed, it is written again.
  await write(a.cacheDir, "config/app.yaml", "x: 2");
  await a.markDirty({ relPath: "config/app.yaml" });
  assert.deepEqual((await a.pushChanged()).uploaded, ["config/app.yaml"]);
});

Deno.test("an upload of this cache's that never reached the index is deleted once its file is gone here; a peer's is left alone", async () => {
  const store = new InMemoryStore();
  // With the default gates (clone_kit): they mark each upload with its cache's writer id.
  const a = await gatedClone(store, "a");
  const b = await gatedClone(store, "b");
  for (const [svc, path] of [[a, "config/a.yaml"], [b, "config/b.yaml"]] as const) {
    await write(svc.cacheDir, path, "new");
    await svc.markDirty({ relPath: path });
    // Uploaded, never committed: the process stops between the two phases.
    await svc.preparePush();
    assert.ok(await store.head(path), `${path} uploaded`);
  }
  // Both files are deleted in a's cache (b's never was there), and marked dirty.
  await Deno.remove(`${a.cacheDir}/config/a.yaml`);
  await a.markDirty({ relPaths: ["config/a.yaml", "config/b.yaml"] });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.equal(await store.head("config/a.yaml"), null, "a's own stranded upload is gone");
  assert.ok(await store.head("config/b.yaml"), "b's upload is b's to commit");
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("a deletion whose object a push cut off before its commit had already deleted is reported as deleted by the push that commits it", async () => {
  const store = new InMemoryStore();
  const a = await gatedClone(store, "a");
  await write(a.cacheDir, "notes/x.txt", "x");
  await a.markDirty({ relPath: "notes/x.txt" });
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/x.txt`);
  await a.markDirty({ relPath: "notes/x.txt" });
  await a.preparePush(); // the object is deleted; the commit never comes
  assert.equal(await store.head("notes/x.txt"), null);
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, ["notes/x.txt"], "not 'nothing to push'");
  const index = JSON.parse(store.peekText(".datastore-index.json") ?? "{}");
  assert.deepEqual(Object.keys(index.entries ?? {}), []);
});

Deno.test("pushChanged({ only }) pushes those paths alone: other marks and a pending walk stay for a later push", async () => {
  const store = new InMemoryStore();
  const a = await gatedClone(store, "a");
  await put(a, "one.txt", "1");
  await put(a, "two.txt", "2");
  await writeCacheFile(a.cacheDir, "walked.txt", "found by a walk");
  await a.markDirty();
  const r = await a.pushChanged({ only: ["one.txt"] });
  assert.deepEqual(r.uploaded, ["one.txt"]);
  assert.deepEqual(a.state.dirtyPaths(), ["two.txt"]);
  assert.equal(a.state.bulkPending(), true, "the walk still pending");
  const rest = await a.pushChanged();
  assert.deepEqual([...rest.uploaded].sort(), ["two.txt", "walked.txt"]);
  assert.equal(a.state.bulkPending(), false);
});

Deno.test("pushChanged({ only }) marks its paths first: one held back stays marked for the next push", async () => {
  const store = new InMemoryStore();
  const a = await gatedClone(store, "a");
  await put(a, "a", "a file");
  await a.pushChanged();
  // The file replaced by a directory of its name, never marked, a file under it named alone:
  // held back (the file it replaces is not deleted by this push).
  await Deno.remove(`${a.cacheDir}/a`);
  await put(a, "a/x", "under a directory", false);
  const r = await a.pushChanged({ only: ["a/x"] });
  assert.ok(r.skipped.some((s) => s.path === "a/x" && s.keepDirty), JSON.stringify(r.skipped));
  assert.ok(a.state.dirtyPaths().includes("a/x"), "still marked");
});

Deno.test("a write gate that returns without calling next() nor leaving its entry out is named in the push's error", async () => {
  const store = new InMemoryStore();
  const svc = await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-wstop-" }),
    store,
    clock: new FakeClock(),
    config: quick,
    plugins: [{
      name: "write-sink-plugin",
      setup({ write }) {
        write.add({ name: "write-sink", phase: "prepare", middleware: async () => {} });
      },
    }],
  });
  await write(svc.cacheDir, "logs/a.log", "a");
  await svc.markDirty({ relPath: "logs/a.log" });
  await assert.rejects(
    svc.pushChanged(),
    (e: unknown) =>
      e instanceof SluiceError && /"write-sink"/.test(e.message) && /next\(\)/.test(e.message) &&
      /logs\/a\.log/.test(e.message),
  );
  assert.deepEqual(store.keys(), []);
});
