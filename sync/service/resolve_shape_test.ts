/**
 * A resolution whose publish meets the other shape of its path's name on
 * the datastore (a peer replaced the file by a directory since this cache
 * last pulled): refused before anything changes, the conflict stays open,
 * and nothing of the copy is left in the store.
 */
import assert from "node:assert/strict";
import { assertIndexCurrent, clone, fileMadeADirectory, put, read } from "./clone_kit.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { ResolveRefusedError } from "./resolve.ts";

/** `b` edited `s3` while `a` replaced it by a directory and pushed: `b`'s push met the conflict. */
async function replacedByDirectory() {
  const { store, a, c: b } = await fileMadeADirectory(
    "s3",
    "f.txt",
    "a's file under a directory of that name",
  );
  await a.markDirty({ relPath: "s3" });
  const replaced = await a.pushChanged();
  assert.deepEqual([replaced.uploaded, replaced.deleted], [["s3/f.txt"], ["s3"]]);
  await put(b, "s3", "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, ["s3"]);
  return { store, a, b };
}

Deno.test("resolve --mine of an edit whose file a peer replaced by a directory since: refused before any upload, the conflict stays open", async () => {
  const { store, b } = await replacedByDirectory();
  for (const resolution of ["mine", "merged"] as const) {
    // A merge made (its copy as the conflict found it merges nothing: not_merged).
    if (resolution === "merged") await put(b, "s3", "b's merge");
    await assert.rejects(
      b.resolveConflict("s3", resolution),
      (e: unknown) =>
        e instanceof ResolveRefusedError && e.code === "unsafe_path" &&
        /the datastore now holds files under a directory of that name \(s3\/f\.txt among them\), published since this cache last pulled/
          .test(e.message),
    );
    assert.equal(store.peekText("s3"), undefined, "no upload of b's left beside s3/f.txt");
    assert.deepEqual(b.conflicts().map((c) => c.path), ["s3"], "the conflict stays open");
    assert.equal(await read(b, "s3"), resolution === "mine" ? "b's edit" : "b's merge");
  }
  await assertIndexCurrent(store, { held: true });
  // Theirs is the way on: b's copy is set aside, the directory's file pulled.
  const theirs = await b.resolveConflict("s3", "theirs");
  assert.equal(theirs.resolved, true);
  assert.equal(await read(b, "s3/f.txt"), "a's file under a directory of that name");
  assert.equal(await read(b, theirs.setAside[0]), "b's merge");
});

/**
 * A directory a peer replaced by a file, whose object another tool then
 * deleted (the index still names the file: a lost file, dangling): `b`'s
 * edit under the directory is in conflict with its deletion. `--mine` is
 * refused, the index naming a file above it; `--theirs` is the way out,
 * and keeps `b`'s copy, set aside.
 */
Deno.test("resolve of an edit under a directory a peer replaced by a file, that file's object deleted since: --mine refused, --theirs keeps the copy aside", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "s3/f.txt", "the directory's file");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/s3`, { recursive: true });
  await put(a, "s3", "a's file");
  const replaced = await a.pushChanged();
  assert.deepEqual([replaced.uploaded, replaced.deleted], [["s3"], ["s3/f.txt"]]);
  await store.delete("s3"); // another tool, no lock, no index
  await put(b, "s3/f.txt", "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, ["s3/f.txt"]);
  await assert.rejects(
    b.resolveConflict("s3/f.txt", "mine"),
    (e: unknown) =>
      e instanceof ResolveRefusedError && e.code === "unsafe_path" &&
      /a file s3 where your copy lies under a directory of that name/.test(e.message),
  );
  assert.deepEqual(b.conflicts().map((c) => c.path), ["s3/f.txt"], "the conflict stays open");
  assert.equal(store.peekText("s3/f.txt"), undefined, "no upload of b's beside the index's s3");
  const theirs = await b.resolveConflict("s3/f.txt", "theirs");
  assert.equal(theirs.resolved, true);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, "s3/f.txt"), undefined);
  assert.equal(await read(b, theirs.setAside[0]), "b's edit");
});

Deno.test("resolve --theirs of an edit under a directory a peer replaced by a file: the peer's file is taken in its place, not left for a later pull", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "s3/f.txt", "the directory's file");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/s3`, { recursive: true });
  await put(a, "s3", "a's file");
  const replaced = await a.pushChanged();
  assert.deepEqual([replaced.uploaded, replaced.deleted], [["s3"], ["s3/f.txt"]]);
  await put(b, "s3/f.txt", "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, ["s3/f.txt"]);
  const theirs = await b.resolveConflict("s3/f.txt", "theirs");
  assert.equal(theirs.resolved, true);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, "s3"), "a's file", "the datastore's side: a file s3");
  assert.equal(await read(b, theirs.setAside[0]), "b's edit");
  assert.deepEqual(b.state.dirtyPaths(), []);
});
