import assert from "node:assert/strict";
import { journalLines, readJournalLine } from "./dirty_journal.ts";

Deno.test("dirty journal lines read back as written; anything else is unreadable", () => {
  const text = journalLines({ bulk: true, dirty: ["a b.txt", "?odd"], attempted: ["c.txt"] });
  assert.deepEqual(text.split("\n").filter((l) => l).map(readJournalLine), [
    { kind: "bulk" },
    { kind: "dirty", path: "a b.txt" },
    { kind: "dirty", path: "?odd" },
    { kind: "attempted", path: "c.txt" },
  ]);
  for (const bad of ['"torn', "42", '?{"a":1}', "?"]) {
    assert.deepEqual(readJournalLine(bad), { kind: "unreadable" }, bad);
  }
});
