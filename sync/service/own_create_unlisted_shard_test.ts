/**
 * A file created here on a v2 index whose commit wrote its new shard and
 * was cut off before the meta bump that lists it, then deleted here and
 * pushed by name: the push takes its upload back, and a peer's later
 * commit into that shard (which reads the shard as it stands and lists it)
 * must not publish an entry naming the deleted upload.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../errors.ts";
import { META_KEY, shardKey, shardOf } from "../transfer/bucket_layout.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick, read, v2Store } from "./clone_kit.ts";

Deno.test("a created file whose commit was cut off before the meta listed its new shard, deleted here, is not named by a peer's later commit into that shard", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const path = "data/t/m/notes.txt";
  const shard = shardKey(shardOf(path));
  await put(a, path, "one");
  // The shard write lands; the meta bump that would list the shard never does.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === META_KEY,
  });
  await a.pushChanged().then(
    () => Promise.reject(new Error("the push was to be cut off")),
    () => {},
  );
  assert.ok(await store.head(shard), "the shard was written");
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined, "not listed");
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  await a.pushChanged();
  assert.equal(await store.head(path), null, "the upload is taken back");
  // A peer commits a file of the same shard: its commit lists the shard.
  await put(b, "data/t/m/other.txt", "theirs");
  await b.pushChanged();
  const index = await readIndex(store, quick.retry);
  assert.ok(index?.entries["data/t/m/other.txt"], "the peer's file is published");
  assert.equal(index?.entries[path], undefined, "no entry names the deleted upload");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, path), undefined);
  assert.equal(await read(c, "data/t/m/other.txt"), "theirs");
});
