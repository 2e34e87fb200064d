/**
 * A deletion and an edit of one file, from two clones, racing: the deletion
 * removes the object, the edit (finding it gone while the index still names
 * the version both synced) creates it again, and the deletion's index commit
 * lands before the edit's. The edit is not based on the deletion: it must
 * end as the editor's conflict, never published over the acknowledged
 * deletion.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { sha256Hex } from "../hash.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import {
  assertIndexCurrent,
  bothSynced,
  checkedDeleteStore,
  clone,
  isIndexKey,
  pastDanglingGrace,
  put,
  quick,
  read,
} from "./clone_kit.ts";

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
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (armed && isIndexKey(key)) {
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
        if (armed && isIndexKey(key) && !aPush) {
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

Deno.test("an edit created over a deletion in flight whose push stopped before its commit is still a conflict on the next push", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, P, "1", "2");
  let failIndex = false;
  const aStopping = await clone(
    hookedStore(store, {
      before: (key) => {
        if (failIndex && isIndexKey(key)) throw new UnreachableError("index write cut off");
      },
    }),
    "a",
    a.cacheDir,
  );
  await Deno.remove(`${b.cacheDir}/${P}`);
  await b.markDirty({ relPath: P });
  const pb = await b.preparePush();
  failIndex = true;
  await assert.rejects(aStopping.pushChanged());
  failIndex = false;
  assert.equal(store.peekText(P), "2", "a's write is in the store, uncommitted");
  assert.deepEqual((await b.commitPush(pb)).deleted, [P]);
  // a pushes again: it meets its own stranded write, the deletion committed meanwhile.
  const ra = await aStopping.pushChanged();
  assert.deepEqual(ra.conflicts, [P]);
  await assertDeletionStands(store);
});

Deno.test("two edits with equal bytes racing one deletion: the deletion stands, whichever edit commits first", async () => {
  for (const first of ["a", "c"] as const) {
    const store = new InMemoryStore();
    const { a, b } = await bothSynced(store, P, "1", "2");
    const c = await clone(store, "c");
    await c.pullChanged();
    await put(c, P, "2");
    await Deno.remove(`${b.cacheDir}/${P}`);
    await b.markDirty({ relPath: P });
    const pb = await b.preparePush(); // deletes the object
    const pa = await a.preparePush(); // creates it again over the uncommitted deletion
    const pc = await c.preparePush(); // meets a's object with equal bytes
    assert.deepEqual((await b.commitPush(pb)).deleted, [P]);
    const [r1, r2] = first === "a"
      ? [await a.commitPush(pa), await c.commitPush(pc)]
      : [await c.commitPush(pc), await a.commitPush(pa)];
    assert.deepEqual([r1.conflicts, r2.conflicts], [[P], [P]], `${first} first`);
    await assertDeletionStands(store);
  }
});

Deno.test("a deletion whose check-then-delete removed a peer's edit committed in its window keeps the peer's entry: a conflict, never a silent loss", async () => {
  const store = new InMemoryStore();
  const racing = checkedDeleteStore(store);
  const a = await clone(racing.store, "a");
  const b = await clone(store, "b");
  await put(a, P, "1");
  await a.pushChanged();
  await b.pullChanged();
  // a deletes; b's edit is committed between a's check and its delete.
  await put(b, P, "b's edit");
  racing.arm(async () => void (await b.pushChanged()));
  await Deno.remove(`${a.cacheDir}/${P}`);
  await a.markDirty({ relPath: P });
  const r = await a.pushChanged();
  assert.equal(store.peekText(P), undefined, "the delete removed b's edit (the endpoint's race)");
  assert.deepEqual(r.conflicts, [P], "a's deletion met b's committed edit: a conflict");
  assert.ok(
    (await readIndex(store, quick.retry))?.entries[P],
    "the entry naming b's edit is kept, not removed as if a had deleted that version",
  );
  // The entry names a missing object: a pull past the grace records it as
  // lost; b, holding the last copy of its edit, keeps it, as a conflict.
  const c = await clone(store, "c");
  await pastDanglingGrace(c);
  await c.pullChanged(); // recorded as lost, the entry removed
  const kept = await b.pullChanged();
  assert.deepEqual(kept.conflicts, [P]);
  assert.equal(await read(b, P), "b's edit", "b's copy is kept");
  await b.resolveConflict(P, "mine");
  assert.equal(store.peekText(P), "b's edit", "and published again");
});

Deno.test("a deletion whose check-then-delete removed an old client's edit pushed in its window keeps the old client's entry: a conflict, never a silent loss", async () => {
  const store = new InMemoryStore();
  const racing = checkedDeleteStore(store);
  // An old client's file, synced by a.
  await peerPush(store, { [P]: "old client's first\n" });
  const a = await clone(racing.store, "a");
  await a.pullChanged();
  assert.equal(await read(a, P), "old client's first\n");
  // a deletes; another old client's edit lands (object and index) between
  // a's check and its delete.
  racing.arm(async () => void (await peerPush(store, { [P]: "old client's edit\n" })));
  await Deno.remove(`${a.cacheDir}/${P}`);
  await a.markDirty({ relPath: P });
  const r = await a.pushChanged();
  assert.equal(store.peekText(P), undefined, "the delete removed the edit (the endpoint's race)");
  assert.deepEqual(
    r.conflicts,
    [P],
    "a's deletion met the old client's committed edit: a conflict",
  );
  const entry = (await readIndex(store, quick.retry))?.entries[P];
  assert.equal(
    entry?.h,
    await sha256Hex(new TextEncoder().encode("old client's edit\n")),
    "the entry naming the old client's edit is kept, not removed as if a had deleted it",
  );
});
