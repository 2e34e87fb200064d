/**
 * A file made here at a name a peer had published as a file first (a
 * conflict, changed remotely), deleted here; the peer then replaced its file
 * by a directory, which this cache pulled, and edited the file under it; this
 * cache edited that file too (a second conflict), then replaced the
 * directory by a file of its name. Resolving the file's own conflict with
 * `--mine` is held back by its push (the file under the directory is in
 * conflict: "resolve it first"), and rebases the file on the peer's old
 * version, long deleted. The file here is still this cache's own shape, a
 * change no push published: `--mine` of the file under the directory, as
 * that reason says, deletes theirs there and publishes the file, and
 * `--theirs` sets the file aside and takes theirs. Before, the file's record
 * (the rebase) made it look synced: `--mine` was refused as a copy deleted
 * here (`not_found`), and `--theirs` found the file in the way
 * (`unsafe_path`), so neither way the reason names worked (chaos seed
 * 203150150).
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { clone, put, quick, read } from "./clone_kit.ts";

const NAME = "notes/shared-2.lock";
const UNDER = `${NAME}/part-84.md`;

const named = async (store: InMemoryStore) =>
  Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).filter((p) =>
    p.startsWith("notes/")
  ).sort();

/** The two conflicts of `b`, the first one's `--mine` held back by its push. */
async function heldFileOverConflict() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, NAME, "a's file");
  await a.pushChanged();
  await put(b, NAME, "b's file");
  assert.deepEqual((await b.pushChanged()).conflicts, [NAME]);
  await Deno.remove(`${b.cacheDir}/${NAME}`);
  await b.markDirty({ relPath: NAME });
  await b.pushChanged();
  await Deno.remove(`${a.cacheDir}/${NAME}`);
  await put(a, UNDER, "a's part");
  await a.pushChanged({ only: [NAME] });
  assert.deepEqual(await named(store), [UNDER]);
  await b.pullChanged();
  assert.equal(await read(b, UNDER), "a's part");
  await put(a, UNDER, "a's edit");
  await a.pushChanged();
  await put(b, UNDER, "b's edit");
  await b.pushChanged();
  assert.deepEqual(b.conflicts().map((c) => c.path).sort(), [NAME, UNDER]);
  await Deno.remove(`${b.cacheDir}/${NAME}`, { recursive: true });
  await writeCacheFile(b.cacheDir, NAME, "b's new file");
  await b.markDirty({ relPath: NAME });
  await b.pushChanged();
  const held = await b.resolveConflict(NAME, "mine");
  assert.equal(held.resolved, false, JSON.stringify(held));
  const left = held.push?.skipped.find((s) => s.path === NAME);
  assert.match(left?.reason ?? "", /resolve it first/, JSON.stringify(held));
  assert.deepEqual(await named(store), [UNDER], "nothing published beside the directory");
  return { store, a, b };
}

Deno.test("resolve --mine of the file under a directory, after the held-back --mine of the file replacing it: theirs is deleted, the file published", async () => {
  const { store, a, b } = await heldFileOverConflict();
  const r = await b.resolveConflict(UNDER, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true, "theirs under the directory is deleted on the datastore");
  assert.equal(await read(b, NAME), "b's new file", "this cache's shape stays");
  for (const c of b.conflicts()) {
    assert.equal((await b.resolveConflict(c.path, "mine")).resolved, true, c.path);
  }
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual(await named(store), [NAME]);
  assert.deepEqual(store.keys("notes/"), [NAME]);
  const pulled = await a.pullChanged();
  assert.deepEqual([pulled.conflicts, pulled.blocked ?? []], [[], []], JSON.stringify(pulled));
  assert.equal(await read(a, NAME), "b's new file", "the peer takes the file");
});

Deno.test("resolve --theirs of that file under the directory: the file here is set aside and theirs taken", async () => {
  const { store, b } = await heldFileOverConflict();
  const r = await b.resolveConflict(UNDER, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(await read(b, UNDER), "a's edit");
  assert.equal(r.setAside.length, 1, JSON.stringify(r));
  assert.equal(await read(b, r.setAside[0]), "b's new file", "the file here is kept aside");
  assert.deepEqual(await named(store), [UNDER]);
});
