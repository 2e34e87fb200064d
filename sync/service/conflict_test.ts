/**
 * Conflicts (issue 18): the commit step never records a version the store no
 * longer holds, a pull never destroys a local change, and every conflict is
 * resolvable with a compare-and-swap on the version the user saw.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import {
  assertIndexCurrent,
  bothSynced,
  clone,
  publishVersions,
  put,
  quick,
  read,
} from "./clone_kit.ts";

const MARKER = "data/shell/cmd/m1/out/latest";

for (const path of [MARKER, "notes/shared.txt"]) {
  Deno.test(`two clones writing ${path} at once: one wins, the other gets a conflict, the index stays current`, async () => {
    const store = new InMemoryStore();
    if (path === MARKER) await publishVersions(store, MARKER, ["1", "2", "3"]);
    const { a, b } = await bothSynced(store, path, "1", "2");
    await put(b, path, "3");
    const pa = await a.preparePush();
    const pb = await b.preparePush();
    // Both prepared, then b commits first and a last: exactly one wins, and
    // the index never names a dead version.
    const rb = await b.commitPush(pb);
    const ra = await a.commitPush(pa);
    // A marker is written at the commit: b's lands first and a meets it,
    // committed. Other files go at the preparation: a's lands first and b
    // meets it before it is committed, so b waits (kept dirty, no conflict
    // yet) and meets it as a committed change at its next push.
    const waited = [ra, rb].filter((r) => r.skipped.some((s) => s.path === path && s.keepDirty));
    if (path !== MARKER) {
      assert.deepEqual(rb.conflicts, []);
      assert.equal(waited.length, 1);
      assert.deepEqual((await b.pushChanged()).conflicts, [path]);
    }
    const lost = [a.conflicts().length > 0, b.conflicts().length > 0];
    assert.equal(lost.filter(Boolean).length, 1, "exactly one writer gets the conflict");
    const [loser, won, lostText] = lost[0] ? [a, "3", "2"] : [b, "2", "3"];
    assert.equal(store.peekText(path), won);
    const c = await clone(store, "c");
    const pulled = await c.pullChanged();
    assert.deepEqual(pulled.uncommitted, []);
    assert.equal(await read(c, path), won, "a fresh clone gets the committed file");
    assert.equal(await read(loser, path), lostText, "the loser keeps its copy");
    assert.equal(loser.conflicts()[0]?.theirs?.version, (await store.head(path))?.version);
  });
}

Deno.test("a peer waits for a writer that crashed between its marker write and its index commit, and is never rolled back by it", async () => {
  const store = new InMemoryStore();
  await publishVersions(store, MARKER, ["1", "2", "3"]);
  const { a, b } = await bothSynced(store, MARKER, "1", "2");
  // The marker is written, its index update never lands: the process dies here.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await a.pushChanged().catch(() => {});
  const fresh = await clone(store, "fresh");
  assert.deepEqual((await fresh.pullChanged()).uncommitted, [MARKER]);
  await b.pullChanged();
  await put(b, MARKER, "3");
  const rb = await b.pushChanged();
  assert.deepEqual(rb.conflicts, [], "b meets a's uncommitted write: no committed change yet");
  assert.deepEqual(rb.skipped.map((s) => [s.path, s.keepDirty]), [[MARKER, true]]);
  assert.equal(store.peekText(MARKER), "2", "a's object is not taken from under it");
  // a comes back: its push replaces its own object and commits it.
  const restarted = await clone(store, "a", a.cacheDir);
  const ra = await restarted.pushChanged();
  assert.deepEqual(ra.conflicts, []);
  await assertIndexCurrent(store);
  // Now b meets a committed change, a marker naming an older version than
  // b's, below version 3 that the index lists: whether a moved it forward
  // to 2 or back from 3 (a rollback) is not known, so a conflict, both
  // copies kept (marker_rebase_test.ts).
  assert.deepEqual((await b.pushChanged()).conflicts, [MARKER]);
  assert.equal(store.peekText(MARKER), "2");
  assert.equal(await read(b, MARKER), "3");
  assert.deepEqual((await restarted.pushChanged()).uploaded, []);
  assert.equal(store.peekText(MARKER), "2", "a's committed marker stands");
  await assertIndexCurrent(store);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, MARKER), "2");
});

Deno.test("a pull keeps hand edits that were never marked dirty, and reports them as conflicts", async () => {
  const store = new InMemoryStore();
  await publishVersions(store, MARKER, ["1", "2", "7"]);
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/todo.txt", "a1");
  await put(a, MARKER, "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, "notes/todo.txt", "a2");
  await put(a, MARKER, "7");
  await a.pushChanged();
  await put(b, "notes/todo.txt", "b's edit", false);
  // (A marker moved further forward here than there would be no conflict: see marker_rebase.ts.)
  await put(b, MARKER, "2", false);
  const r = await b.pullChanged();
  assert.deepEqual(r.fetched, []);
  assert.deepEqual(r.conflicts.sort(), [MARKER, "notes/todo.txt"]);
  assert.equal(await read(b, "notes/todo.txt"), "b's edit");
  assert.equal(await read(b, MARKER), "2");
  const listed = b.conflicts();
  assert.deepEqual(listed.map((c) => c.path), [MARKER, "notes/todo.txt"]);
  assert.ok(listed.every((c) => c.mine && c.theirs), "both versions are listed");
  // Taking theirs sets mine aside: nothing is lost.
  const t = await b.resolveConflict("notes/todo.txt", "theirs");
  assert.ok(t.resolved);
  assert.equal(await read(b, "notes/todo.txt"), "a2");
  assert.equal(await read(b, t.setAside[0]), "b's edit");
});

Deno.test("a hand-deleted synced file is not brought back by a pull that finds it changed remotely", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, "notes/n.txt", "a1", "a2");
  await a.pushChanged();
  await Deno.remove(`${b.cacheDir}/notes/n.txt`);
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, ["notes/n.txt"]);
  assert.equal(await read(b, "notes/n.txt"), undefined);
  assert.equal(b.conflicts()[0].mine, null);
});

Deno.test("a config conflict is resolved by publishing a merge, over the version the user saw", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const CFG = "config/app.yaml";
  await put(a, CFG, "x: 1\n");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, CFG, "x: 2\n");
  await a.pushChanged();
  await put(b, CFG, "y: 1\n");
  assert.deepEqual((await b.pullChanged()).conflicts, [CFG]);
  await put(b, CFG, "x: 2\ny: 1\n");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.conflicts, [CFG], "a plain push leaves the conflict, and says so");
  assert.equal(store.peekText(CFG), "x: 2\n");
  const res = await b.resolveConflict(CFG, "merged");
  assert.ok(res.resolved);
  assert.equal(store.peekText(CFG), "x: 2\ny: 1\n");
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual((await b.pullChanged()).conflicts, []);
  await a.pullChanged();
  assert.equal(await read(a, CFG), "x: 2\ny: 1\n");
  await assertIndexCurrent(store);
});

Deno.test("a third writer between the conflict and its resolution makes a new conflict, never a loss", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const c = await clone(store, "c");
  const CFG = "config/app.yaml";
  await put(a, CFG, "base");
  await a.pushChanged();
  await b.pullChanged();
  await c.pullChanged();
  await put(a, CFG, "from a");
  await a.pushChanged();
  await put(b, CFG, "from b");
  assert.deepEqual((await b.pushChanged()).conflicts, [CFG]);
  await c.pullChanged();
  await put(c, CFG, "from c");
  await c.pushChanged();
  const first = await b.resolveConflict(CFG, "mine");
  assert.equal(first.resolved, false);
  assert.equal(store.peekText(CFG), "from c", "c's write is not lost");
  assert.equal(await read(b, CFG), "from b", "b's copy is not lost");
  assert.equal(b.conflicts()[0].theirs?.version, (await store.head(CFG))?.version);
  const second = await b.resolveConflict(CFG, "mine");
  assert.ok(second.resolved);
  assert.equal(store.peekText(CFG), "from b");
});

Deno.test("a delete refused because a peer changed the file is a conflict: reported, kept, and resolvable", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, "notes/n.txt", "a1", "a2");
  await a.pushChanged();
  await Deno.remove(`${b.cacheDir}/notes/n.txt`);
  await b.markDirty({ relPath: "notes/n.txt" });
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, ["notes/n.txt"]);
  assert.deepEqual((await b.pullChanged()).conflicts, ["notes/n.txt"]);
  assert.equal(await read(b, "notes/n.txt"), undefined, "the local deletion stands");
  const mine = await b.resolveConflict("notes/n.txt", "mine");
  assert.ok(mine.resolved && mine.deleted);
  assert.equal(store.peekText("notes/n.txt"), undefined);
  await a.pullChanged();
  assert.equal(await read(a, "notes/n.txt"), undefined);
});

Deno.test("a data version another writer published first is taken by the next push and pull, not held back as a conflict", async () => {
  // Found by the chaos checker (I1): a run crashes after writing version 1
  // locally; a peer publishes version 1; the pull records a conflict on the
  // crashed run's files. A push that held them back as a conflict never let
  // the create-only writer set them aside, so the clone never got the
  // published version 1.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const raw = "data/shell/cmd/m1/out/1/raw";
  await put(b, raw, "b's crashed run");
  await put(a, raw, "a's run");
  await a.pushChanged();
  assert.deepEqual((await b.pullChanged()).conflicts, [raw]);
  await assert.rejects(() => b.pushChanged(), (e: Error & { code?: string }) => {
    assert.equal(e.code, "version_exists");
    return true;
  });
  assert.deepEqual(b.conflicts(), [], "theirs stands: the conflict is settled");
  await b.pullChanged();
  assert.equal(await read(b, raw), "a's run");
});

Deno.test("resolving a data version conflict with --mine sets the whole version aside and the next pull takes theirs", async () => {
  // Found by the chaos checker (I1): the resolution rebased the file on
  // theirs, the create-only writer set it aside (version_exists), and the
  // manifest still called it synced at theirs, so no pull fetched it again.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const dir = "data/shell/cmd/m1/out/1";
  for (const f of ["raw", "metadata.yaml"]) await put(b, `${dir}/${f}`, `b's crashed ${f}`);
  for (const f of ["raw", "metadata.yaml"]) await put(a, `${dir}/${f}`, `a's ${f}`);
  await a.pushChanged();
  assert.equal((await b.pullChanged()).conflicts.length, 2);
  await assert.rejects(() => b.resolveConflict(`${dir}/metadata.yaml`, "mine"), /already exists/);
  assert.deepEqual(b.conflicts(), [], "both files were set aside: theirs stands");
  await b.pullChanged();
  assert.equal(await read(b, `${dir}/metadata.yaml`), "a's metadata.yaml");
  assert.equal(await read(b, `${dir}/raw`), "a's raw");
});

Deno.test("a deletion whose index update failed is committed by the next push", async () => {
  // Found by the chaos checker (I7, I8): the delete went through, the index
  // update did not (the store went away), and the manifest had already
  // forgotten the path, so the next push had nothing to delete and the index
  // named a deleted object for good.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/n.txt", "a1");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/notes/n.txt`);
  await a.markDirty({ relPath: "notes/n.txt" });
  store.failNext("get", 1, () => new UnreachableError("injected"), {
    match: (k) => k !== "notes/n.txt",
  });
  await assert.rejects(() => a.pushChanged());
  assert.equal(store.peekText("notes/n.txt"), undefined, "the delete went through");
  await a.pushChanged();
  await assertIndexCurrent(store);
  assert.equal((await readIndex(store, quick.retry))?.entries["notes/n.txt"], undefined);
  await b.pullChanged();
  assert.equal(await read(b, "notes/n.txt"), undefined, "the deletion reaches the peer");
});

Deno.test("a pull keeps a hand edit that kept the file's size and mtime (an edit within the timestamp tick)", async () => {
  // Found by the chaos checker (I6, the hand-tick edit): the pull took an
  // unchanged size and mtime for an unchanged file and overwrote the edit.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(b, "notes/x.md", "aaaa");
  await b.pushChanged();
  await a.pullChanged();
  const file = `${a.cacheDir}/notes/x.md`;
  const before = await Deno.stat(file);
  await Deno.writeTextFile(file, "bbbb");
  await Deno.utime(file, before.atime!, before.mtime!);
  await put(b, "notes/x.md", "cccc");
  await b.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, ["notes/x.md"]);
  assert.equal(await read(a, "notes/x.md"), "bbbb");
});

for (const edit of ["another edit", "the datastore's new bytes"] as const) {
  Deno.test(`a copy a pull set aside stays named by a conflict record after a later pull finds ${edit} at the path`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await put(a, "notes/n.txt", "a1");
    await a.pushChanged();
    // Pull 1 sets b's copy, never synced, aside.
    await put(b, "notes/n.txt", "b's first copy", false);
    const first = await b.pullChanged();
    assert.equal(first.setAside.length, 1);
    const aside = first.setAside[0];
    assert.equal(b.conflicts()[0]?.mine?.location, aside);
    // b edits the path again by hand; a pushes a2. Pull 2 meets both.
    await put(b, "notes/n.txt", edit === "another edit" ? "b's second copy" : "a2", false);
    await put(a, "notes/n.txt", "a2");
    await a.pushChanged();
    await b.pullChanged();
    for (const svc of [b, await clone(store, "b", b.cacheDir)]) {
      const recs = svc.conflicts();
      assert.deepEqual(recs.map((c) => c.path), ["notes/n.txt"]);
      assert.ok(
        JSON.stringify(recs).includes(aside),
        `the record still names the first set-aside copy ${aside}: ${JSON.stringify(recs)}`,
      );
    }
    const rec = b.conflicts()[0];
    if (edit === "another edit") {
      // The new conflict is the copy in place; the first copy is named beside it.
      assert.equal(rec.mine?.location, "notes/n.txt");
      assert.deepEqual(rec.keptAside?.map((k) => k.location), [aside]);
    } else {
      // The path agrees with the datastore now: the record naming the copy stays as it was.
      assert.equal(rec.mine?.location, aside);
    }
    assert.equal(await read(b, aside), "b's first copy");
    // Only a resolution drops it; the copy itself stays on disk.
    assert.ok((await b.resolveConflict("notes/n.txt", "theirs")).resolved);
    assert.deepEqual(b.conflicts(), []);
    assert.equal(await read(b, aside), "b's first copy");
  });
}

Deno.test("a data version lost to another writer leaves a record naming a copy set aside earlier until it is resolved", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const raw = "data/shell/cmd/m1/out/1/raw";
  await put(a, raw, "a's run");
  await a.pushChanged();
  // b's copy, never synced, is set aside by the pull that takes a's.
  await put(b, raw, "b's first run", false);
  const first = await b.pullChanged();
  assert.equal(first.setAside.length, 1);
  const aside = first.setAside[0];
  // b writes the version again by hand: its push loses to a's (create-only).
  await put(b, raw, "b's second run");
  await assert.rejects(() => b.pushChanged(), (e: Error & { code?: string }) => {
    assert.equal(e.code, "version_exists");
    return true;
  });
  assert.ok(
    JSON.stringify(b.conflicts()).includes(aside),
    `the first set-aside copy ${aside} is still named: ${JSON.stringify(b.conflicts())}`,
  );
  assert.equal(await read(b, aside), "b's first run");
  assert.ok((await b.resolveConflict(raw, "theirs")).resolved);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, raw), "a's run");
});

/** `store`, whose reads of `path` never answer: a process stopped there, for good. */
function stopsAt(store: InMemoryStore, path: string): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return (key: string, ...rest: unknown[]) =>
        key === path ? new Promise(() => {}) : value.call(target, key, ...rest);
    },
  });
}

Deno.test("a copy set aside by a pull that stopped before recording its conflict is named again when the cache is next opened, until a resolution", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/n.txt", "a1");
  await a.pushChanged();
  await put(b, "notes/n.txt", "b's copy", false);
  // b's pull sets its copy aside, then stops for good at the download.
  const stopped = await clone(stopsAt(store, "notes/n.txt"), "b", b.cacheDir);
  stopped.pullChanged().catch(() => {});
  await waitFor(async () => (await read(b, "notes/n.txt")) === undefined);
  const again = await clone(store, "b", b.cacheDir);
  const rec = again.conflicts()[0];
  assert.equal(rec?.path, "notes/n.txt", JSON.stringify(again.conflicts()));
  assert.match(rec.mine?.location ?? "", /^\.sluice\/set-aside\//);
  assert.equal(await read(again, rec.mine!.location), "b's copy");
  assert.equal(rec.theirs?.version, (await store.head("notes/n.txt"))?.version);
  // The next pull takes theirs and keeps naming the copy; a resolution releases it.
  assert.deepEqual((await again.pullChanged()).conflicts, ["notes/n.txt"]);
  assert.equal(await read(again, "notes/n.txt"), "a1");
  assert.ok((await again.resolveConflict("notes/n.txt", "theirs")).resolved);
  assert.deepEqual((await clone(store, "b", b.cacheDir)).conflicts(), []);
  assert.equal(await read(again, rec.mine!.location), "b's copy", "the copy itself stays");
});
