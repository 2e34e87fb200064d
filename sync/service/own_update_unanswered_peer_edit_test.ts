/**
 * An update of a file this cache synced, whose push commit landed with its
 * answer lost, then deleted here, while a peer that synced the update
 * pulls inside this cache's withdrawal of it (the entry taken out, the
 * object still there: the pull keeps its record as a dropped entry to name
 * again) and uploads an edit before the withdrawal's delete. The deletion
 * is committed; the peer's edit must not be named over it.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";

const PATH = "config/settings.yaml";

Deno.test("a peer that pulls inside this cache's withdrawal of its own unanswered update, then edits and pushes, meets the committed deletion as a conflict", async () => {
  const store = new InMemoryStore();
  let onIndexPut: (() => Promise<void>) | undefined;
  const a = await clone(
    hookedStore(store, {
      after: async (key) => {
        if (!isIndexKey(key) || !onIndexPut) return;
        const hook = onIndexPut;
        onIndexPut = undefined;
        await hook();
      },
    }),
    "a",
  );
  const b = await clone(store, "b");
  await put(a, PATH, "one");
  await a.pushChanged();
  const v = await createAnswerLost(store, a, PATH, "a's update");
  assert.notEqual(a.state.synced(PATH)?.version, v, "the answer was lost: not synced here");
  await b.pullChanged();
  assert.equal(b.state.synced(PATH)?.version, v);

  // Just after a's push took out the entry naming its update, before its
  // delete of it: b pulls, edits the file and uploads its edit.
  let prepared: Awaited<ReturnType<typeof b.preparePush>> | undefined;
  onIndexPut = async () => {
    await b.pullChanged();
    await put(b, PATH, "b's edit");
    prepared = await b.preparePush();
  };
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  await a.pushChanged();
  assert.ok(prepared, "b's upload was made inside a's withdrawal");
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH],
    undefined,
    "a's deletion is committed: the index names nothing",
  );

  const committed = await b.commitPush(prepared!);
  assert.deepEqual(
    [committed.uploaded, committed.conflicts],
    [[], [PATH]],
    JSON.stringify(committed),
  );
  assert.deepEqual(b.conflicts().map((c) => [c.path, c.theirs]), [[PATH, null]]);
  assert.equal(await read(b, PATH), "b's edit", "b's edit is kept locally");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, PATH), undefined, "a fresh clone sees the deletion");
});
