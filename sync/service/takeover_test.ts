/**
 * Taking over a path another writer left uncommitted: a peer that waits on
 * a writer gone for good has a way out, and the writer, if it comes back,
 * gets a conflict for that path, never a loss.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { FakeClock, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: InMemoryStore, name: string, cacheDir?: string): Promise<SyncService> {
  return await createSluice({
    cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-takeover-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

async function put(svc: SyncService, path: string, text: string) {
  await writeCacheFile(svc.cacheDir, path, text);
  await svc.markDirty({ relPath: path });
}

const read = (svc: SyncService, path: string) =>
  Deno.readTextFile(`${svc.cacheDir}/${path}`).catch(() => undefined);

/** Every index entry names the version the store holds, and only objects the store holds. */
async function assertIndexCurrent(store: InMemoryStore) {
  const index = await readIndex(store, quick.retry);
  for (const [path, e] of Object.entries(index?.entries ?? {})) {
    const info = await store.head(path);
    assert.ok(info, `the index names ${path}, which the store does not hold`);
    assert.equal(e.v, info.version, `the index names a dead version of ${path}`);
  }
}

/** `a` and `b` synced `path`; `a` then wrote a new copy whose index update never landed (a crash). */
async function strandedBy(path: string) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, path, "2");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await a.pushChanged().catch(() => {});
  assert.equal(store.peekText(path), "2", "a's object landed, uncommitted");
  return { store, a, b };
}

for (const path of ["data/shell/cmd/m1/out/latest", "notes/shared.txt"]) {
  Deno.test(`a push told to take over ${path} writes over a stranded uncommitted write; its writer gets a conflict`, async () => {
    const { store, a, b } = await strandedBy(path);
    await put(b, path, "3");
    const waiting = await b.pushChanged();
    assert.deepEqual(waiting.skipped.map((s) => [s.path, s.keepDirty]), [[path, true]]);
    assert.equal(store.peekText(path), "2", "without it, b waits");

    const warnings: string[] = [];
    b.events.on("warning", (w) => warnings.push(w.code));
    const took = await b.pushChanged({ takeOver: [path] });
    assert.deepEqual(took.conflicts, []);
    assert.deepEqual(took.skipped, []);
    assert.deepEqual(took.uploaded, [path]);
    assert.ok(warnings.includes("took_over_uncommitted"));
    assert.equal(store.peekText(path), "3");
    await assertIndexCurrent(store);
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(await read(c, path), "3", "a fresh clone gets the taken-over file");

    // a comes back: its copy meets b's committed one, a conflict; nothing is lost.
    const back = await clone(store, "a", a.cacheDir);
    const ra = await back.pushChanged();
    assert.deepEqual(ra.conflicts, [path]);
    assert.equal(await read(back, path), "2", "a keeps its copy");
    assert.equal(store.peekText(path), "3", "b's copy stands");
    await assertIndexCurrent(store);
    await back.resolveConflict(path, "mine");
    assert.equal(store.peekText(path), "2");
    await assertIndexCurrent(store);
  });
}

Deno.test("a deletion told to take over deletes over a stranded uncommitted write; its writer gets a conflict", async () => {
  const path = "notes/shared.txt";
  const { store, a, b } = await strandedBy(path);
  await Deno.remove(`${b.cacheDir}/${path}`);
  await b.markDirty({ relPath: path });
  const waiting = await b.pushChanged();
  assert.deepEqual(waiting.skipped.map((s) => [s.path, s.keepDirty]), [[path, true]]);
  assert.equal(store.peekText(path), "2");

  const took = await b.pushChanged({ takeOver: [path] });
  assert.deepEqual(took.conflicts, []);
  assert.deepEqual(took.deleted, [path]);
  assert.equal(store.peek(path), undefined);
  await assertIndexCurrent(store);
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);

  const back = await clone(store, "a", a.cacheDir);
  const ra = await back.pushChanged();
  assert.deepEqual(ra.conflicts, [path]);
  assert.equal(await read(back, path), "2", "a keeps its copy");
  await assertIndexCurrent(store);
});

Deno.test("take-over leaves a committed change alone: it stays a conflict", async () => {
  const path = "notes/shared.txt";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, path, "2");
  await a.pushChanged();
  await put(b, path, "3");
  const r = await b.pushChanged({ takeOver: [path] });
  assert.deepEqual(r.conflicts, [path]);
  assert.equal(store.peekText(path), "2", "a's committed copy is never overwritten");
});
