/**
 * A long-lived process (swamp's extension instance, say) over a cache whose
 * conflict another process resolved (`sluice resolve` on the command line):
 * its next syncs never report that conflict again as left open.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

/**
 * b's pull set its own copy of notes/todo.txt aside and stopped before it
 * saved the record; a long-lived process over b's cache named the conflict
 * again from the copy at its load; another process over the cache then
 * resolved it (theirs).
 */
async function namedAtLoadResolvedElsewhere() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/todo.txt", "a1");
  await a.pushChanged();
  // b's pull sets its own copy aside, and stops before it saves the record.
  const b = await clone(store, "b");
  await put(b, "notes/todo.txt", "b's own", false);
  assert.equal((await b.pullChanged()).setAside.length, 1);
  await Deno.writeTextFile(
    `${b.cacheDir}/.sluice/conflicts.json`,
    JSON.stringify({ format: 1, conflicts: {} }),
  );
  // A long-lived process over b's cache names the conflict again from the copy.
  const longLived = await clone(store, "b", b.cacheDir);
  assert.deepEqual(longLived.conflicts().map((c) => c.path), ["notes/todo.txt"]);
  // Another process over the cache resolves it.
  const other = await clone(store, "b", b.cacheDir);
  assert.ok((await other.resolveConflict("notes/todo.txt", "theirs")).resolved);
  return { store, a, b, longLived, other };
}

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

Deno.test("a conflict named again at load from a copy a stopped pull set aside, and resolved by another process over the cache since, is neither reported again by this process nor written back by its next save", async () => {
  const { store, a, b, longLived } = await namedAtLoadResolvedElsewhere();
  // The long-lived process goes on: the conflict is gone for it too.
  assert.deepEqual((await longLived.pullChanged()).conflicts, []);
  assert.deepEqual(longLived.conflicts(), []);
  // Its next save of the records (a conflict of another path) writes no record of it back.
  await put(a, "notes/other.txt", "x1");
  await a.pushChanged();
  await longLived.pullChanged();
  await put(a, "notes/other.txt", "x2");
  await a.pushChanged();
  await put(longLived, "notes/other.txt", "mine", false);
  assert.deepEqual((await longLived.pullChanged()).conflicts, ["notes/other.txt"]);
  const next = await clone(store, "b", b.cacheDir);
  assert.deepEqual(next.conflicts().map((c) => c.path), ["notes/other.txt"]);
});

Deno.test("a conflict named again at load from a copy a stopped pull set aside, resolved by another process over the cache and then found again there (a later version of theirs), is taken as the other process recorded it: the copy-named record of the load is not written back over it", async () => {
  const { store, a, b, longLived, other } = await namedAtLoadResolvedElsewhere();
  // A later version of theirs, and an edit here: another conflict of the path, recorded by the other process.
  await put(a, "notes/todo.txt", "a2");
  await a.pushChanged();
  await put(other, "notes/todo.txt", "b's edit", false);
  assert.deepEqual((await other.pullChanged()).conflicts, ["notes/todo.txt"]);
  const recorded = other.conflicts()[0];
  // The long-lived process goes on: it reports the conflict as recorded, not the one it named at its load.
  await longLived.pushChanged();
  assert.deepEqual(longLived.conflicts(), [recorded]);
  const next = await clone(store, "b", b.cacheDir);
  assert.deepEqual(next.conflicts(), [recorded]);
});
