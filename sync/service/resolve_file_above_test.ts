/**
 * An edit under a directory that a file of the directory's name then
 * replaced here, after a peer's edit of the same file under the directory
 * made it a conflict (changed remotely): the file here is this cache's
 * shape, never synced, held back by the push while the deletion under it
 * is in conflict. `--mine` keeps this cache's shape: the peer's file under
 * the directory is deleted on the datastore (conditional on the version
 * the conflict recorded) and the file here published in its place, so
 * that every clone ends with the file. `--theirs` takes the peer's file:
 * the file here in its way is set aside, never deleted. So too where the
 * conflict was a pull's that set a copy here aside for theirs before the
 * file replaced the directory: that copy stays in the set-aside area
 * (chaos seed 225500073).
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { clone, put, quick, read } from "./clone_kit.ts";
import { ResolveRefusedError } from "./resolve.ts";

const DIR = "notes/shared-1.md";
const UNDER = `${DIR}/part-43.md`;

const named = async (store: InMemoryStore) =>
  Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).filter((p) =>
    p.startsWith("notes/")
  ).sort();

/**
 * `a` pushed the directory, `b` synced it; `a` edited its file and pushed;
 * `b` edited it too (its push met the conflict), then replaced the
 * directory by a file of its name and pushed (held back).
 */
async function fileOverConflict() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, UNDER, "a's part");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, UNDER, "a's edit");
  await a.pushChanged();
  await put(b, UNDER, "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, [UNDER], JSON.stringify(met));
  await Deno.remove(`${b.cacheDir}/${DIR}`, { recursive: true });
  await writeCacheFile(b.cacheDir, DIR, "b's file");
  await b.markDirty({ relPath: DIR });
  const held = await b.pushChanged();
  assert.deepEqual(held.uploaded, [], "nothing of the file is published beside the directory");
  assert.deepEqual(b.conflicts().map((c) => c.path), [UNDER]);
  return { store, a, b };
}

Deno.test("resolve --mine of an edit whose directory a file of its name replaced here: theirs is deleted, the file published", async () => {
  const { store, a, b } = await fileOverConflict();
  const r = await b.resolveConflict(UNDER, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true, "theirs under the directory is deleted on the datastore");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, DIR), "b's file", "this cache's shape stays");
  assert.deepEqual(await named(store), [DIR]);
  assert.deepEqual(store.keys("notes/"), [DIR]);
  const pushed = await b.pushChanged();
  assert.deepEqual([pushed.uploaded, pushed.deleted, pushed.conflicts], [[], [], []]);
  const pulled = await a.pullChanged();
  assert.deepEqual([pulled.conflicts, pulled.blocked ?? []], [[], []], JSON.stringify(pulled));
  assert.equal(await read(a, DIR), "b's file", "the peer takes the file");
});

Deno.test("resolve --theirs of that edit: the file here is set aside and the peer's file under the directory taken", async () => {
  const { store, b } = await fileOverConflict();
  const r = await b.resolveConflict(UNDER, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, UNDER), "a's edit");
  assert.equal(r.setAside.length, 1, JSON.stringify(r));
  assert.equal(await read(b, r.setAside[0]), "b's file", "the file here is kept aside");
  const pushed = await b.pushChanged();
  assert.deepEqual([pushed.uploaded, pushed.deleted, pushed.conflicts], [[], [], []]);
  assert.deepEqual(await named(store), [UNDER]);
  assert.deepEqual(store.keys("notes/"), [UNDER]);
});

Deno.test("resolve --mine of that edit, the directory replaced by hand with another synced file under it: theirs is deleted, the other file only by a push of the file's name", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const other = `${DIR}/part-44.md`;
  await put(a, UNDER, "a's part");
  await put(a, other, "a's other part");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, UNDER, "a's edit");
  await a.pushChanged();
  await put(b, UNDER, "b's edit");
  assert.deepEqual((await b.pushChanged()).conflicts, [UNDER]);
  await Deno.remove(`${b.cacheDir}/${DIR}`, { recursive: true });
  await writeCacheFile(b.cacheDir, DIR, "b's file");
  const r = await b.resolveConflict(UNDER, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.deepEqual(await named(store), [other], "the other file is not deleted unasked");
  const whole = await b.pushChanged();
  assert.deepEqual(whole.uploaded, [], "the file is held beside the other file");
  const byName = await b.pushChanged({ only: [DIR] });
  assert.deepEqual([byName.uploaded, byName.deleted], [[DIR], [other]], JSON.stringify(byName));
  assert.deepEqual(await named(store), [DIR]);
});

Deno.test("resolve --mine of an edit deleted by hand, no file in its place: still refused", async () => {
  const { b } = await fileOverConflict();
  await Deno.remove(`${b.cacheDir}/${DIR}`);
  await assert.rejects(
    b.resolveConflict(UNDER, "mine"),
    (e: unknown) => e instanceof ResolveRefusedError && e.code === "not_found",
  );
  assert.deepEqual(b.conflicts().map((c) => c.path), [UNDER]);
});

/**
 * `a` pushed the directory's file; `b` held a copy of its own there that it
 * never synced (a record a damaged manifest line lost, say), which its pull
 * set aside for theirs; then `b` replaced the directory by a file of its
 * name and pushed (held back, the file under it in conflict).
 */
async function fileOverSetAside() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, UNDER, "a's part");
  await a.pushChanged();
  await put(b, UNDER, "b's own copy", false);
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, [UNDER], JSON.stringify(pulled));
  const aside = b.conflicts()[0].mine?.location ?? "";
  assert.notEqual(aside, UNDER, "b's copy is set aside");
  assert.equal(await read(b, UNDER), "a's part", "theirs is taken");
  await Deno.remove(`${b.cacheDir}/${DIR}`, { recursive: true });
  await writeCacheFile(b.cacheDir, DIR, "b's file");
  await b.markDirty({ relPath: DIR });
  const held = await b.pushChanged();
  assert.deepEqual(held.uploaded, [], "nothing of the file is published beside the directory");
  const reason = held.skipped.find((s) => s.path === DIR)?.reason ?? "";
  assert.match(reason, /--mine` deletes it on the datastore/, JSON.stringify(held));
  return { store, a, b, aside };
}

Deno.test("resolve --mine of a copy a pull set aside, whose directory a file of its name replaced here since: theirs is deleted, the file published, the copy kept aside", async () => {
  const { store, a, b, aside } = await fileOverSetAside();
  const r = await b.resolveConflict(UNDER, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true, "theirs under the directory is deleted on the datastore");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, DIR), "b's file", "this cache's shape stays");
  assert.equal(await read(b, aside), "b's own copy", "the set-aside copy stays where it was");
  assert.deepEqual(await named(store), [DIR]);
  assert.deepEqual(store.keys("notes/"), [DIR]);
  const pulled = await a.pullChanged();
  assert.deepEqual([pulled.conflicts, pulled.blocked ?? []], [[], []], JSON.stringify(pulled));
  assert.equal(await read(a, DIR), "b's file", "the peer takes the file");
});

Deno.test("resolve --theirs of that copy: the file here is set aside and theirs taken again", async () => {
  const { store, b } = await fileOverSetAside();
  const r = await b.resolveConflict(UNDER, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(await read(b, UNDER), "a's part");
  assert.equal(await read(b, r.setAside[0] ?? ""), "b's file", "the file here is kept aside");
  assert.deepEqual(await named(store), [UNDER]);
});
