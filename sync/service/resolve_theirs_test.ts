/**
 * `resolve --theirs` and the record of an upload this cache may have left
 * in the store (see `SyncState.attemptedPaths`): the record is settled only
 * when the pull read theirs from the store; a local copy already equal to
 * theirs is taken without a read, and the record stays for the next push.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { bothSynced, clone, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/shared.txt";
const cutIndex = (store: InMemoryStore) =>
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k.startsWith("_index/") || k === ".datastore-index.json",
  });
const indexed = async (store: InMemoryStore) =>
  (await readIndex(store, quick.retry))?.entries[PATH]?.v;

Deno.test("a deletion here over this cache's own uploads (one adopted by a peer, one uncommitted) is no conflict: the push deletes them, and no stranded upload is left", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(b, PATH, "base");
  await b.pushChanged();
  await a.pullChanged();

  // 1. b: walk push of "A" lands, its commit is cut off (attempted PATH recorded).
  await put(b, PATH, "A", false);
  await b.markDirty();
  cutIndex(store);
  await assert.rejects(b.pushChanged());
  const va = (await store.head(PATH))!.version;

  // 2. a (told b is gone): adopts b's upload; the index names va (b's "A").
  await put(a, PATH, "peer");
  await a.pushChanged({ adoptUncommitted: [PATH] });
  assert.equal(await indexed(store), va);

  // 3. b: walk push of "B" replaces its own object va, commit cut off again.
  await put(b, PATH, "B", false);
  await b.markDirty();
  cutIndex(store);
  await assert.rejects(b.pushChanged());
  assert.equal(store.peekText(PATH), "B");

  // 4. b deletes its copy: the entry names b's own write, the store holds b's own
  // upload over it; nobody else changed the file, so no conflict.
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  await b.markDirty({ relPath: PATH });
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.deleted, [PATH]);
  assert.equal(store.peekText(PATH), undefined, "b's own upload is gone");
  assert.equal(await indexed(store), undefined, "and so is the entry naming its write");
  const fresh = await clone(store, "fresh");
  assert.deepEqual((await fresh.pullChanged()).uncommitted, [], "no peer waits on the path");
  assert.equal(await read(fresh, PATH), undefined);
});

Deno.test("resolve --theirs over a peer that made a directory a file: the directory the set-aside copy leaves empty goes, and the next pull takes their file", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "s/d/x", "base\n");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/s/d`, { recursive: true });
  await put(a, "s/d", "a's file\n");
  await a.pushChanged();
  await put(b, "s/d/x", "b's edit\n", false);
  assert.deepEqual((await b.pullChanged()).conflicts, ["s/d/x"]);
  const r = await b.resolveConflict("s/d/x", "theirs");
  assert.equal(r.resolved, true);
  const next = await b.pullChanged();
  assert.deepEqual(next.blocked ?? [], []);
  assert.equal(await read(b, "s/d"), "a's file\n");
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${r.setAside[0]}`), "b's edit\n");
});

Deno.test("resolve --theirs of a path a file here is in the way of (made in place of its directory, never synced): the file is set aside and theirs taken", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, "s/a/x", "base\n");
  await a.pushChanged();
  await c.pullChanged();
  await put(a, "s/a/x", "a's edit\n");
  await a.pushChanged();
  // c made the directory a file, and published it: a's edit under it is c's conflict.
  await Deno.remove(`${c.cacheDir}/s/a`, { recursive: true });
  await put(c, "s/a", "c's file\n");
  await c.markDirty({ relPath: "s/a/x" });
  const pushed = await c.pushChanged();
  assert.ok(pushed.conflicts.includes("s/a/x"), JSON.stringify(pushed));
  const r = await c.resolveConflict("s/a/x", "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(c.conflicts(), []);
  assert.equal(await read(c, "s/a/x"), "a's edit\n");
  assert.equal(await read(c, r.setAside[0]), "c's file\n", "c's file is set aside, never deleted");
  const after = await c.pushChanged();
  assert.deepEqual([after.uploaded, after.deleted, after.conflicts], [[], [], []]);
  assert.equal(store.peekText("s/a/x"), "a's edit\n");
  assert.equal(store.peekText("s/a"), undefined);
});

/** `b`'s `--mine` over a's deletion of PATH was cut off after its upload, before its commit. */
async function cutOffMineOverDeletion(bytes: string) {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, DEL_PATH, "base", "base");
  await Deno.remove(`${a.cacheDir}/${DEL_PATH}`);
  await a.pushChanged({ only: [DEL_PATH] });
  await put(b, DEL_PATH, bytes);
  assert.deepEqual((await b.pushChanged()).conflicts, [DEL_PATH]);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(b.resolveConflict(DEL_PATH, "mine"));
  assert.equal(store.peekText(DEL_PATH), bytes, "uploaded, not committed");
  return { store, a, b };
}

const DEL_PATH = "notes/m.txt";

Deno.test("--theirs over a deletion takes this cache's cut-off upload off the datastore: a peer's new file of the path is not held by it", async () => {
  const { store, b } = await cutOffMineOverDeletion("b's edit");
  const r = await b.resolveConflict(DEL_PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(DEL_PATH), undefined, "the upload is gone");
  assert.equal(r.setAside.length, 1, "b's copy, set aside once (the upload held the same bytes)");
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${r.setAside[0]}`), "b's edit");
  const c = await clone(store, "c");
  await c.pullChanged();
  await put(c, DEL_PATH, "c's new file");
  assert.deepEqual((await c.pushChanged()).uploaded, [DEL_PATH]);
});

Deno.test("--mine with the copy deleted here, over a deletion, points at --theirs, which keeps the cut-off upload's bytes aside", async () => {
  const { store, b } = await cutOffMineOverDeletion("merged by hand");
  await Deno.remove(`${b.cacheDir}/${DEL_PATH}`);
  const refused = await b.resolveConflict(DEL_PATH, "mine").catch((e) => e);
  assert.equal(refused.code, "not_found");
  assert.match(refused.message, /a deletion, still stands/);
  const r = await b.resolveConflict(DEL_PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(DEL_PATH), undefined);
  assert.equal(r.setAside.length, 1);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${r.setAside[0]}`), "merged by hand");
  await b.pushChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${r.setAside[0]}`), "merged by hand");
});

Deno.test("resolve --theirs never undoes a deletion made while it runs: the copy here theirs already, deleted by hand after its look, stays deleted and the next push publishes the deletion", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "base\n");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, PATH, "a's edit\n");
  await a.pushChanged();
  await put(b, PATH, "b's edit\n", false);
  assert.deepEqual((await b.pullChanged()).conflicts, [PATH]);
  // The user copies theirs into place by hand first (from a peer's checkout).
  await Deno.writeTextFile(`${b.cacheDir}/${PATH}`, "a's edit\n");
  // The user deletes the file as the resolution makes its first datastore call.
  let deleted = false;
  for (const call of ["get", "head", "getStream"] as const) {
    const orig = store[call].bind(store) as (...args: unknown[]) => Promise<unknown>;
    (store as unknown as Record<string, unknown>)[call] = async (...args: unknown[]) => {
      if (!deleted) {
        deleted = true;
        await Deno.remove(`${b.cacheDir}/${PATH}`);
      }
      return await orig(...args);
    };
  }
  await b.resolveConflict(PATH, "theirs");
  assert.ok(deleted, "the deletion came while the resolution ran");
  assert.equal(await read(b, PATH), undefined, "the user's deletion is not undone");
  await b.pullChanged();
  assert.equal(await read(b, PATH), undefined, "nor by the next pull");
  await b.markDirty({ relPath: PATH }); // a deletion by hand is pushed by its name
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.deleted, [PATH], "the deletion is published");
  assert.equal(store.peekText(PATH), undefined);
});
