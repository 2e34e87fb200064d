/**
 * I22 for a resolution that did not resolve inside which a second process
 * recorded a newer conflict of its path: its older record left open fails.
 */
import assert from "node:assert/strict";
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import { ReopenedRecords } from "./reopened_records.ts";

/** A record of `path` naming version `v` of theirs and the copy in place. */
const rec = (path: string, v: string): ConflictRecord => ({
  path,
  mine: { location: path, hash: "a".repeat(64), size: 1 },
  theirs: { version: v, hash: "b".repeat(64), size: 1 },
  base: "v1",
  foundBy: "pull",
  at: 0,
  reason: "changed here since the last sync, and on the datastore",
});

Deno.test("reopened records: the older record the resolution read, left open over the second process's newer one, fails I22", () => {
  const r = new ReopenedRecords();
  r.read(1, [rec("a", "v7")]);
  r.saved(1, [rec("a", "v9")]);
  const v = r.check(1, "a", "theirs", [rec("a", "v7")], 5);
  assert.equal(v?.invariant, "I22");
  assert.equal(v?.afterOp, 5);
  assert.match(v?.message ?? "", /theirs v7\).*newer one.*theirs v9/);
  // Taken down once checked.
  assert.equal(r.check(1, "a", "theirs", [rec("a", "v7")], 5), undefined);
});

Deno.test("reopened records: the newer record open, or none newer recorded, or another path, passes", () => {
  const cases: [ConflictRecord[], ConflictRecord[], ConflictRecord[]][] = [
    [[rec("a", "v7")], [rec("a", "v9")], [rec("a", "v9")]],
    [[rec("a", "v7")], [rec("a", "v9")], []],
    [[rec("a", "v7")], [rec("a", "v7")], [rec("a", "v7")]],
    [[rec("a", "v7")], [rec("b", "v9")], [rec("a", "v7")]],
    [[], [rec("a", "v9")], [rec("a", "v7")]],
  ];
  for (const [read, saved, open] of cases) {
    const r = new ReopenedRecords();
    r.read(1, read);
    r.saved(1, saved);
    assert.equal(
      r.check(1, "a", "theirs", open, 5),
      undefined,
      JSON.stringify([read, saved, open]),
    );
  }
});
