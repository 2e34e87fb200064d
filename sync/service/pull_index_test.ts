import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnsafePathError } from "../errors.ts";
import { INDEX_KEY } from "../transfer/remote_index.ts";
import { clone, put } from "./clone_kit.ts";
import { indexForPull } from "./pull_index.ts";
import type { PullDeps } from "./pull.ts";

const depsOf = (svc: Awaited<ReturnType<typeof clone>>): PullDeps => ({
  store: svc.store,
  cache: svc.cache,
  state: svc.state,
  config: svc.config,
  events: svc.events,
  signal: new AbortController().signal,
  isInternal: () => false,
});

Deno.test("indexForPull: nothing to do on an empty datastore (no index for a scoped pull); the index once pushed; unchanged by its token after a whole pull", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  assert.equal(
    await indexForPull(depsOf(a), undefined),
    "unchanged",
    "nothing there, nothing synced",
  );
  assert.deepEqual(await indexForPull(depsOf(a), ["x.txt"]), { index: null });
  await put(a, "x.txt", "x");
  await a.pushChanged();
  const b = await clone(store, "b");
  const read = await indexForPull(depsOf(b), undefined);
  assert.ok(read !== "unchanged" && read.index);
  assert.deepEqual(Object.keys(read.index.entries), ["x.txt"]);
  await b.pullChanged();
  assert.equal(await indexForPull(depsOf(b), undefined), "unchanged");
  assert.notEqual(await indexForPull(depsOf(b), ["x.txt"]), "unchanged", "a scoped pull reads");
});

Deno.test("indexForPull refuses an index naming a key that is no safe cache path, before anything is written", async () => {
  const store = new InMemoryStore();
  store.seed(
    INDEX_KEY,
    JSON.stringify({ version: 1, entries: { "../escape": { key: "../escape", size: 1 } } }),
  );
  const a = await clone(store, "a");
  await assert.rejects(() => indexForPull(depsOf(a), undefined), UnsafePathError);
});
