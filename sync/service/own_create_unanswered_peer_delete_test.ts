/**
 * A file created here whose push commit landed with its answer lost, then
 * replaced here by a directory of its name, while a peer that pulled it
 * deletes it: the peer's delete lands and its index update has not (yet).
 * The index still names this cache's own write, whose object is gone, so
 * its writer id can no longer be read: the pull must not take that write
 * for a peer's change (a conflict with itself).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/n.md";

Deno.test("a created file whose commit answer was lost, made a directory here while a peer's deletion of it is under way: the pull records no conflict with its own write", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const v = await createAnswerLost(store, a, PATH, "a file at first");
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  await b.pullChanged();
  // a's user replaces the file by a directory of its name (not pushed yet).
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await put(a, `${PATH}/x.md`, "under a directory now", false);
  // b deletes the file: its delete lands, its index update is cut off.
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  await b.markDirty({ relPath: PATH });
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(PATH), undefined, "b's delete landed");
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH]?.v,
    v,
    "the index names a's write",
  );

  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], `no conflict with its own write ${v}`);
  assert.deepEqual(a.conflicts(), []);
  // b's deletion is committed at last; a's directory is published.
  await b.pushChanged();
  await a.pullChanged();
  await a.pushChanged();
  assert.deepEqual(a.conflicts(), []);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, `${PATH}/x.md`), "under a directory now");
});
