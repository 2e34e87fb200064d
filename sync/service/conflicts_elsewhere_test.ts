/**
 * A long-lived process (swamp's extension instance, say) over a cache whose
 * conflict another process resolved (`sluice resolve` on the command line):
 * its next syncs never report that conflict again as left open.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

Deno.test("a conflict another process over the cache resolved is not reported again by this process's next pull and push", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/todo.txt", "a1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, "notes/todo.txt", "a2");
  await a.pushChanged();
  await put(b, "notes/todo.txt", "b's edit", false);
  assert.deepEqual((await b.pullChanged()).conflicts, ["notes/todo.txt"]);
  // Another process over b's cache resolves it.
  const other = await clone(store, "b", b.cacheDir);
  assert.ok((await other.resolveConflict("notes/todo.txt", "theirs")).resolved);
  assert.equal(await read(b, "notes/todo.txt"), "a2");
  // b's own process goes on: the conflict is gone for it too.
  assert.deepEqual((await b.pullChanged()).conflicts, []);
  assert.deepEqual((await b.pushChanged()).conflicts, []);
  assert.deepEqual(b.conflicts(), []);
});
