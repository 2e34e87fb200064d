/**
 * A conflict whose side here is a deletion of a file the peer then replaced
 * by a directory of its name, which a pull here brought (`checkHeldByConflict`).
 * The directory at the path is the datastore's side, not a change of this
 * cache's: `--theirs` keeps it (and the pull after it has nothing to bring),
 * and `--mine` publishes the deletion of the file, the peer's directory
 * staying on both sides. Either way nothing is left to push or resolve.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { type InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { checkHeldByConflict, clone, quick, read } from "./clone_kit.ts";
import { migrateIndex } from "./migrate.ts";
import type { SyncService } from "./service.ts";

const PATH = "notes/shared-1.md";
const UNDER = `${PATH}/part-26.md`;

const named = async (store: InMemoryStore) =>
  Object.keys((await readIndex(store, quick.retry))?.entries ?? {}).filter((p) =>
    p.startsWith("notes/")
  );

/** Nothing left: no conflict, no file left out, no local deletion, nothing to push. */
async function nothingLeft(a: SyncService, when: string) {
  const { entries, leftBehind } = await a.statusReport({ walk: true });
  assert.deepEqual(
    leftBehind,
    { conflicts: [], left: [], localDeletions: [], localOnly: [] },
    `${when}: ${JSON.stringify(entries)}`,
  );
  assert.deepEqual(entries.filter((e) => !e.check), [], `${when}: ${JSON.stringify(entries)}`);
}

Deno.test("resolve --theirs of a deletion here whose file the peer replaced by a directory, pulled here: the peer's directory stays, and a pull keeps it whole", async () => {
  const { store, a, b } = await checkHeldByConflict(PATH, "part-26.md");
  assert.deepEqual(a.conflicts().map((c) => [c.path, c.mine]), [[PATH, null]]);
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, UNDER), "a part", "the peer's file under the directory stays");
  assert.deepEqual(r.setAside, [], "nothing of this cache's own was at the path to set aside");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], JSON.stringify(pulled));
  assert.equal(await read(a, UNDER), "a part", "and a pull keeps it");
  await nothingLeft(a, "after --theirs and a pull");
  const pushed = await a.pushChanged();
  assert.deepEqual([pushed.uploaded, pushed.deleted, pushed.conflicts], [[], [], []]);
  assert.deepEqual(pushed.localDeletions, [], "no deletion of the peer's file to push");
  assert.deepEqual(await named(store), [UNDER]);
  assert.deepEqual(store.keys("notes/"), [UNDER]);
  assert.deepEqual((await a.statusReport({ walk: true })).entries, [], "the push checked the path");
  await b.pullChanged();
  assert.equal(await read(b, UNDER), "a part");
});

Deno.test("resolve --theirs of that deletion, a file of this cache's added under the peer's directory: both stay, and a push publishes the new one", async () => {
  const { store, a } = await checkHeldByConflict(PATH, "part-26.md");
  const mine = `${PATH}/part-27.md`;
  await writeCacheFile(a.cacheDir, mine, "a's own part");
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(r.setAside, []);
  await a.pullChanged();
  assert.equal(await read(a, UNDER), "a part");
  assert.equal(await read(a, mine), "a's own part");
  await a.markDirty();
  const pushed = await a.pushChanged();
  assert.deepEqual([pushed.uploaded, pushed.conflicts], [[mine], []], JSON.stringify(pushed));
  assert.deepEqual(pushed.localDeletions, []);
  assert.deepEqual(await named(store), [UNDER, mine]);
});

Deno.test("resolve --mine of that deletion: the file stays deleted on the datastore, the peer's directory stays on both sides", async () => {
  const { store, a, b } = await checkHeldByConflict(PATH, "part-26.md");
  const r = await a.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, UNDER), "a part");
  await a.pullChanged();
  assert.equal(await read(a, UNDER), "a part");
  await nothingLeft(a, "after --mine and a pull");
  assert.deepEqual(await named(store), [UNDER]);
  assert.deepEqual(store.keys("notes/"), [UNDER]);
  await b.pullChanged();
  assert.equal(await read(b, UNDER), "a part");
  assert.equal(await read(b, PATH), undefined, "no file beside the directory");
});

/**
 * As the first test, with another clone's upload of a file at the path
 * beside the peer's directory, named by no index: its push met the
 * directory at its commit and left the file out (`path_blocked`), its upload
 * standing. Theirs is what the index names, the directory; that upload is
 * no published file, and the directory's synced files stay.
 */
Deno.test("resolve --theirs of that deletion, a blocked push's upload of a file at the path beside the peer's directory: the directory stays whole", async (t) => {
  for (const v2 of [false, true]) {
    await t.step(v2 ? "v2 index" : "v1 index", async () => {
      const { store, a } = await checkHeldByConflict(PATH, "part-26.md");
      if (v2) {
        await migrateIndex(a);
        assert.match(store.peekText("_index/_meta.json") ?? "", /"version":\s*2/);
      }
      const c = await clone(store, "c");
      await writeCacheFile(c.cacheDir, PATH, "c's file of that name");
      await c.markDirty({ relPath: PATH });
      const blocked = await c.pushChanged();
      assert.deepEqual(blocked.skipped.map((s) => s.path), [PATH], JSON.stringify(blocked));
      assert.ok(store.peek(PATH), "c's upload stands, named by no index");
      assert.deepEqual(await named(store), [UNDER]);
      const r = await a.resolveConflict(PATH, "theirs");
      assert.equal(r.resolved, true, JSON.stringify(r));
      assert.deepEqual(r.setAside, [], "nothing of this cache's own was at the path to set aside");
      assert.equal(await read(a, UNDER), "a part", "the peer's file under the directory stays");
      await a.pullChanged();
      assert.equal(await read(a, UNDER), "a part", "and a pull keeps it");
      const { leftBehind } = await a.statusReport({ walk: true });
      assert.deepEqual(leftBehind.localDeletions, [], "no deletion of the peer's file to push");
    });
  }
});

Deno.test("resolve --theirs of that deletion, a file of this cache's added under the peer's directory and marked by the directory's name: the mark stays, and a push publishes the new file", async () => {
  const { store, a } = await checkHeldByConflict(PATH, "part-26.md");
  const mine = `${PATH}/part-27.md`;
  await writeCacheFile(a.cacheDir, mine, "a's own part");
  await a.markDirty({ relPath: PATH });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(r.setAside, []);
  assert.equal(await read(a, mine), "a's own part");
  const pushed = await a.pushChanged();
  assert.deepEqual([pushed.uploaded, pushed.conflicts], [[mine], []], JSON.stringify(pushed));
  assert.deepEqual(pushed.localDeletions, []);
  assert.deepEqual(await named(store), [UNDER, mine]);
  assert.deepEqual(a.state.dirtyPaths(), []);
});
