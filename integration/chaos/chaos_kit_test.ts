import assert from "node:assert/strict";
import { describe, generateBoth, insertedAtStart } from "./chaos_kit.ts";
import { generateHistory } from "./history.ts";
import type { HistoryResult } from "./stats.ts";
import { INSERTS_OFF } from "./shares_off.ts";

Deno.test("describe: each failing history, the invariants it broke, and the command that reproduces it", () => {
  const history = generateHistory(7, INSERTS_OFF);
  const text = describe([
    {
      history,
      violations: [{ invariant: "I6", message: "a deletion undone" }],
    } as unknown as HistoryResult,
  ]);
  assert.match(text, /\n {2}I6: a deletion undone\n/);
  assert.match(text, /reproduce and shrink: deno task chaos --seed 7$/);
});

Deno.test("generateBoth: with nothing turned on the history is the one drawn without, nothing added", () => {
  const { without, h, added } = generateBoth(11, {});
  assert.deepEqual(h, without);
  assert.deepEqual(added, []);
});

Deno.test("insertedAtStart: counts the histories a move is not left out of, each handed to the check with what was added", () => {
  assert.equal(insertedAtStart({}, () => true, () => assert.fail("left out"), { seeds: 5 }), 0);
  let checked = 0;
  const inserted = insertedAtStart({}, () => false, ({ steps, added }) => {
    assert.deepEqual(added, []);
    assert.deepEqual(steps, []);
    checked++;
  }, { seeds: 5 });
  assert.equal(inserted, 5);
  assert.equal(checked, 5);
});
