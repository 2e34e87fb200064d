import assert from "node:assert/strict";
import {
  emptyJournal,
  ERASURE_JOURNAL,
  journalPending,
  readErasureJournal,
  writeErasureJournal,
} from "./erasure_journal.ts";
import { mockPushContext } from "../packages/testing/mod.ts";
import { SluiceError } from "../sync/errors.ts";

Deno.test("the erasure journal: empty when absent, written durably, read back, pending while it has work", async () => {
  const m = await mockPushContext();
  const empty = await readErasureJournal(m.cache);
  assert.deepEqual(empty, emptyJournal());
  assert.equal(journalPending(empty), false);
  const j = { ...emptyJournal(), erase: ["data/t/m/d/2"], prefixes: ["data/t/m/"] };
  await writeErasureJournal(m.cache, j);
  const back = await readErasureJournal(m.cache);
  assert.deepEqual(back.erase, ["data/t/m/d/2"]);
  assert.equal(journalPending(back), true);
});

Deno.test("a malformed journal is a coded error, never taken for an empty one", async () => {
  const m = await mockPushContext();
  await m.cache.writeState(ERASURE_JOURNAL, { format: 1, erase: "not a list" });
  await assert.rejects(readErasureJournal(m.cache), SluiceError);
});
