/**
 * A resolution whose push holds the path back (another writer's upload no
 * index names is in the way, a data version still being written here):
 * nothing is published, and the conflict is never lost. Its record goes,
 * the resolution answering `resolved: false` with the push's reason, while
 * the path stays dirty, rebased on theirs, listed by `status`; the push that
 * can go publishes it, or meets a newer theirs as a new conflict.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";
import { committedEdits, cutOffUpload, indexed, PATH, threeClones } from "./resolve_upload_kit.ts";

/**
 * `a`'s edit of `PATH` in conflict with `b`'s committed edit; then `c`'s
 * edit of theirs uploaded, its commit cut off: an upload no index names,
 * over theirs.
 */
async function conflictThenUpload() {
  const { store, a, b, c } = await threeClones();
  await committedEdits(a, b);
  await put(a, PATH, "a's edit");
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  const theirs = await indexed(store);
  await cutOffUpload(store, c);
  assert.equal(store.peekText(PATH), "c's edit");
  return { store, a, c, theirs };
}

/** The path waits in `a`: dirty, listed by status as left out, and no record says it is resolved. */
async function assertWaits(a: SyncService) {
  assert.ok(a.state.dirtyPaths().includes(PATH), "the path stays dirty");
  const { entries, leftBehind } = await a.statusReport();
  assert.ok(entries.some((e) => e.path === PATH), "status lists the path");
  assert.ok(
    [...leftBehind.conflicts, ...leftBehind.left.map((l) => l.path)].includes(PATH),
    `status says a push leaves it: ${JSON.stringify(leftBehind)}`,
  );
}

for (const resolution of ["mine", "merged"] as const) {
  Deno.test(`resolve --${resolution} whose push waits on another writer's upload over theirs: answered not resolved, the path dirty and listed by status, published once that upload is committed`, async () => {
    const { store, a, c, theirs } = await conflictThenUpload();
    if (resolution === "merged") await put(a, PATH, "a's merge", false);
    const mine = resolution === "merged" ? "a's merge" : "a's edit";
    const r = await a.resolveConflict(PATH, resolution);
    assert.equal(r.resolved, false, JSON.stringify(r));
    assert.equal(r.published, undefined);
    assert.ok(r.push?.skipped.some((s) => s.path === PATH && s.keepDirty), "held back, kept dirty");
    assert.equal(await indexed(store), theirs, "nothing published");
    assert.equal(store.peekText(PATH), "c's edit", "nothing written over the upload");
    assert.equal(await read(a, PATH), mine);
    await assertWaits(a);
    // A restart keeps it so.
    const again = await clone(store, "a", a.cacheDir);
    await assertWaits(again);
    // The upload committed: a newer theirs, met as a new conflict, nothing lost.
    await c.pushChanged();
    const met = await again.pushChanged();
    assert.deepEqual(met.conflicts, [PATH]);
    assert.equal(again.conflicts()[0]?.theirs?.version, await indexed(store));
    assert.equal(await read(again, PATH), mine);
    const done = await again.resolveConflict(PATH, "mine");
    assert.equal(done.resolved, true, JSON.stringify(done));
    assert.equal(store.peekText(PATH), mine);
    assert.deepEqual(again.conflicts(), []);
  });
}

Deno.test("resolve --mine of a copy a pull set aside, whose push waits on another writer's upload over theirs: after a restart the path still waits, dirty, and is not in conflict again", async () => {
  const { store, a, b, c } = await threeClones();
  await put(b, PATH, "b's file");
  await b.pushChanged();
  await put(a, PATH, "a's file", false);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [PATH]);
  assert.notEqual(a.conflicts()[0]?.mine?.location, PATH, "a's copy set aside");
  await cutOffUpload(store, c);
  const r = await a.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.equal(await read(a, PATH), "a's file");
  await assertWaits(a);
  const again = await clone(store, "a", a.cacheDir);
  assert.deepEqual(again.conflicts(), [], "the resolution is not turned back into a conflict");
  await assertWaits(again);
  await c.pushChanged();
  const met = await again.pushChanged();
  assert.deepEqual(met.conflicts, [PATH]);
  assert.equal(await read(again, PATH), "a's file");
  assert.equal((await again.resolveConflict(PATH, "mine")).resolved, true);
  assert.equal(store.peekText(PATH), "a's file");
});

Deno.test("resolve --mine of a deletion here, whose push waits on another writer's upload over theirs: answered not resolved, the deletion dirty and listed by status as waiting, met as a conflict once that upload is committed", async () => {
  const { store, a, b, c } = await threeClones();
  await committedEdits(a, b);
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  await cutOffUpload(store, c);
  const r = await a.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.equal(r.deleted, false);
  assert.equal(store.peekText(PATH), "c's edit", "nothing deleted");
  await assertWaits(a);
  await c.pushChanged();
  const met = await a.pushChanged();
  assert.deepEqual(met.conflicts, [PATH]);
  assert.equal(a.conflicts()[0]?.theirs?.version, await indexed(store));
  assert.equal(a.conflicts()[0]?.mine, null, "the deletion stands as the conflict's side here");
});

Deno.test("resolve --mine of a latest marker naming a version not written yet: held back, answered not resolved, the marker dirty and listed by status, published with the version", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const D = "data/t/m/out";
  const marker = `${D}/latest`;
  for (const n of ["1", "2"]) {
    await put(a, `${D}/${n}/raw`, `v${n}`);
    await put(a, `${D}/${n}/metadata.yaml`, `version: ${n}`);
  }
  await put(a, marker, "2");
  await a.pushChanged();
  await b.pullChanged();
  // b moves the marker back; a moves it on to version 3, not written yet.
  await put(b, marker, "1");
  await b.pushChanged();
  await put(a, marker, "3");
  assert.deepEqual((await a.pullChanged()).conflicts, [marker]);
  const r = await a.resolveConflict(marker, "mine");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.ok(r.push?.skipped.some((s) => s.path === marker && s.keepDirty), "held back, kept dirty");
  assert.equal(store.peekText(marker), "1", "nothing published");
  assert.ok(a.state.dirtyPaths().includes(marker), "the marker stays dirty");
  const { entries, leftBehind } = await a.statusReport();
  assert.ok(entries.some((e) => e.path === marker), "status lists the marker");
  assert.ok(leftBehind.left.some((l) => l.path === marker), JSON.stringify(leftBehind));
  assert.deepEqual(a.conflicts(), []);
  // Version 3 written: the push publishes it, the marker with it.
  await put(a, `${D}/3/raw`, "v3");
  await put(a, `${D}/3/metadata.yaml`, "version: 3");
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.conflicts, []);
  assert.equal(store.peekText(marker), "3");
  assert.deepEqual(a.state.dirtyPaths(), []);
});
