import assert from "node:assert/strict";
import { journalLines, readJournalLine, takeJournal } from "./dirty_journal.ts";

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

Deno.test("journal lines carry the process that made them, and a rewritten journal its generation first", () => {
  const text = journalLines({
    generation: "g1",
    bulk: true,
    dirty: ["a"],
    attempted: ["b"],
    owner: "p1",
  });
  assert.equal(text, '#g1\n@p1 *\n@p1 "a"\n@p1 ?"b"\n');
  assert.deepEqual(text.split("\n").slice(0, -1).map(readJournalLine), [
    { kind: "generation", id: "g1" },
    { kind: "bulk", owner: "p1" },
    { kind: "dirty", path: "a", owner: "p1" },
    { kind: "attempted", path: "b", owner: "p1" },
  ]);
  assert.deepEqual(readJournalLine("@p1"), { kind: "unreadable" });
  assert.deepEqual(readJournalLine('"a"'), { kind: "dirty", path: "a" }, "a line of no owner");
});

Deno.test("takeJournal takes the marks of processes gone, carries those of processes that run, and numbers each line", () => {
  const text = [
    "#gen1",
    '@1.a "a.txt"',
    '@2.b "b.txt"',
    '@1.a ?"c.txt"',
    "@2.b *",
    "not a line",
    '"d.txt"',
    "",
  ].join("\n");
  const asked: string[] = [];
  const taken = takeJournal(text, (owner) => {
    asked.push(owner);
    return owner === "2.b";
  });
  assert.equal(taken.count, 7);
  assert.deepEqual(asked, ["1.a", "2.b"], "each owner asked once");
  assert.deepEqual(taken.foreign, ['@2.b "b.txt"', "@2.b *"]);
  assert.deepEqual(taken.marks, [
    { at: 2, kind: "dirty", path: "a.txt", owner: "1.a" },
    { at: 4, kind: "attempted", path: "c.txt", owner: "1.a" },
    { at: 6, kind: "unreadable" },
    { at: 7, kind: "dirty", path: "d.txt" },
  ]);
});
