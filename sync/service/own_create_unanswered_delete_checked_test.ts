/**
 * A file created here whose commit landed with its answer lost, pulled and
 * edited by a peer, then deleted here, on a store whose deletes check the
 * version and then delete (MinIO's): the deletion takes out the entry
 * naming this cache's write first, and a peer's edit landing between the
 * check and the delete meets that committed deletion, which it never saw.
 * It is not published over it: the peer's commit leaves it out as a
 * conflict with the deletion, the deletion stands, and the peer keeps its
 * copy, which --mine publishes again.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  assertIndexCurrent,
  checkedDeleteStore,
  clone,
  createAnswerLost,
  put,
  quick,
  read,
} from "./clone_kit.ts";

Deno.test("a peer's edit committed in a checked delete's window of this cache's committed-unanswered create meets the deletion as a conflict: the deletion stands, and the peer keeps and republishes its copy", async () => {
  const store = new InMemoryStore();
  const path = "notes/new.txt";
  const a = await clone(store, "a");
  assert.ok(await createAnswerLost(store, a, path, "one"), "the commit landed");
  const b = await clone(store, "b");
  await b.pullChanged();
  const racing = checkedDeleteStore(store);
  const a2 = await clone(racing.store, "a", a.cacheDir);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a2.markDirty({ relPath: path });
  let pushed: Awaited<ReturnType<typeof b.pushChanged>> | undefined;
  racing.arm(async () => {
    // The peer's edit of the committed file lands between the check and the
    // delete, after the entry naming a's write was taken out.
    await put(b, path, "b's edit");
    pushed = await b.pushChanged();
  });
  await a2.pushChanged();
  // The peer's commit met a's committed deletion: never named over it.
  assert.deepEqual(pushed?.uploaded, []);
  assert.deepEqual(pushed?.conflicts, [path]);
  assert.deepEqual(b.conflicts().map((c) => [c.path, c.theirs]), [[path, null]]);
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  assert.equal(store.peekText(path), undefined);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, path), undefined, "the deletion stands");
  // b keeps its copy, and --mine publishes it again.
  assert.equal(await read(b, path), "b's edit");
  await b.resolveConflict(path, "mine");
  assert.equal(store.peekText(path), "b's edit");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a peer that pulls in a checked delete's window of this cache's committed-unanswered create, then edits and pushes there, meets the deletion as a conflict: never published naming an object the delete took", async () => {
  const store = new InMemoryStore();
  const path = "notes/new.txt";
  const a = await clone(store, "a");
  assert.ok(await createAnswerLost(store, a, path, "one"), "the commit landed");
  const b = await clone(store, "b");
  await b.pullChanged();
  const racing = checkedDeleteStore(store);
  const a2 = await clone(racing.store, "a", a.cacheDir);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a2.markDirty({ relPath: path });
  let pushed: Awaited<ReturnType<typeof b.pushChanged>> | undefined;
  racing.arm(async () => {
    // The peer's pull finds the entry gone and the store holding the version
    // it synced (kept, as a dropped entry is, to name again); its edit lands
    // between the check and the delete.
    await b.pullChanged();
    await put(b, path, "b's edit");
    pushed = await b.pushChanged();
  });
  await a2.pushChanged();
  assert.equal(store.peekText(path), undefined, "the delete took b's upload");
  assert.deepEqual(
    [pushed?.uploaded, pushed?.conflicts],
    [[], [path]],
    "b's edit was reported published, its object gone",
  );
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, path), undefined, "the deletion stands");
  assert.equal(await read(b, path), "b's edit");
  await b.resolveConflict(path, "mine");
  assert.equal(store.peekText(path), "b's edit");
  await assertIndexCurrent(store, { held: true });
});
