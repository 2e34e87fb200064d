import assert from "node:assert/strict";
import { fetchRemote, replaceOwn, stillIndexed, writerId } from "./own_writes.ts";
import {
  type InMemoryStore,
  mockPushContext,
  mockWriteContext,
  planEntry,
} from "../packages/testing/mod.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";

const P = "notes/n.txt";

Deno.test("the writer id is made once, kept in the cache's state, and the same for the next push", async () => {
  const m = await mockPushContext();
  const id = await writerId(mockWriteContext(m.ctx, P, "x", { entry: planEntry(P) }));
  assert.ok(id.length > 0);
  assert.deepEqual(await m.cache.readState("writer.json"), { id });
  const again = await mockPushContext({ cacheDir: m.cache.dir });
  assert.equal(await writerId(mockWriteContext(again.ctx, P, "y", { entry: planEntry(P) })), id);
});

Deno.test("replaceOwn swaps only the version it was given; fetchRemote and stillIndexed read the store", async () => {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  const ctx = mockWriteContext(m.ctx, P, "mine", { entry: planEntry(P) });
  assert.equal(await fetchRemote(ctx), null);
  const orphan = store.seed(P, "orphan");
  assert.equal(await replaceOwn(ctx, "not-its-version"), null);
  assert.equal(store.peekText(P), "orphan");
  const info = await replaceOwn(ctx, orphan.version);
  assert.equal(store.peekText(P), "mine");
  assert.equal((await fetchRemote(ctx))?.version, info?.version);
  assert.equal(await stillIndexed(ctx, "v-old"), false);
  await updateIndex(store, { set: { [P]: { v: "v-old", h: "a".repeat(64), s: 1 } }, remove: [] }, {
    retries: 0,
    minTimeoutMs: 0,
    maxTimeoutMs: 0,
  });
  assert.equal(await stillIndexed(ctx, "v-old"), true);
});
