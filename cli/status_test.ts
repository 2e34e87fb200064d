import assert from "node:assert/strict";
import { describeConflicts } from "./status.ts";

Deno.test("status shows the copies a conflict's earlier records set aside, beside mine", () => {
  const lines = describeConflicts([{
    path: "notes/n.txt",
    mine: { location: "notes/n.txt", hash: "a".repeat(64), size: 3 },
    theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
    base: "v1",
    foundBy: "pull",
    at: 1,
    reason: "changed here since the last sync, and on the datastore",
    keptAside: [{
      location: ".sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/notes/n.txt",
      hash: "c".repeat(64),
      size: 5,
    }],
  }]);
  assert.deepEqual(lines.slice(1, 5), [
    "  notes/n.txt: changed here since the last sync, and on the datastore",
    "    mine:   in place (3 B, aaaaaaaaaaaa…)",
    "    set aside earlier: .sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/notes/n.txt (5 B, cccccccccccc…)",
    "    theirs: version v2 (2 B, bbbbbbbbbbbb…)",
  ]);
});
