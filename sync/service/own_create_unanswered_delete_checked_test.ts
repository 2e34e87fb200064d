/**
 * A file created here whose commit landed with its answer lost, pulled and
 * edited by a peer, then deleted here, on a store whose deletes check the
 * version and then delete (MinIO's): a peer's edit landing between that
 * check and the delete is deleted with it (the endpoint's race), and is not
 * lost: the entry naming it stays, a pull past the grace records the object
 * lost, and the peer keeps its copy as a conflict and publishes it again.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  assertIndexCurrent,
  checkedDeleteStore,
  clone,
  createAnswerLost,
  pastDanglingGrace,
  put,
  quick,
  read,
} from "./clone_kit.ts";

Deno.test("a peer's edit a checked delete of this cache's committed-unanswered create removed in its window survives: the entry stays, and the peer keeps and republishes its copy", async () => {
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
  racing.arm(async () => {
    // The peer's edit of the committed file lands between the check and the delete.
    await put(b, path, "b's edit");
    const pushed = await b.pushChanged();
    assert.deepEqual(pushed.uploaded, [path]);
  });
  await a2.pushChanged();
  // The delete removed b's edit in its window (the endpoint's race): the
  // entry naming it is kept, never taken out as a's own deletion.
  const entry = (await readIndex(store, quick.retry))?.entries[path];
  assert.equal(store.peekText(path), undefined);
  assert.ok(entry, "the entry naming b's edit stays");
  // A pull past the grace records the object as lost; b, holding the last
  // copy, keeps it as a conflict, and --mine publishes it again.
  const c = await clone(store, "c");
  await pastDanglingGrace(c);
  await c.pullChanged();
  const kept = await b.pullChanged();
  assert.deepEqual(kept.conflicts, [path]);
  assert.equal(await read(b, path), "b's edit");
  await b.resolveConflict(path, "mine");
  assert.equal(store.peekText(path), "b's edit");
  await assertIndexCurrent(store, { held: true });
});
