/**
 * A prepared push whose write of a path is replaced, before its commit, by
 * a later push of this same cache (a structural command's, say, between a
 * run's two phases): the commit finds the store holding that later push's
 * committed write, which is this cache's own newer change, already
 * published. It is not another writer's: no `overwritten_before_commit`
 * warning, no conflict, and every later edit of the path is published.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { WarningEvent } from "../events.ts";
import type { SyncService } from "./service.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";

const PATH = "definitions/ss.yaml";

function warningsOf(svc: SyncService): WarningEvent[] {
  const out: WarningEvent[] = [];
  svc.events.on("warning", (w) => out.push(w));
  return out;
}

async function storeText(store: InMemoryStore, path: string): Promise<string | undefined> {
  const got = await store.get(path);
  return got ? new TextDecoder().decode(got.body) : undefined;
}

/** What a fresh clone of the store reads at `path`. */
async function published(store: InMemoryStore, path: string): Promise<string | undefined> {
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  return await read(fresh, path);
}

/** Clone `a` with `X0` pushed first (when `synced`), then the dirty edit `X1` prepared (a run's preparation uploads it). */
async function preparedX1(store: InMemoryStore, synced = true) {
  const a = await clone(store, "a");
  if (synced) {
    await put(a, PATH, "X0");
    await a.pushChanged();
  }
  const warnings = warningsOf(a);
  await put(a, PATH, "X1");
  const prepared = await a.preparePush();
  return { a, warnings, prepared };
}

for (const first of ["synced before", "new"]) {
  Deno.test(`a prepared write replaced before its commit by a later push of the same cache is no conflict, and later edits are published (path ${first})`, async () => {
    const store = new InMemoryStore();
    // A run's preparation uploads the dirty edit X1.
    const { a, warnings, prepared } = await preparedX1(store, first === "synced before");
    assert.deepEqual(prepared.result.uploaded, [PATH]);
    // A later push of this cache writes and commits X2 over it.
    await put(a, PATH, "X2");
    const later = await a.pushChanged();
    assert.deepEqual(later.uploaded, [PATH]);
    assert.equal(await storeText(store, PATH), "X2");
    // The run's commit: X1 is superseded by this cache's own X2.
    const done = await a.commitPush(prepared);
    assert.deepEqual(done.overwritten, []);
    assert.deepEqual(done.conflicts, []);
    assert.ok(!done.uploaded.includes(PATH), "X1 is not reported published");
    assert.deepEqual(warnings.filter((w) => w.code === "overwritten_before_commit"), []);
    assert.deepEqual(a.conflicts(), []);
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[PATH]?.v,
      (await store.head(PATH))?.version,
    );
    assert.equal(await published(store, PATH), "X2");
    // Every later edit is published.
    for (const v of ["X3", "X4"]) {
      await put(a, PATH, v);
      const r = await a.pushChanged();
      assert.deepEqual(r.uploaded, [PATH], `${v} is pushed`);
      assert.equal(await published(store, PATH), v);
    }
    await assertIndexCurrent(store, { held: true });
    // A service reopened over the cache has nothing left over.
    const again = await clone(store, "a", a.cacheDir);
    await put(again, PATH, "X5");
    assert.deepEqual((await again.pushChanged()).uploaded, [PATH]);
    assert.equal(await published(store, PATH), "X5");
    assert.deepEqual(warnings.filter((w) => w.code === "conflicts_left"), []);
  });
}

Deno.test("a prepared write replaced before its commit by a later push of the same cache deleting the path is no conflict, and later edits are published", async () => {
  const store = new InMemoryStore();
  // A run's preparation uploads the dirty edit X1.
  const { a, warnings, prepared } = await preparedX1(store);
  assert.deepEqual(prepared.result.uploaded, [PATH]);
  // A later push of this cache deletes the path and commits the deletion.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  const later = await a.pushChanged();
  assert.deepEqual(later.deleted, [PATH]);
  assert.equal(store.peekText(PATH), undefined);
  // The run's commit: X1 is superseded by this cache's own deletion.
  const done = await a.commitPush(prepared);
  assert.deepEqual(done.overwritten, []);
  assert.deepEqual(done.conflicts, []);
  assert.ok(!done.uploaded.includes(PATH), "X1 is not reported published");
  assert.deepEqual(warnings.filter((w) => w.code === "overwritten_before_commit"), []);
  assert.deepEqual(a.conflicts(), []);
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined);
  assert.equal(await published(store, PATH), undefined);
  // A later edit is published.
  await put(a, PATH, "X3");
  assert.deepEqual((await a.pushChanged()).uploaded, [PATH]);
  assert.equal(await published(store, PATH), "X3");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a prepared write whose path an old client deleted before its commit is still a conflict", async () => {
  const store = new InMemoryStore();
  const { a, prepared } = await preparedX1(store);
  // An old client deletes the path (object and entry), unconditionally.
  await peerPush(store, {}, { remove: [PATH] });
  const done = await a.commitPush(prepared);
  assert.deepEqual(done.conflicts, [PATH]);
  assert.deepEqual(a.conflicts().map((c) => c.path), [PATH]);
});

Deno.test("a prepared write of a new path that a later push of the same cache withdrew (the file deleted here) is left out: the index never names the gone upload", async () => {
  const store = new InMemoryStore();
  // A run's preparation uploads the new file X1.
  const { a, warnings, prepared } = await preparedX1(store, false);
  assert.deepEqual(prepared.result.uploaded, [PATH]);
  // The file is deleted here, and a later push of this cache withdraws the upload.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  const later = await a.pushChanged();
  assert.deepEqual(later.strandedChecks, [{ path: PATH, outcome: "withdrawn" }]);
  assert.equal(store.peekText(PATH), undefined);
  // The run's commit: X1 is gone, withdrawn by this cache's own later push.
  const done = await a.commitPush(prepared);
  assert.ok(!done.uploaded.includes(PATH), "X1 is not reported published");
  assert.deepEqual(done.conflicts, []);
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH],
    undefined,
    "the index names no object that is gone",
  );
  assert.equal(a.state.synced(PATH), undefined, "nothing recorded as synced");
  assert.deepEqual(a.conflicts(), []);
  // A peer reads no file the datastore lost.
  const b = await clone(store, "b");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.vanished, []);
  assert.deepEqual(pulled.lost, []);
  // A later edit is published.
  await put(a, PATH, "X3");
  assert.deepEqual((await a.pushChanged()).uploaded, [PATH]);
  assert.equal(await published(store, PATH), "X3");
  assert.deepEqual(warnings.filter((w) => w.code === "overwritten_before_commit"), []);
  await assertIndexCurrent(store, { held: true });
});
