/**
 * A push of a new file that wrote its object and was cut off before its
 * commit, after which the user replaced the file by a directory of its name
 * and pushed that name: the upload at the file's own name is this cache's,
 * named by no index, and must not stay on the store (chaos seed 49000468,
 * I11). On a store that cannot hold `a` and `a/…` at once (files on disk)
 * it would also refuse the directory's files for good.
 */
import assert from "node:assert/strict";
import { FsStore } from "../../packages/fs/mod.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { ObjectStore } from "../ports.ts";
import type { SyncService } from "./service.ts";
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";

/** The next commit's index read of `store` is cut off (the upload before it lands). */
const cutOffCommit = (store: InMemoryStore): void =>
  store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });

/** Keys the store holds under `notes/`. */
async function keysUnder(store: ObjectStore): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.list("notes/")) out.push(...page.map((o) => o.key));
  return out.sort();
}

/**
 * `a` pushes the new file `notes/n.md`; its upload lands and the push stops
 * before its commit (cut off on `store`, or the process gone: `a` comes back
 * over the same cache). Then the user replaces the file by a directory of
 * its name and marks that name.
 */
async function uploadThenDirectory(store: ObjectStore, cutOff: () => void): Promise<SyncService> {
  const first = await clone(store, "a");
  await put(first, "notes/n.md", "a file at first");
  cutOff();
  await assert.rejects(first.pushChanged(), /could not be reached/);
  assert.deepEqual(await keysUnder(store), ["notes/n.md"], "the upload landed");
  const a = await clone(store, "a", first.cacheDir);
  await Deno.remove(`${a.cacheDir}/notes/n.md`);
  await put(a, "notes/n.md/x.md", "under a directory now", false);
  await a.markDirty({ relPath: "notes/n.md" });
  return a;
}

Deno.test("a new file's upload cut off before its commit, then replaced by a directory of its name: the push of that name deletes the upload", async () => {
  const store = new InMemoryStore();
  const a = await uploadThenDirectory(
    store,
    () => cutOffCommit(store),
  );
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/n.md/x.md"]);
  assert.deepEqual(await keysUnder(store), ["notes/n.md/x.md"], "nothing left at the file's name");
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))!.entries), [
    "notes/n.md/x.md",
  ]);
  assert.deepEqual(a.state.dirtyPaths(), [], "nothing left to push");
  assert.deepEqual(a.state.attemptedPaths(), [], "nothing left to check");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, "notes/n.md/x.md"), "under a directory now");
});

Deno.test("a directory of the name of a file never pushed: its push reads nothing at that name", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/n.md/x.md", "a directory from the start", false);
  await a.markDirty({ relPath: "notes/n.md" });
  const heads: string[] = [];
  const head = store.head.bind(store);
  store.head = (key, opts) => {
    heads.push(key);
    return head(key, opts);
  };
  await a.pushChanged();
  assert.ok(!heads.includes("notes/n.md"), `no check of the directory's own name: ${heads}`);
  assert.deepEqual(await keysUnder(store), ["notes/n.md/x.md"]);
});

Deno.test("file store: a new file's upload cut off before its commit, then replaced by a directory of its name: the push deletes the upload and writes the directory's files", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-store-" });
  const fs = new FsStore({ root });
  // The commit's index read is cut off once (the file store has no fault injection of its own).
  let cut = false;
  const store = new Proxy(fs, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get") return value.bind(target);
      return (key: string, ...rest: unknown[]) => {
        if (cut && isIndexKey(key)) {
          cut = false;
          return Promise.reject(new UnreachableError("cut off"));
        }
        return value.call(target, key, ...rest);
      };
    },
  }) as FsStore;
  const a = await uploadThenDirectory(store, () => cut = true);
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/n.md/x.md"]);
  assert.deepEqual(await keysUnder(store), ["notes/n.md/x.md"]);
  assert.deepEqual(a.state.dirtyPaths(), []);
  assert.deepEqual(a.state.attemptedPaths(), []);
});

Deno.test("a walk push's upload of a new file cut off before its commit, then replaced by a directory of its name: the next walk push deletes the upload", async () => {
  const store = new InMemoryStore();
  const first = await clone(store, "a");
  await Deno.mkdir(`${first.cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${first.cacheDir}/notes/n.md`, "a file at first");
  await first.markDirty({});
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(first.pushChanged(), /could not be reached/);
  assert.deepEqual(await keysUnder(store), ["notes/n.md"], "the upload landed");
  const a = await clone(store, "a", first.cacheDir);
  await Deno.remove(`${a.cacheDir}/notes/n.md`);
  await put(a, "notes/n.md/x.md", "under a directory now", false);
  await a.markDirty({});
  await a.pushChanged();
  assert.deepEqual(await keysUnder(store), ["notes/n.md/x.md"], "nothing left at the file's name");
  assert.deepEqual(a.state.attemptedPaths(), [], "nothing left to check");
});

Deno.test("a new data version lost to a peer: the record of its write goes once the index names the peer's version there, and the pull fetches that version", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const v = "data/shell/cmd/m1/out/4/raw";
  await put(b, v, "b's");
  await b.pushChanged();
  await put(a, v, "a's");
  await assert.rejects(a.pushChanged(), /already exists/);
  // Recorded before the write; the index names the peer's version the store
  // holds there, so nothing of a's is left to check once its copy is set aside.
  assert.deepEqual(a.state.attemptedPaths(), []);
  await a.pullChanged();
  assert.equal(await read(a, v), "b's");
  assert.deepEqual(a.state.attemptedPaths(), [], "nothing of a's left to check there");
});

Deno.test("the check of a directory's own name that a failed write kept from running keeps the name dirty, and the next push makes it", async () => {
  const store = new InMemoryStore();
  const a = await uploadThenDirectory(
    store,
    () => cutOffCommit(store),
  );
  await put(a, "other.txt", "other");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === "other.txt",
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.ok(a.state.dirtyPaths().includes("notes/n.md"), "the name still waits on its check");
  assert.deepEqual(a.state.attemptedPaths(), ["notes/n.md", "other.txt"]);
  await a.pushChanged();
  assert.deepEqual(await keysUnder(store), ["notes/n.md/x.md"], "nothing left at the file's name");
  assert.deepEqual([a.state.dirtyPaths(), a.state.attemptedPaths()], [[], []]);
});

Deno.test("a file that replaced a synced directory, its push cut off before its commit, then deleted here: the next push deletes its upload and the directory's file", async () => {
  const store = new InMemoryStore();
  const first = await clone(store, "a");
  await put(first, "notes/n.md/x.md", "under a directory");
  await first.pushChanged();
  await Deno.remove(`${first.cacheDir}/notes/n.md`, { recursive: true });
  await put(first, "notes/n.md", "a file now");
  cutOffCommit(store);
  await assert.rejects(first.pushChanged(), /could not be reached/);
  assert.deepEqual(await keysUnder(store), ["notes/n.md"], "the file's upload landed");
  const a = await clone(store, "a", first.cacheDir);
  await Deno.remove(`${a.cacheDir}/notes/n.md`);
  await a.pushChanged();
  assert.deepEqual(await keysUnder(store), [], "nothing left on the store");
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))?.entries ?? {}), []);
  assert.deepEqual([a.state.dirtyPaths(), a.state.attemptedPaths()], [[], []]);
});

Deno.test("a new file is recorded as one a push may write with its mark (one append), a directory or a synced file is not", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/synced.md", "synced");
  await a.pushChanged();
  await put(a, "notes/new.md", "new", false);
  await put(a, "notes/dir/x.md", "under a directory", false);
  await put(a, "notes/synced.md", "changed", false);
  await a.markDirty({ relPaths: ["notes/new.md", "notes/dir", "notes/synced.md"] });
  assert.deepEqual(a.state.attemptedPaths(), ["notes/new.md"]);
  const journal = await Deno.readTextFile(`${a.cacheDir}/.sluice/dirty.log`);
  assert.match(journal, /\?"notes\/new\.md"/, "recorded in the same journal");
  await a.pushChanged();
  assert.deepEqual(a.state.attemptedPaths(), [], "its commit clears it");
});

Deno.test("a directory that replaced a file with an open conflict: its files are held back (no upload to strand), and after --theirs nothing of it is on the datastore", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/n.md", "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(b, "notes/n.md", "b's 2");
  await b.pushChanged();
  await put(a, "notes/n.md", "a's 2");
  await a.pushChanged();
  assert.deepEqual(a.conflicts().map((c) => c.path), ["notes/n.md"]);
  // a's user replaces the file by a directory and pushes it.
  await Deno.remove(`${a.cacheDir}/notes/n.md`);
  await put(a, "notes/n.md/x.md", "under a directory", false);
  await a.markDirty({ relPath: "notes/n.md" });
  await a.pushChanged();
  assert.equal(store.peek("notes/n.md/x.md"), undefined, "held back while the conflict is open");
  const r = await a.resolveConflict("notes/n.md", "theirs");
  assert.equal(r.resolved, true);
  await a.pushChanged();
  assert.deepEqual(await keysUnder(store), ["notes/n.md"], "nothing of the directory is left");
  assert.deepEqual(a.state.attemptedPaths(), []);
});

Deno.test("a push of everything pending settles an earlier push's upload of a never-synced path whose mark was cleaned elsewhere", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/n.md", "a file");
  cutOffCommit(store);
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.ok(store.peek("notes/n.md"), "the upload landed");
  // Its mark is cleaned by something other than a push (a refused run's marker reset does so).
  await a.state.clean(["notes/n.md"]);
  await a.pushChanged();
  assert.equal(store.peek("notes/n.md"), undefined, "this cache's upload is deleted");
  assert.deepEqual(a.state.attemptedPaths(), []);
  assert.equal(await read(a, "notes/n.md"), "a file", "the local file is left as it is");
});

Deno.test("a push of everything pending leaves an earlier push's committed write of a never-synced path still here, whose answer was lost and whose mark was cleaned elsewhere, published (chaos seed 161000015, I1)", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/n.md", "a file");
  // The commit lands, its answer lost: the index names the upload, this cache never records it.
  store.failNext("put", 1, () => new UnreachableError("answer lost"), {
    match: isIndexKey,
    afterEffect: true,
  });
  await assert.rejects(a.pushChanged(), /could not be reached|answer lost/);
  const named = (await readIndex(store, quick.retry))?.entries["notes/n.md"];
  assert.ok(named, "the commit landed");
  // Its mark is cleaned by something other than a push (another process
  // over the cache that took the record over pushed the path since, say).
  await a.state.clean(["notes/n.md"]);
  const r = await a.pushChanged();
  assert.deepEqual(r.strandedChecks.filter((c) => c.outcome === "withdrawn"), []);
  assert.equal(await read(a, "notes/n.md"), "a file", "the local file is left as it is");
  assert.ok(store.peek("notes/n.md"), "the committed write stays on the store");
  assert.equal(
    (await readIndex(store, quick.retry))?.entries["notes/n.md"]?.v,
    named.v,
    "the index names it still",
  );
  assert.deepEqual(a.state.attemptedPaths(), [], "its record is settled");
});
