import assert from "node:assert/strict";
import { ctimeOnlyRepeats, damageableLines, withRepeats } from "./ctime_lines.ts";

const rec = (p: string, h: string, c: number) =>
  JSON.stringify({ g: 0, p, e: { h, v: "v1", s: 1, c } });

// One log as a history wrote it, and as it did when a second ended between
// the record of `m` and the put-back of its bytes (the walk recorded it again).
const without = [rec("m", "1", 5000), rec("a", "2", 5000), rec("b", "3", 5000), ""];
const withLine = [
  rec("m", "1", 5000),
  rec("a", "2", 5000),
  rec("m", "1", 6000),
  rec("b", "3", 5000),
  "",
];

Deno.test("ctime lines: a record written again with its ctime alone moved is a repeat", () => {
  assert.deepEqual(ctimeOnlyRepeats(withLine), [false, false, true, false, false]);
  const other = [rec("m", "1", 5000), rec("m", "9", 6000), rec("m", "1", 7000)];
  assert.deepEqual(ctimeOnlyRepeats(other), [false, false, false]);
  const deleted = [rec("m", "1", 5000), JSON.stringify({ g: 0, p: "m" }), rec("m", "1", 7000)];
  assert.deepEqual(ctimeOnlyRepeats(deleted), [false, false, false]);
});

Deno.test("ctime lines: the damaged move's pick, and what it damages, are the same records with or without the repeat", () => {
  const a = damageableLines(without, false);
  const b = damageableLines(withLine, false);
  assert.equal(a.length, b.length);
  assert.deepEqual(a.map((k) => without[k]), b.map((k) => withLine[k]));
  assert.deepEqual(withRepeats(without, 0), [0]);
  assert.deepEqual(withRepeats(withLine, 0), [0, 2]);
  // A repeat after the last line: that line still counts as the last.
  const trailing = [...without.slice(0, 3), rec("b", "3", 6000), ""];
  assert.deepEqual(damageableLines(trailing, false), a);
  // A torn line last: every whole line may be picked.
  assert.deepEqual(damageableLines([...without.slice(0, 3), '{"g":0,"p"'], true), [0, 1, 2]);
});
