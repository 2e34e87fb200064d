/**
 * A file created here whose push commit landed with its answer lost, edited
 * here since, while a peer that pulled it writes an edit of its own over it
 * and its index update has not come yet. The index still names this cache's
 * own write, but the store holds the peer's: the object at the entry's
 * version is gone, and its writer id with it. The pull must not take this
 * cache's own write for a peer's change (a conflict with itself); the peer's
 * edit meets the change here once its commit comes.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/n.md";

Deno.test("a created file whose commit answer was lost, edited here while a peer's edit of it is under way: the pull records no conflict with its own write", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const v = await createAnswerLost(store, a, PATH, "a's first");
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  await b.pullChanged();
  assert.equal(await read(b, PATH), "a's first");
  // b edits the file: its write lands, its index update is cut off.
  await put(b, PATH, "b's edit");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged(), /could not be reached/);
  const vb = (await store.head(PATH))?.version;
  assert.ok(vb !== undefined && vb !== v, "b's write landed");
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH]?.v,
    v,
    "the index names a's write",
  );
  // a's user edits the file by hand (no mark).
  await put(a, PATH, "a's edit", false);

  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], `no conflict with its own write ${v}`);
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, PATH), "a's edit");
  // b's edit is committed at last: now it meets a's, a conflict naming b's write.
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH]?.v, vb);
  await a.pullChanged();
  assert.deepEqual(a.conflicts().map((c) => [c.path, c.theirs?.version]), [[PATH, vb]]);
});
