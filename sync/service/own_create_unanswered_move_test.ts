/**
 * A file created here whose v1 commit landed during a move to v2 (after the
 * move read the v1 index), its answer lost. The move's catch-up names it in
 * the shards only after its v2 meta lands, so this cache's next push, which
 * takes the upload back (the file replaced here by a directory of its
 * name), may read a v2 index that names nothing there, and delete the
 * upload as one no commit named, while the catch-up names it and looks at
 * it again before that delete lands. The push reads the index again after
 * its delete and takes such an entry out; cut off right after the delete,
 * its next push must do it still: the index never keeps naming the deleted
 * object.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { META_KEY } from "../transfer/bucket_layout.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";
import { migrateIndex } from "./migrate.ts";

const PATH = "notes/shared-2.lock";

/** A promise and what settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((r) => open = r);
  return { promise, open };
}

/**
 * `a`'s create of PATH, committed to v1 during a move with its answer lost,
 * taken back by `a`'s next push (a directory of its name here) as the
 * move's catch-up names it, that push cut off right after its delete.
 * Returns the store, the cache directory and the version of `a`'s write.
 */
async function takeBackCutOff(): Promise<
  { store: InMemoryStore; cacheDir: string; created: string }
> {
  const store = new InMemoryStore();
  // `a` deletes PATH over a hook: the move's catch-up runs to its end first
  // (it names the upload and finds it still there), then the delete lands
  // and the push's next index read is cut off.
  let onDelete: (() => Promise<void>) | undefined;
  const ownStore = hookedStore(store, {
    beforeDelete: async (key) => {
      const step = key === PATH ? onDelete : undefined;
      onDelete = undefined;
      await step?.();
    },
  });
  const a = await clone(ownStore, "a");
  await put(a, "notes/first.md", "the bucket's first file");
  await a.pushChanged();

  // The move: `a`'s create commits to the v1 index (its answer lost) once
  // the move has read it, before the shards are written; the move then
  // waits after its v2 meta lands, before its catch-up.
  let created: string | undefined;
  let stage = 0;
  const v2Landed = gate();
  const catchUp = gate();
  const mover = hookedStore(store, {
    before: async (key) => {
      if (stage !== 0 || key === META_KEY || !key.startsWith("_index/")) return;
      stage = 1;
      created = await createAnswerLost(store, a, PATH, "a file at first");
    },
    after: async (key) => {
      if (stage !== 1 || key !== META_KEY) return;
      stage = 2;
      v2Landed.open();
      await catchUp.promise;
    },
  });
  const moving = migrateIndex({ store: mover, config: a.config, events: a.events, clock: a.clock });
  await v2Landed.promise;
  assert.ok(created !== undefined, "a's create committed to v1 during the move");
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH],
    undefined,
    "the v2 index names nothing there before the catch-up",
  );

  // `a`'s user replaces the file by a directory of its name and pushes.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await put(a, `${PATH}/part-51.md`, "under a directory now", false);
  await a.markDirty({ relPath: PATH });
  onDelete = async () => {
    catchUp.open();
    const moved = await moving;
    assert.equal(moved.migrated, true);
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[PATH]?.v,
      created,
      "the catch-up named a's upload, still there at its look",
    );
    store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  };
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(onDelete, undefined, "the push deleted its upload");
  assert.equal(store.peekText(PATH), undefined, "the upload is deleted");
  return { store, cacheDir: a.cacheDir, created };
}

/** Fails unless the index names nothing at PATH and a fresh clone gets the directory. */
async function assertTakenBack(store: InMemoryStore, created: string): Promise<void> {
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, PATH),
    `the index names ${PATH} (version ${
      entries[PATH]?.v
    }; a's own write ${created}), which the store no longer holds`,
  );
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, `${PATH}/part-51.md`), "under a directory now");
  assert.equal(await read(b, PATH), undefined);
  assert.equal(await read(b, "notes/first.md"), "the bucket's first file");
}

Deno.test("an own create committed to v1 during a move to v2, its answer lost, taken back (a directory of its name here) as the move's catch-up names it, cut off after the delete: the next push takes the entry out", async () => {
  const { store, cacheDir, created } = await takeBackCutOff();
  // The process over the cache again, from its records on disk.
  const a = await clone(store, "a", cacheDir);
  await a.pushChanged();
  await assertTakenBack(store, created);
  assert.deepEqual((await a.pullChanged()).conflicts, [], "no conflict with its own write");
  assert.deepEqual(a.conflicts(), []);
});

Deno.test("an own create committed to v1 during a move to v2, its answer lost, taken back as the move's catch-up names it, cut off after the delete, the cache pulled first: no conflict with its own write, and the next push takes the entry out", async () => {
  const { store, cacheDir, created } = await takeBackCutOff();
  const a = await clone(store, "a", cacheDir);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict with its own write");
  await a.pushChanged();
  await assertTakenBack(store, created);
  assert.equal(await read(a, `${PATH}/part-51.md`), "under a directory now");
  assert.deepEqual(a.conflicts(), []);
});
