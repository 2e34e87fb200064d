/**
 * A push that finds its own bytes already in the store ("identical", after
 * an earlier push of them failed late) commits them only while the store
 * still holds them: a peer that saw them and deleted them meanwhile is not
 * undone by an index entry naming a deleted object.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { clone, quick } from "./clone_kit.ts";

Deno.test("a re-push of bytes a peer saw and deleted meanwhile does not name the deleted object", async () => {
  const store = new InMemoryStore();
  const v2 = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
  await store.put(META_KEY, metaBody(v2), { kind: "create" });
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const path = "notes/shared.txt";
  await writeCacheFile(a.cacheDir, path, "a's note");
  await a.markDirty({ relPath: path });
  // The shard lands, the meta's bump does not: the push fails, yet readers see the entry.
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: (k) => k === META_KEY });
  await assert.rejects(a.pushChanged());
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "a's note");
  // a pushes again: it finds its own bytes there; b deletes them before a's commit.
  const prepared = await a.preparePush();
  assert.deepEqual(prepared.result.identical, [path]);
  await Deno.remove(`${b.cacheDir}/${path}`);
  await b.markDirty({ relPath: path });
  assert.deepEqual((await b.pushChanged()).deleted, [path]);
  await a.commitPush(prepared);
  const index = await readIndex(store, quick.retry);
  const named = index?.entries[path]?.v;
  const held = (await store.head(path))?.version;
  assert.ok(
    named === undefined || named === held,
    `the index names ${named}, the store holds ${held}`,
  );
});
