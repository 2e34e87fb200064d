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
import type { SyncService } from "./service.ts";
import {
  assertIndexCurrent,
  checkedDeleteStore,
  clone,
  createAnswerLost,
  put,
  quick,
  read,
} from "./clone_kit.ts";

const PATH = "notes/new.txt";

/**
 * a's create of `PATH`, its commit landed and its answer lost; b pulls it;
 * a deletes it and pushes on a store whose deletes check the version and
 * then delete, `inWindow` (given b) run between the check and the delete.
 * What b's push there returned.
 */
async function deletedWithPeerInWindow(
  inWindow: (b: SyncService) => Promise<Awaited<ReturnType<SyncService["pushChanged"]>>>,
) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  assert.ok(await createAnswerLost(store, a, PATH, "one"), "the commit landed");
  const b = await clone(store, "b");
  await b.pullChanged();
  const racing = checkedDeleteStore(store);
  const a2 = await clone(racing.store, "a", a.cacheDir);
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a2.markDirty({ relPath: PATH });
  let pushed: Awaited<ReturnType<typeof b.pushChanged>> | undefined;
  racing.arm(async () => {
    pushed = await inWindow(b);
  });
  await a2.pushChanged();
  return { store, b, pushed };
}

/** The deletion stands for a fresh clone; b keeps its edit, and --mine publishes it again. */
async function deletionStandsMineRepublishes(store: InMemoryStore, b: SyncService) {
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, PATH), undefined, "the deletion stands");
  assert.equal(await read(b, PATH), "b's edit");
  await b.resolveConflict(PATH, "mine");
  assert.equal(store.peekText(PATH), "b's edit");
  await assertIndexCurrent(store, { held: true });
}

Deno.test("a peer's edit committed in a checked delete's window of this cache's committed-unanswered create meets the deletion as a conflict: the deletion stands, and the peer keeps and republishes its copy", async () => {
  const { store, b, pushed } = await deletedWithPeerInWindow(async (b) => {
    // The peer's edit of the committed file lands between the check and the
    // delete, after the entry naming a's write was taken out.
    await put(b, PATH, "b's edit");
    return await b.pushChanged();
  });
  // The peer's commit met a's committed deletion: never named over it.
  assert.deepEqual(pushed?.uploaded, []);
  assert.deepEqual(pushed?.conflicts, [PATH]);
  assert.deepEqual(b.conflicts().map((c) => [c.path, c.theirs]), [[PATH, null]]);
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined);
  assert.equal(store.peekText(PATH), undefined);
  // b keeps its copy, and --mine publishes it again.
  await deletionStandsMineRepublishes(store, b);
});

Deno.test("a peer that pulls in a checked delete's window of this cache's committed-unanswered create, then edits and pushes there, meets the deletion as a conflict: never published naming an object the delete took", async () => {
  const { store, b, pushed } = await deletedWithPeerInWindow(async (b) => {
    // The peer's pull finds the entry gone and the store holding the version
    // it synced (kept, as a dropped entry is, to name again); its edit lands
    // between the check and the delete.
    await b.pullChanged();
    await put(b, PATH, "b's edit");
    return await b.pushChanged();
  });
  assert.equal(store.peekText(PATH), undefined, "the delete took b's upload");
  assert.deepEqual(
    [pushed?.uploaded, pushed?.conflicts],
    [[], [PATH]],
    "b's edit was reported published, its object gone",
  );
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined);
  await deletionStandsMineRepublishes(store, b);
});
