/**
 * Adopting another writer's uncommitted object: a peer that waits on a
 * writer gone for good has a way out. The object is published as that
 * writer's change and the peer's copy meets it as a conflict; nothing is
 * overwritten, so a writer that was only slow loses nothing either.
 */
import assert from "node:assert/strict";
import { LOST_REASON } from "./vanished_record.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  assertIndexCurrent,
  bothSynced,
  clone,
  pastDanglingGrace,
  put,
  quick,
  read,
} from "./clone_kit.ts";

/** `a` and `b` synced `path`; `a` then wrote a new copy whose index update never landed (a crash). */
async function strandedBy(path: string, versions = ["1", "2", "3"]) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, "1");
  // A marker's versions, committed (a marker naming none would not be adopted).
  const dir = path.slice(0, path.lastIndexOf("/"));
  if (path.endsWith("/latest")) { for (const n of versions) await put(a, `${dir}/${n}/raw`, n); }
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
  Deno.test(`adopting ${path}: the stranded object is published as its writer's change, and the waiting copy is a conflict`, async () => {
    const { store, a, b } = await strandedBy(path);
    // A marker naming an older version than the adopted one's (a newer one
    // would be written over it, no conflict: see marker_rebase.ts).
    const mine = path.endsWith("/latest") ? "1\n" : "3";
    await put(b, path, mine);
    const waiting = await b.pushChanged();
    assert.deepEqual(waiting.skipped.map((s) => [s.path, s.keepDirty]), [[path, true]]);
    assert.deepEqual(waiting.conflicts, [], "without it, b waits");

    const warnings: string[] = [];
    b.events.on("warning", (w) => warnings.push(w.code));
    const adopted = await b.pushChanged({ adoptUncommitted: [path] });
    assert.deepEqual(adopted.conflicts, [path]);
    assert.deepEqual(adopted.uploaded, []);
    assert.ok(warnings.includes("adopted_uncommitted"));
    assert.equal(store.peekText(path), "2", "nothing is written over it");
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[path]?.v,
      (await store.head(path))?.version,
    );
    await assertIndexCurrent(store, { held: true });
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(await read(c, path), "2", "a fresh clone gets the adopted change");
    assert.equal(await read(b, path), mine, "b keeps its copy");

    // b publishes its copy over the change it has now seen; a, back, meets it
    // as a conflict (for the marker: b moved it back, never written over).
    await b.resolveConflict(path, "mine");
    assert.equal(store.peekText(path), mine);
    const back = await clone(store, "a", a.cacheDir);
    assert.deepEqual((await back.pushChanged()).conflicts, [path]);
    assert.equal(store.peekText(path), mine);
    assert.equal(await read(back, path), "2", "a keeps its copy");
    await assertIndexCurrent(store, { held: true });
  });
}

Deno.test("a writer that comes back after its object was adopted finds its change committed", async () => {
  const path = "notes/shared.txt";
  const { store, a, b } = await strandedBy(path);
  await put(b, path, "3");
  assert.deepEqual((await b.pushChanged({ adoptUncommitted: [path] })).conflicts, [path]);
  const back = await clone(store, "a", a.cacheDir);
  const ra = await back.pushChanged();
  assert.deepEqual(ra.conflicts, []);
  assert.deepEqual(ra.skipped, []);
  assert.equal(store.peekText(path), "2");
  await assertIndexCurrent(store, { held: true });
  assert.deepEqual(b.conflicts().map((c) => c.theirs?.version), [
    (await store.head(path))?.version,
  ]);
});

Deno.test("a deletion told to adopt: the stranded object is published, and the deletion is a conflict", async () => {
  const path = "notes/shared.txt";
  const { store, b } = await strandedBy(path);
  await Deno.remove(`${b.cacheDir}/${path}`);
  await b.markDirty({ relPath: path });
  const waiting = await b.pushChanged();
  assert.deepEqual(waiting.skipped.map((s) => [s.path, s.keepDirty]), [[path, true]]);

  const warnings: string[] = [];
  b.events.on("warning", (w) => warnings.push(w.code));
  const adopted = await b.pushChanged({ adoptUncommitted: [path] });
  assert.deepEqual(adopted.conflicts, [path]);
  assert.deepEqual(adopted.deleted, []);
  assert.ok(warnings.includes("adopted_uncommitted"));
  assert.equal(store.peekText(path), "2");
  await assertIndexCurrent(store, { held: true });
  await b.resolveConflict(path, "mine");
  assert.equal(store.peek(path), undefined, "the deletion, resolved, deletes the change it saw");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("adopt leaves a committed change as it is: it stays a conflict", async () => {
  const path = "notes/shared.txt";
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, path, "1", "2");
  await a.pushChanged();
  await put(b, path, "3");
  const r = await b.pushChanged({ adoptUncommitted: [path] });
  assert.deepEqual(r.conflicts, [path]);
  assert.equal(store.peekText(path), "2", "a's committed copy is never overwritten");
});

Deno.test("a writer taken for gone that was only slow: its commit after the adoption loses nothing", async () => {
  const path = "notes/shared.txt";
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, path, "1", "2");
  const prepared = await a.preparePush(); // uploaded, not committed: a is slow, not gone
  await put(b, path, "3");
  assert.deepEqual((await b.pushChanged({ adoptUncommitted: [path] })).conflicts, [path]);
  const ra = await a.commitPush(prepared);
  assert.deepEqual(ra.conflicts, []);
  await b.pushChanged();
  await a.pushChanged();
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(path), "2", "a's change is committed");
  assert.equal(await read(b, path), "3", "b's is kept in its cache");
  assert.deepEqual(b.conflicts().map((c) => c.path), [path], "as an open conflict");
  assert.deepEqual(a.conflicts(), []);
});

Deno.test("a marker naming a version the index does not hold is not adopted: the push waits and says why", async () => {
  const path = "data/shell/cmd/m1/out/latest";
  const { store, b } = await strandedBy(path, ["1", "2", "3"]);
  // Version 2, which a's stranded marker names, is no longer in the index
  // (another client's rewrite dropped it).
  await updateIndex(store, { set: {}, remove: ["data/shell/cmd/m1/out/2/raw"] }, quick.retry);
  await put(b, path, "3");
  const warnings: string[] = [];
  b.events.on("warning", (w) => warnings.push(w.message));
  const r = await b.pushChanged({ adoptUncommitted: [path] });
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[path, true]]);
  assert.ok(
    warnings.some((w) => /not adopted: the version it names \(2\) is not in the index/.test(w)),
  );
  assert.notEqual(
    (await readIndex(store, quick.retry))?.entries[path]?.v,
    (await store.head(path))?.version,
    "the stranded marker stays unpublished",
  );
});

/**
 * The case the chaos checker found (seeds 30900032, 31101463): a slow
 * writer's first copy of a path is adopted, then deleted by a peer that saw
 * it, and only then does the slow commit land. It names the deleted object
 * again (no create is checked at its commit: that would cost a request per
 * new file). The next pull that meets the entry's object gone removes the
 * entry, so the index names only what the store holds.
 */
async function adoptedCreateDeletedBeforeItsCommit() {
  const path = "notes/new.txt";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, "a's");
  const prepared = await a.preparePush(); // uploaded, not committed: a is slow
  await put(b, path, "b's");
  assert.deepEqual((await b.pushChanged({ adoptUncommitted: [path] })).conflicts, [path]);
  await b.resolveConflict(path, "theirs");
  await Deno.remove(`${b.cacheDir}/${path}`);
  await b.markDirty({ relPath: path });
  const deletion = await b.pushChanged();
  assert.deepEqual(deletion.deleted, [path], "b deletes the change it saw");
  assert.equal(store.peek(path), undefined);
  await a.commitPush(prepared); // the slow commit lands
  return { store, a, b, path };
}

Deno.test("an adopted create deleted before its slow writer's commit: the next pull removes the entry that names the deleted object", async () => {
  const { store, a, b, path } = await adoptedCreateDeletedBeforeItsCommit();
  const named = async () => (await readIndex(store, quick.retry))?.entries[path];
  assert.ok(await named(), "the late commit named the deleted object again");
  await pastDanglingGrace(b);
  const warnings: { code: string; message: string }[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const r = await b.pullChanged();
  assert.equal(await named(), undefined, "the pull removed the entry");
  assert.deepEqual(r.fetched, []);
  const w = warnings.find((x) => x.code === "index_entry_dangling");
  assert.ok(w, `warned: ${JSON.stringify(warnings)}`);
  assert.match(w.message, /removed/);
  await assertIndexCurrent(store, { held: true });
  // a's commit was acknowledged, and b's deletion crossed it: a keeps its
  // copy as a conflict (the removal is recorded as a lost file), and
  // follows b's deletion by taking theirs.
  const ra = await a.pullChanged();
  assert.deepEqual(ra.conflicts, [path]);
  assert.equal(a.conflicts()[0].reason, LOST_REASON);
  await a.resolveConflict(path, "theirs");
  assert.equal(
    await read(a, path),
    undefined,
    "a follows the deletion b made after seeing its change",
  );
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, path), undefined);
});

Deno.test("adopting a path where nothing is stranded writes nothing: the unchanged file is not uploaded again", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/shared.txt", "1");
  await a.pushChanged();
  await b.pullChanged();
  const before = (await store.head("notes/shared.txt"))?.version;
  await b.markDirty({ relPath: "notes/shared.txt" });
  const r = await b.pushChanged({ adoptUncommitted: ["notes/shared.txt"] });
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.conflicts, []);
  assert.equal(
    (await store.head("notes/shared.txt"))?.version,
    before,
    "no new version for peers to meet",
  );
  // a, which wrote it, pushes an edit over it without a conflict.
  await put(a, "notes/shared.txt", "2");
  assert.deepEqual((await a.pushChanged()).uploaded, ["notes/shared.txt"]);
});
