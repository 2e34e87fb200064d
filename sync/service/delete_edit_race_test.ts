/**
 * A deletion and an edit of one file, from two clones, racing: the deletion
 * removes the object, the edit (finding it gone while the index still names
 * the version both synced) creates it again, and the deletion's index commit
 * lands before the edit's. The edit is not based on the deletion: it must
 * end as the editor's conflict, never published over the acknowledged
 * deletion.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { assertIndexCurrent, bothSynced, clone, put, read } from "./clone_kit.ts";

const P = "notes/shared.txt";

async function assertDeletionStands(store: InMemoryStore) {
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(P), undefined, "the editor's write was deleted again");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, P), undefined, "a fresh clone sees the deletion");
}

Deno.test("an edit prepared over a deletion in flight, committed after it, is the editor's conflict", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, P, "1", "2");
  await Deno.remove(`${b.cacheDir}/${P}`);
  await b.markDirty({ relPath: P });
  const pb = await b.preparePush();
  assert.equal(store.peekText(P), undefined, "b's deletion removed the object");
  const pa = await a.preparePush();
  assert.equal(store.peekText(P), "2", "a's write created it again");
  const rb = await b.commitPush(pb);
  assert.deepEqual(rb.deleted, [P]);
  const ra = await a.commitPush(pa);
  assert.deepEqual(ra.uploaded, []);
  assert.deepEqual(ra.conflicts, [P]);
  const [conflict] = a.conflicts();
  assert.equal(conflict?.path, P);
  assert.equal(conflict?.theirs, null, "theirs is the deletion");
  assert.equal(await read(a, P), "2", "a's edit is kept locally");
  assert.deepEqual(b.conflicts(), []);
  await assertDeletionStands(store);
  // The editor chooses its edit: published over the deletion.
  await a.resolveConflict(P, "mine");
  assert.equal(store.peekText(P), "2");
  assert.deepEqual(a.conflicts(), []);
  await b.pullChanged();
  assert.equal(await read(b, P), "2");
});

Deno.test("single-phase pushes: the edit's commit waits behind the deletion's and becomes a conflict", async () => {
  const store = new InMemoryStore();
  let armed = false;
  let aAtIndex!: () => void;
  const aReachedIndex = new Promise<void>((r) => aAtIndex = r);
  let bDone!: () => void;
  const bCommitted = new Promise<void>((r) => bDone = r);
  let aPush: ReturnType<typeof a.pushChanged> | undefined;
  const isIndex = (k: string) => k === ".datastore-index.json" || k.startsWith("_index/");
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (armed && isIndex(key)) {
          aAtIndex();
          await bCommitted;
        }
      },
    }),
    "a",
  );
  const b = await clone(
    hookedStore(store, {
      before: async (key) => {
        // b has deleted the object; before its index write, a pushes its edit
        // up to its own index write.
        if (armed && isIndex(key) && !aPush) {
          aPush = a.pushChanged();
          await aReachedIndex;
        }
      },
    }),
    "b",
  );
  await put(a, P, "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, P, "2");
  await Deno.remove(`${b.cacheDir}/${P}`);
  await b.markDirty({ relPath: P });
  armed = true;
  const rb = await b.pushChanged();
  bDone();
  const ra = await aPush!;
  armed = false;
  assert.deepEqual(rb.deleted, [P]);
  assert.deepEqual(ra.conflicts, [P], "the edit is a conflict, not published");
  assert.equal(a.conflicts()[0]?.theirs, null);
  assert.equal(await read(a, P), "2");
  await assertDeletionStands(store);
});
