import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { pulledFromNoIndex } from "./datastore_empty.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const nothing = { fetched: [], syncedCount: 0, unindexedWritesLeft: false, retry };

Deno.test("pulledFromNoIndex: true for a pull that synced nothing from a datastore with no index", async () => {
  const store = new InMemoryStore();
  assert.equal(await pulledFromNoIndex({ ...nothing, store }), true);
  await store.put(MONOLITH_KEY, new TextEncoder().encode("{}"), PutModes.create);
  assert.equal(await pulledFromNoIndex({ ...nothing, store }), false, "an index is there");
});

Deno.test("pulledFromNoIndex: a pull that fetched, a cache that synced some, or unindexed writes told of: false, with no request", async () => {
  const store = new InMemoryStore();
  for (
    const c of [
      { fetched: ["a.txt"] },
      { syncedCount: 1 },
      { unindexedWritesLeft: true },
    ]
  ) {
    assert.equal(await pulledFromNoIndex({ ...nothing, ...c, store }), false);
  }
  assert.equal(store.count(), 0);
});
