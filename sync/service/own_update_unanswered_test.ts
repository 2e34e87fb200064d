/**
 * An update (of a path this cache synced before, dirty by name) whose
 * commit landed and whose answer was lost: the entry names this cache's own
 * write, and an edit made since is based on it, not a peer's change.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick, read, updateAnswerLost, v2Store } from "./clone_kit.ts";

Deno.test("a pull meeting an entry naming this cache's own update, whose commit's answer was lost, keeps the edit made since, not as a conflict", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  await put(a, path, "one");
  await a.pushChanged();
  const one = a.state.synced(path)?.version;
  assert.ok(one);
  // The update's shard lands, its meta bump does not.
  const two = await updateAnswerLost(store, a, path, "two");
  assert.ok(two !== one, "the update's entry is published");
  assert.equal(a.state.synced(path)?.version, one, "never recorded as synced");
  // An edit made since, pulled before it is pushed.
  await put(a, path, "three");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "its own committed write is no peer's change");
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, path), "three");
});

Deno.test("a pull meeting an entry naming this cache's own update, deleted here since, keeps the deletion for the push, not as a conflict", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  await put(a, path, "one");
  await a.pushChanged();
  // The update's shard lands, its meta bump does not.
  await updateAnswerLost(store, a, path, "two");
  // Deleted here since, before a pull.
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "its own committed write is no peer's change");
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.deleted, [path]);
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, path), undefined);
});
