/**
 * The datastore can hold both a file `a` and files under `a/` (two caches
 * pushed each), which no cache can hold at once. A pull places what it can,
 * leaves the other out with a `path_blocked` warning (listed in `blocked`,
 * never an internal error that stops every later pull), keeps what is in the
 * way, and keeps no index token, so the next pull tries again.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { pullLeftBehind } from "./pull_result.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import type { DistributedLock } from "../ports.ts";
import {
  assertIndexCurrent,
  clone,
  fileMadeADirectory,
  isIndexKey,
  put,
  quick,
  read,
} from "./clone_kit.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";

Deno.test("a file and a directory of the same name on the datastore: a pull places one, leaves the other out with path_blocked, and goes on", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "clash/x.txt", "under a directory");
  await a.pushChanged();
  // An old client, which checks nothing, publishes a file of the directory's name.
  await peerPush(store, { clash: "a file", "notes/other.txt": "another file" });
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const r = await a.pullChanged();
  assert.deepEqual(r.blocked, ["clash"]);
  assert.deepEqual(r.fetched, ["notes/other.txt"], "the rest of the pull went on");
  assert.ok(warnings.includes("path_blocked"));
  assert.equal(await read(a, "clash/x.txt"), "under a directory", "what is in the way is kept");
  assert.match(pullLeftBehind(r).left[0].reason, /a file or directory in the cache is in its way/);
  assert.equal(a.state.indexVersion, undefined, "no index token: the next pull looks again");
  // A fresh cache gets one of the two and is told of the other, the same way.
  const c = await clone(store, "c");
  const rc = await c.pullChanged();
  assert.equal(rc.fetched.length + (rc.blocked?.length ?? 0), 3);
  assert.equal(rc.blocked?.length, 1);
  // Once one of the two is deleted on the datastore, the next pull is whole.
  await peerPush(store, {}, { remove: ["clash"] });
  const again = await a.pullChanged();
  assert.deepEqual(again.blocked, []);
  assert.equal(await read(a, "clash/x.txt"), "under a directory");
});

Deno.test("a synced file replaced here by a directory of the same name, pushed by its name, is deleted on the datastore with the directory's files published", async () => {
  const { store, a, c } = await fileMadeADirectory();
  await a.markDirty({ relPath: "clash" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["clash/x.txt"]);
  assert.deepEqual(r.deleted, ["clash"], "the file's deletion is pushed, not dropped");
  assert.deepEqual(store.keys("clash"), ["clash/x.txt"], "the datastore holds no clash of both");
  assert.equal(a.state.synced("clash"), undefined);
  // A clone that synced the file follows in one pull: the file's removal clears the way.
  const warnings: string[] = [];
  c.events.on("warning", (w) => void warnings.push(w.code));
  const rc = await c.pullChanged();
  assert.deepEqual(rc.removed, ["clash"]);
  assert.deepEqual(rc.fetched, ["clash/x.txt"]);
  assert.deepEqual(rc.blocked, []);
  assert.ok(!warnings.includes("path_blocked"), "nothing was left out");
  assert.equal(await read(c, "clash/x.txt"), "under a directory");
  assert.ok(c.state.indexVersion !== undefined, "a whole pull keeps its index token");
});

Deno.test("a synced directory's files deleted on the datastore and a file of the directory's name published: one pull removes them and fetches it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, "clash/x.txt", "under a directory");
  await a.pushChanged();
  await c.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
  await put(a, "clash", "a file", false);
  await a.markDirty({ relPath: "clash/x.txt" });
  await a.markDirty({ relPath: "clash" });
  await a.pushChanged();
  assert.deepEqual(store.keys("clash"), ["clash"]);
  const rc = await c.pullChanged();
  assert.deepEqual(rc.removed, ["clash/x.txt"]);
  assert.deepEqual(rc.fetched, ["clash"]);
  assert.deepEqual(rc.blocked, []);
  assert.equal(await read(c, "clash"), "a file");
});

Deno.test("a file blocked by one changed here stays left out with path_blocked, and the changed file is kept", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, "clash", "a file");
  await a.pushChanged();
  await c.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`);
  await put(a, "clash/x.txt", "under a directory", false);
  await a.markDirty({ relPath: "clash" });
  await a.pushChanged();
  await put(c, "clash", "edited here", false);
  const warnings: string[] = [];
  c.events.on("warning", (w) => void warnings.push(w.code));
  const rc = await c.pullChanged();
  assert.deepEqual(rc.blocked, ["clash/x.txt"]);
  assert.ok(warnings.includes("path_blocked"));
  assert.equal(await read(c, "clash"), "edited here", "the edit is kept");
  assert.equal(c.state.indexVersion, undefined, "the next pull looks again");
});

Deno.test("a walk push lists a synced file replaced here by a directory of the same name among the files deleted here, and holds the directory's files back (no clash made)", async () => {
  const { store, a } = await fileMadeADirectory();
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.localDeletions, ["clash"], "told of, not silently left on the datastore");
  assert.ok(r.skipped.some((s) => s.path === "clash/x.txt" && s.keepDirty));
  assert.deepEqual(store.keys("clash"), ["clash"]);
});

Deno.test("a synced directory replaced here by a file of its name, pushed by its name, has its files deleted on the datastore with the file published", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, "clash/x.txt", "under a directory");
  await put(a, "clash/sub/y.txt", "deeper");
  await a.pushChanged();
  await c.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
  await put(a, "clash", "a file");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["clash"]);
  assert.deepEqual(
    r.deleted.sort(),
    ["clash/sub/y.txt", "clash/x.txt"],
    "not left on the datastore",
  );
  assert.deepEqual(store.keys("clash"), ["clash"], "the datastore holds no clash of both");
  assert.deepEqual(a.state.dirtyPaths(), []);
  // A clone that synced the directory follows in one pull.
  const rc = await c.pullChanged();
  assert.deepEqual(rc.removed.sort(), ["clash/sub/y.txt", "clash/x.txt"]);
  assert.deepEqual(rc.fetched, ["clash"]);
  assert.deepEqual(rc.blocked, []);
  assert.equal(await read(c, "clash"), "a file");
});

Deno.test("a directory replaced by a file in one cache while another edits a file under it: the edit meets the deletion as a conflict, nothing is lost", async () => {
  for (const editFirst of [false, true]) {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await put(a, "clash/x.txt", "v1");
    await put(a, "clash/y.txt", "y");
    await a.pushChanged();
    await b.pullChanged();
    await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
    await put(a, "clash", "a file");
    await put(b, "clash/x.txt", "edited in b");
    if (editFirst) await b.pushChanged();
    const ra = await a.pushChanged();
    // a's file waits for the deletions of the directory's files: published
    // beside one that stays, it would make a clash.
    assert.deepEqual(ra.uploaded, editFirst ? [] : ["clash"]);
    const rb = editFirst ? null : await b.pushChanged();
    if (editFirst) {
      // a's deletion met b's committed edit: the edit stays on the datastore, a's deletion is a conflict.
      assert.deepEqual(ra.conflicts, ["clash/x.txt"]);
      assert.equal(new TextDecoder().decode(store.peek("clash/x.txt")), "edited in b");
      assert.ok(ra.skipped.some((s) => s.path === "clash" && s.keepDirty), "a's file held back");
      assert.equal(store.peek("clash"), undefined);
    } else {
      // b's edit met a's committed deletion: kept in b as a conflict.
      assert.deepEqual(rb!.conflicts, ["clash/x.txt"]);
      assert.equal(store.peek("clash/x.txt"), undefined);
      assert.equal(await read(b, "clash/x.txt"), "edited in b");
    }
    assert.equal(
      store.peek("clash/y.txt"),
      undefined,
      "the unchanged file's deletion went through",
    );
  }
});

/** A synced file `shape` of clone `a`, replaced by a directory of its name, pushed by that name. */
async function fileReplacedByDirectory(store: InMemoryStore) {
  const a = await clone(store, "a");
  await put(a, "shape", "a file");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/shape`);
  await put(a, "shape/part.txt", "under a directory", false);
  await a.markDirty({ relPath: "shape" });
  return a;
}

/** `a` replaces the directory `shape` by a file again and pushes it by that name. */
async function fileAgain(store: InMemoryStore, a: Awaited<ReturnType<typeof clone>>) {
  await Deno.remove(`${a.cacheDir}/shape`, { recursive: true });
  await put(a, "shape", "a file again");
  await a.pushChanged();
  assert.deepEqual(store.keys("shape"), ["shape"], "nothing of the directory is left");
  const index = await readIndex(store, quick.retry);
  const named = Object.keys(index?.entries ?? {}).filter((p) => p.startsWith("shape"));
  assert.deepEqual(named, ["shape"]);
  assert.equal(store.peekText("shape"), "a file again");
  const c = await clone(store, "c");
  const r = await c.pullChanged();
  assert.deepEqual(r.blocked, []);
  assert.equal(await read(c, "shape"), "a file again");
}

Deno.test("a directory's push whose deletion of the file it replaced failed: nothing of the directory is uploaded (no file beside files under its name); then a file of its name again, pushed by that name", async () => {
  const store = new InMemoryStore();
  const a = await fileReplacedByDirectory(store);
  store.failNext("delete", 1, () => new UnreachableError("cut off"));
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.deepEqual(a.state.syncedPaths(), ["shape"]);
  assert.deepEqual(store.keys("shape"), ["shape"], "the directory's file waits for the deletion");
  await fileAgain(store, a);
});

Deno.test("a directory's push cut off before its commit, then a file of its name again, pushed by that name: the directory's upload is deleted", async () => {
  const store = new InMemoryStore();
  const a = await fileReplacedByDirectory(store);
  store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText("shape/part.txt"), "under a directory", "the upload landed");
  assert.deepEqual(a.state.attemptedPaths(), ["shape/part.txt"]);
  await fileAgain(store, a);
});

Deno.test("a synced directory replaced by a file of its name, whose push wrote the file but failed a deletion of the directory's files: the name stays dirty, and the next push deletes them", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "clash/x.txt", "under a directory");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
  await put(a, "clash", "a file");
  store.failNext("delete", 1, () => new UnreachableError("cut off"));
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.deepEqual(a.state.dirtyPaths(), ["clash"], "the name still stands for the deletion");
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, ["clash/x.txt"]);
  assert.deepEqual(store.keys("clash"), ["clash"], "the datastore holds no clash of both");
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index?.entries ?? {}).filter((p) => p.startsWith("clash")), [
    "clash",
  ]);
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("a synced file replaced by a directory of its name, whose push deleted the file but failed a write under it: the name stays dirty, and the next push writes it", async () => {
  const store = new InMemoryStore();
  const a = await fileReplacedByDirectory(store);
  await put(a, "shape/other.txt", "another", false);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "shape/other.txt",
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.deepEqual(a.state.dirtyPaths(), ["shape"], "the name still stands for the directory");
  await a.pushChanged();
  assert.deepEqual(store.keys("shape").sort(), ["shape/other.txt", "shape/part.txt"]);
  assert.deepEqual(a.state.dirtyPaths(), []);
});

/** `b` replaced the synced file `notes/f` by a directory of its name and pushed it by that name, after `a` edited the file. */
async function replacedAfterPeerEdit(file = "notes/f", inside = `${file}/x`) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, file, "v1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, file, "v2, a's edit");
  await a.pushChanged();
  await Deno.remove(`${b.cacheDir}/${file}`);
  await put(b, inside, "b's file under a directory", false);
  await b.markDirty({ relPath: file });
  const pushed = await b.pushChanged();
  return { store, b, pushed };
}

const notesNamed = async (store: InMemoryStore) =>
  Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).filter((p) =>
    p.startsWith("notes/")
  );

Deno.test("a file replaced here by a directory, whose deletion meets a peer's edit: the directory's files are held back, never published beside the file", async () => {
  const { store, b, pushed } = await replacedAfterPeerEdit();
  assert.deepEqual(pushed.conflicts, ["notes/f"]);
  assert.deepEqual(pushed.uploaded, []);
  const held = pushed.skipped.find((s) => s.path === "notes/f/x");
  assert.ok(held?.keepDirty);
  assert.match(held.reason, /was not deleted on the datastore .*sluice resolve notes\/f --mine/);
  assert.deepEqual(await notesNamed(store), ["notes/f"]);
  assert.deepEqual(store.keys("notes"), ["notes/f"], "nothing of the directory uploaded");
  assert.deepEqual(b.conflicts().map((c) => c.mine), [null], "b's side: a deletion");
});

Deno.test("that conflict resolved --mine: the file is deleted on the datastore and the directory's files published", async () => {
  const { store, b } = await replacedAfterPeerEdit();
  const r = await b.resolveConflict("notes/f", "mine");
  assert.equal(r.resolved, true);
  assert.equal(r.deleted, true);
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual(await notesNamed(store), ["notes/f/x"]);
  assert.equal(store.peek("notes/f"), undefined);
  const c = await clone(store, "c");
  assert.deepEqual((await c.pullChanged()).blocked, []);
  assert.equal(await read(c, "notes/f/x"), "b's file under a directory");
});

Deno.test("that conflict resolved --theirs: the peer's file is taken, the directory set aside whole, and nothing of it published", async () => {
  const { store, b } = await replacedAfterPeerEdit();
  const r = await b.resolveConflict("notes/f", "theirs");
  assert.equal(r.resolved, true);
  assert.equal(await read(b, "notes/f"), "v2, a's edit");
  assert.equal(r.setAside.length, 1);
  assert.equal(
    await Deno.readTextFile(`${b.cacheDir}/${r.setAside[0]}/x`),
    "b's file under a directory",
  );
  const next = await b.pushChanged();
  assert.deepEqual(next.uploaded, []);
  assert.deepEqual(next.conflicts, []);
  assert.deepEqual(await notesNamed(store), ["notes/f"]);
  assert.deepEqual(store.keys("notes"), ["notes/f"]);
});

Deno.test("a file replaced by a directory holding commit-step files (a marker, an index file), whose deletion meets a peer's edit: those are held back too", async () => {
  for (const inside of ["notes/x/latest", "notes/x/_meta.json"]) {
    const { store, pushed: r } = await replacedAfterPeerEdit("notes/x", inside);
    assert.deepEqual(r.conflicts, ["notes/x"], inside);
    assert.deepEqual(r.uploaded, [], inside);
    assert.ok(r.skipped.some((s) => s.path === inside && s.keepDirty), inside);
    assert.deepEqual(store.keys("notes"), ["notes/x"], `${inside}: nothing beside the file`);
  }
});

Deno.test("a synced directory replaced by a file a walk found, whose files' deletion meets a peer's edit: the file is held back and the walk stays pending, so it is not forgotten", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, "d/x", "x");
  await a.pushChanged();
  await c.pullChanged();
  await put(c, "d/x", "edited by c");
  await c.pushChanged();
  await Deno.remove(`${a.cacheDir}/d`, { recursive: true });
  await a.markDirty({ relPath: "d/x" }); // the deletion, by name
  await put(a, "d", "now a file", false); // found by the walk
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, ["d/x"]);
  assert.ok(r.skipped.some((s) => s.path === "d" && s.keepDirty));
  assert.equal(a.state.bulkPending(), true, "the walk stays pending");
  assert.deepEqual(store.keys("d"), ["d/x"]);
  // Resolved --mine, the deletion is made; the next push (the walk) publishes the file.
  assert.equal((await a.resolveConflict("d/x", "mine")).resolved, true);
  const next = await a.pushChanged();
  assert.ok(next.uploaded.includes("d"), JSON.stringify(next));
  assert.deepEqual(store.keys("d"), ["d"]);
});

Deno.test("a run that loses its model lock makes no deletion of the shape it replaced: the lock is checked before it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes", "a file");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes`);
  await put(a, "notes/a.txt", "under a directory", false);
  await a.markDirty({ relPath: "notes" });
  // A lock found held at the uploads, lost at the next look.
  let looks = 0;
  const lock = {
    key: "data/t/m/.lock",
    get lost() {
      return ++looks > 1;
    },
    loss: { kind: "taken" as const },
    acquire: () => Promise.resolve(),
    release: () => Promise.resolve(),
    withLock: <T>(fn: () => Promise<T>) => fn(),
    inspect: () =>
      Promise.resolve({ holder: "a@host", hostname: "host", pid: 1, acquiredAt: "", ttlMs: 1 }),
    forceRelease: () => Promise.resolve(false),
  } as unknown as DistributedLock;
  await assert.rejects(
    a.pushChanged({ only: ["notes"], locks: [lock] }),
    /model_lock_lost|lost its lock/,
  );
  assert.equal(store.peekText("notes"), "a file", "the file it replaced is still there");
  const named = Object.keys((await readIndex(store, quick.retry))?.entries ?? {});
  assert.deepEqual(named, ["notes"]);
});

Deno.test("a directory replaced by a file and pushed by its name while a peer added a file under it: the commit leaves the file out, kept marked and told, and no clash is made", async () => {
  const store = new InMemoryStore();
  const x = await clone(store, "x");
  const y = await clone(store, "y");
  await put(x, "notes/report/part1", "1");
  await put(x, "notes/report/part2", "2");
  await x.pushChanged();
  await y.pullChanged();
  await put(y, "notes/report/part3", "y's new part");
  await y.pushChanged();
  await Deno.remove(`${x.cacheDir}/notes/report`, { recursive: true });
  await put(x, "notes/report", "a file now", false);
  const warnings: string[] = [];
  x.events.on("warning", (w) => void warnings.push(`${w.code}: ${w.message}`));
  const r = await x.pushChanged({ only: ["notes/report"] });
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual([...r.deleted].sort(), ["notes/report/part1", "notes/report/part2"]);
  const held = r.skipped.find((s) => s.path === "notes/report");
  assert.ok(held?.keepDirty);
  assert.match(
    held.reason,
    /the datastore holds files under a directory notes\/report \(notes\/report\/part3 among them\)/,
  );
  assert.ok(warnings.some((w) => w.startsWith("path_blocked: Did not publish notes/report")));
  assert.deepEqual(await notesNamed(store), ["notes/report/part3"]);
  assert.ok(x.state.dirtyPaths().includes("notes/report"));
  // The next push holds it back as well, until the way is clear.
  const again = await x.pushChanged();
  assert.deepEqual(again.uploaded, []);
  assert.ok(again.skipped.some((s) => s.path === "notes/report" && s.keepDirty));
  assert.equal(await read(x, "notes/report"), "a file now", "kept");
  const fresh = await clone(store, "fresh");
  assert.deepEqual((await fresh.pullChanged()).blocked, []);
});

Deno.test("two caches creating a file and a directory of one new name: the second commit leaves its own out, told, and the datastore holds one shape", async () => {
  for (const fileFirst of [true, false]) {
    const store = new InMemoryStore();
    const x = await clone(store, "x");
    const y = await clone(store, "y");
    await put(x, "notes/a", "x's file");
    await put(y, "notes/a/f", "y's file under a directory");
    const [first, second] = fileFirst ? [x, y] : [y, x];
    await first.pushChanged();
    const r = await second.pushChanged();
    assert.deepEqual(r.uploaded, [], `fileFirst ${fileFirst}`);
    assert.equal(r.skipped.filter((s) => s.keepDirty).length, 1);
    assert.deepEqual(await notesNamed(store), [fileFirst ? "notes/a" : "notes/a/f"]);
  }
});

Deno.test("a file under a directory of a name the datastore holds both shapes of already (an old client's doing): published with the rest, never held back for good", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "clash/x.txt", "under a directory");
  await a.pushChanged();
  // An old client, which checks nothing, publishes a file of the directory's name.
  await peerPush(store, { clash: "a file" });
  const c = await clone(store, "c");
  await c.pullChanged();
  await put(c, "clash/y.txt", "c's file under the directory");
  const r = await c.pushChanged();
  assert.deepEqual(r.uploaded, ["clash/y.txt"]);
  assert.deepEqual(r.skipped, [], "no hold-back: the clash was there before, and stays as it was");
  const names = Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).sort();
  assert.deepEqual(names, ["clash", "clash/x.txt", "clash/y.txt"]);
  await assertIndexCurrent(store, { held: true });
  assert.equal(await read(await pulled(store), "clash/y.txt"), "c's file under the directory");
});

/** A fresh clone of `store`, pulled. */
async function pulled(store: InMemoryStore) {
  const f = await clone(store, "fresh");
  await f.pullChanged();
  return f;
}

/** A store whose index is v2 (shards) from the start, or v1. */
async function storeAt(v2: boolean): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  if (v2) {
    const meta = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
    await store.put(META_KEY, metaBody(meta), { kind: "create" });
  }
  return store;
}

for (const v2 of [false, true]) {
  Deno.test(`a latest marker whose version files the commit leaves out beside a file of their directory's name is left out with them, never published alone (${v2 ? "v2" : "v1"})`, async () => {
    for (const x_ of ["data/t/m/d/3", "data/t/m/d"]) {
      const store = await storeAt(v2);
      const x = await clone(store, "x");
      const y = await clone(store, "y");
      await put(x, x_, "x's file");
      await x.pushChanged();
      await put(y, "data/t/m/d/3/raw", "y's raw");
      await put(y, "data/t/m/d/latest", "3");
      const r = await y.pushChanged();
      const named = Object.keys((await readIndex(store, quick.retry))?.entries ?? {});
      if (!v2) {
        // On v1 (one index), the version files are left out, and the marker with them.
        assert.deepEqual(named, [x_], `${x_}: ${JSON.stringify(r.skipped)}`);
        assert.ok(r.skipped.some((s) => s.path === "data/t/m/d/latest" && s.keepDirty));
      }
      assert.ok(
        !named.includes("data/t/m/d/latest") || named.includes("data/t/m/d/3/raw"),
        `${x_}: the marker names no files the index lacks`,
      );
    }
  });
}
