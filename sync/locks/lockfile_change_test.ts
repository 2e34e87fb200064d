import assert from "node:assert/strict";
import { mergeLockfileChanges, splitConflictingEntries } from "./lockfile_change.ts";

Deno.test("splitConflictingEntries leaves out each entry another checkout changed since the change was made, unless the change leaves it as theirs", () => {
  const remote = { a: { v: "2" }, b: { v: "1" }, d: { v: "9" } };
  const { change, conflicts } = splitConflictingEntries(remote, {
    set: { a: { v: "3" }, b: { v: "5" }, c: { v: "1" }, d: { v: "9" }, e: { v: "1" } },
    remove: ["f"],
    base: { a: { v: "1" }, b: { v: "1" }, c: null, d: { v: "1" }, f: { v: "1" } },
  });
  // a: theirs moved 1 → 2 meanwhile. d: theirs already as this change leaves it. f: removed
  // here from 1, no entry there: a conflict too (another checkout removed it meanwhile)? No:
  // the change leaves it as theirs (no entry), so it is applied (a no-op).
  assert.deepEqual(conflicts.map((c) => c.name), ["a"]);
  assert.deepEqual(change.set, { b: { v: "5" }, c: { v: "1" }, d: { v: "9" }, e: { v: "1" } });
  assert.deepEqual(change.remove, ["f"]);
  assert.deepEqual(conflicts[0], {
    name: "a",
    mine: { v: "3" },
    base: { v: "1" },
    theirs: { v: "2" },
  });
});

Deno.test("a removal of an entry another checkout changed meanwhile is left out too", () => {
  const { change, conflicts } = splitConflictingEntries({ a: { v: "2" } }, {
    remove: ["a"],
    base: { a: { v: "1" } },
  });
  assert.deepEqual(change.remove, []);
  assert.deepEqual(conflicts, [{ name: "a", mine: null, base: { v: "1" }, theirs: { v: "2" } }]);
});

Deno.test("merged changes keep the value each entry had before the first of them", () => {
  const merged = mergeLockfileChanges(
    { set: { a: { v: "2" } }, base: { a: { v: "1" } } },
    {
      set: { a: { v: "3" }, b: { v: "1" } },
      remove: ["c"],
      base: { a: { v: "2" }, b: null, c: 1 },
    },
  );
  assert.deepEqual(merged.base, { a: { v: "1" }, b: null, c: 1 });
  assert.deepEqual(merged.set, { a: { v: "3" }, b: { v: "1" } });
});

Deno.test("merged changes: an entry either made unconditionally (no base) stays unconditional", () => {
  // A pending change of the extension's, then the command line's add.
  assert.equal(
    mergeLockfileChanges({ set: { x: 2 }, base: { x: 1 } }, { set: { x: 9 } }).base,
    undefined,
  );
  // A pending add of the command line's, then the extension's change of that value (never published).
  assert.equal(
    mergeLockfileChanges({ set: { x: 3 } }, { set: { x: 4 }, base: { x: 3 } }).base,
    undefined,
  );
});
