/**
 * A push stopped between its uploads and its index commit leaves objects
 * no index names; an old client's pull of a bucket without an index lists
 * it and names them in the index it writes (size only: no hash, no
 * version). The uploads are this cache's own: its next pull keeps its
 * copies for the push to commit, never a conflict of the cache with itself.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { PutModes } from "../ports.ts";
import { MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { clone, put, read } from "./clone_kit.ts";

const FILES = ["data/t/m/out/1/raw", "notes/a.txt"];

/** The v1 index an old client writes from a listing of the bucket. */
async function discoveredByOldClient(store: InMemoryStore, keys: string[]): Promise<void> {
  const entries: Record<string, unknown> = {};
  for (const key of keys) {
    const info = (await store.head(key))!;
    entries[key] = {
      key,
      size: info.size,
      lastModified: new Date(info.lastModified).toISOString(),
    };
  }
  const body = { version: 1, lastPulled: new Date(0).toISOString(), entries };
  await store.put(MONOLITH_KEY, new TextEncoder().encode(JSON.stringify(body)), PutModes.create);
}

Deno.test("uploads of a stopped push that an old client's listing named are this cache's own: its pull keeps them, its push commits them", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const f of FILES) await put(a, f, `a's ${f}`);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === MONOLITH_KEY,
  });
  await assert.rejects(a.pushChanged());
  await discoveredByOldClient(store, FILES);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict of the cache with its own uploads");
  assert.deepEqual(a.conflicts(), []);
  for (const f of FILES) assert.equal(await read(a, f), `a's ${f}`);
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  for (const f of FILES) assert.equal(await read(b, f), `a's ${f}`);
});
