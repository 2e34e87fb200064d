import assert from "node:assert/strict";
import { rolledBackDeletedHere, VersionTurns } from "./old_pull_undone.ts";

const P = "notes/shared-0.md";

Deno.test("an entry an old client's pull wrote back counts as a clone's dropped deletion only where that deletion came after the version's last put", () => {
  // c0 wrote version a, then deleted it (seed 219400115): undone.
  const t = new VersionTurns();
  t.put(P, "a");
  t.deleted(0, P, "a");
  assert.equal(t.undone(P, "a", [[0, ["a"]]]), true);
  // Another clone's deletion, or another version's, tells nothing.
  assert.equal(t.undone(P, "a", [[1, ["a"]]]), false);
  assert.equal(t.undone(P, "a", [[0, ["b"]]]), false);
  // On a store whose versions are the bytes' ETags, c2 wrote the same bytes
  // again after c0's deletion: the object the index names since is c2's,
  // which no deletion removed.
  t.put(P, "a");
  assert.equal(t.undone(P, "a", [[0, ["a"]]]), false);
  // Deleted again since: undone again.
  t.deleted(1, P, "a");
  assert.equal(t.undone(P, "a", [[0, ["a"]], [1, ["a"]]]), true);
});

Deno.test("an entry an old client's pull wrote back counts as a dropped deletion of a version that replaced it by conditional updates (seed 220100129), after that version's last put", () => {
  const t = new VersionTurns();
  t.put(P, "a");
  t.put(P, "b", "a");
  t.put(P, "c", "b");
  t.deleted(3, P, "c");
  assert.equal(t.undone(P, "a", [[3, ["c"]]]), true);
  assert.equal(t.undone(P, "b", [[3, ["c"]]]), true);
  // A version the deleted one never replaced.
  assert.equal(t.undone(P, "x", [[3, ["c"]]]), false);
  assert.equal(t.replaces(P, "a", "c"), false);
  // c written again (the same bytes) after the deletion: not undone.
  t.put(P, "c", "b");
  assert.equal(t.undone(P, "a", [[3, ["c"]]]), false);
  // A chain that loops (an update back to the same bytes) ends.
  const loop = new VersionTurns();
  loop.put(P, "a", "b");
  loop.put(P, "b", "a");
  assert.equal(loop.replaces(P, "a", "z"), false);
});

Deno.test("an entry an old client's pull rolled back is spared only while the store holds the version taken out and a clone deleted it by hand, unmarked, and was told", async () => {
  const rolledBack = new Map([[P, new Set(["b"])]]);
  const store = new Map<string, string>([[P, "b"]]);
  const head = (path: string) => {
    const version = store.get(path);
    return Promise.resolve(version === undefined ? null : { version });
  };
  const told = (_path: string, version: string) => version === "b";
  // The index names "a", the version the write-back read; the store holds "b".
  assert.deepEqual([...await rolledBackDeletedHere(rolledBack, { [P]: { v: "a" } }, head, told)], [
    P,
  ]);
  // No clone holds "b" deleted by hand and told: not spared.
  assert.equal(
    (await rolledBackDeletedHere(rolledBack, { [P]: { v: "a" } }, head, () => false)).size,
    0,
  );
  // Named again at "b", or named at a version no write-back took out: nothing to spare.
  assert.equal((await rolledBackDeletedHere(rolledBack, { [P]: { v: "b" } }, head, told)).size, 0);
  // The store holding another version than the one taken out, or nothing, or a failed look.
  store.set(P, "c");
  assert.equal((await rolledBackDeletedHere(rolledBack, { [P]: { v: "a" } }, head, told)).size, 0);
  store.delete(P);
  assert.equal((await rolledBackDeletedHere(rolledBack, { [P]: { v: "a" } }, head, told)).size, 0);
  const failing = () => Promise.reject(new Error("unreachable"));
  assert.equal(
    (await rolledBackDeletedHere(rolledBack, { [P]: { v: "a" } }, failing, told)).size,
    0,
  );
});
