import assert from "node:assert/strict";
import { SharedJournal } from "./shared_journal.ts";

const none = { bulk: false, dirty: [], attempted: [] };

async function two() {
  const file = `${await Deno.makeTempDir({ prefix: "sluice-journal-" })}/dirty.log`;
  return { file, one: new SharedJournal(file, "1.a"), two: new SharedJournal(file, "2.b") };
}

Deno.test("lines another owner appended are taken in once, as theirs; this owner's own are not", async () => {
  const { one, two: other } = await two();
  await one.append('@1.a "mine"\n');
  await other.catchUp(none);
  await other.append('@2.b "theirs"\n');
  assert.deepEqual(await one.catchUp({ ...none, dirty: ["mine"] }), {
    unreadable: false,
    ownDropped: false,
  });
  assert.deepEqual([...one.foreign], ['@2.b "theirs"']);
  await one.catchUp({ ...none, dirty: ["mine"] }); // nothing new: read once
  assert.deepEqual([...one.foreign], ['@2.b "theirs"']);
});

Deno.test("a rewrite by another owner replaces the lines taken in, and says when it left this owner's out", async () => {
  const { file, one, two: other } = await two();
  await one.append('@1.a "mine"\n');
  await other.catchUp(none);
  // The other rewrites: its own marks, and one's line carried.
  await other.rewrite({ bulk: false, dirty: ["its"], attempted: [] });
  assert.match(await Deno.readTextFile(file), /^#\w+\n@2\.b "its"\n@1\.a "mine"\n/);
  assert.deepEqual(await one.catchUp({ ...none, dirty: ["mine"] }), {
    unreadable: false,
    ownDropped: false,
  });
  assert.deepEqual([...one.foreign].sort(), ['@2.b "its"']);
  assert.equal((await one.catchUp({ ...none, dirty: ["mine"] })).ownDropped, false);
  await other.catchUp(none);
  other.foreign.clear(); // as if it had taken one's mark over and handled it
  await other.rewrite({ bulk: false, dirty: [], attempted: [] });
  assert.equal((await one.catchUp({ ...none, dirty: ["mine"] })).ownDropped, true);
});

Deno.test("a last line without its newline is left for later, and a line no one can read is said", async () => {
  const { file, one } = await two();
  await Deno.writeTextFile(file, '@2.b "whole"\n@2.b "ha');
  assert.equal((await one.catchUp(none)).unreadable, false);
  assert.deepEqual([...one.foreign], ['@2.b "whole"']);
  await Deno.writeTextFile(file, 'lf"\n@2.b "x\n', { append: true });
  const found = await one.catchUp(none);
  assert.equal(found.unreadable, true);
  assert.ok(one.foreign.has('@2.b "half"'));
});
