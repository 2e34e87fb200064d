/**
 * An entry naming this cache's own update (its commit landed, its answer
 * lost), met by a pull whose look at the object fails: the edit made since
 * is kept, and the pull records no conflict of the cache with itself.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../errors.ts";
import { clone, put, read, updateAnswerLost, v2Store } from "./clone_kit.ts";

Deno.test("a pull whose look at this cache's own committed update fails records no conflict with itself", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  const path = "notes/shared.txt";
  await put(a, path, "one");
  await a.pushChanged();
  const two = await updateAnswerLost(store, a, path, "two");
  await put(a, path, "three");
  store.failNext("head", 1, () => new UnreachableError("cut off"), { match: (k) => k === path });
  const pulled = await a.pullChanged().catch((e) => e);
  const own = a.conflicts().filter((c) => c.theirs?.version === two);
  assert.deepEqual(own, [], `no conflict naming its own write (pull: ${pulled?.message ?? "ok"})`);
  assert.equal(await read(a, path), "three");
});
