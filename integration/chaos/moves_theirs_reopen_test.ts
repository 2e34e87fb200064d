/**
 * The theirs-reopen move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR } from "./moves_kit.ts";
import { insertTheirsReopen } from "./moves_theirs_reopen.ts";

Deno.test("theirs-reopen: nothing with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR,
    (ops, [kinds, share], rng) => insertTheirsReopen(ops, kinds, rng, share),
  );
});

Deno.test("theirs-reopen: a conflict of the API clone's edit in place, a newer version of theirs, its --theirs met by a second process's record of it, the datastore unreachable after, then answering again", () => {
  const when = new Set<string>();
  forEachBlock(
    (ops, rng) => insertTheirsReopen(ops, ["core", "api", "core"], rng, 1),
    (block) => {
      const steps = block.filter((o) => o.kind !== "tick");
      assert.deepEqual(steps.map((o) => o.kind), [
        "edit",
        "sync",
        "edit",
        "edit",
        "sync",
        "edit",
        "sync",
        "resolve",
        "outage",
        "resolve",
        "sync",
      ]);
      const [first, synced, hand, second, met, third, other, theirs, answers, left, last] = steps;
      assert.ok(first.kind === "edit" && first.how === "push" && first.clone !== 1);
      const { clone: peer, file } = first;
      for (const e of [second, third]) {
        assert.ok(e.kind === "edit" && e.how === "push" && e.clone === peer && e.file === file);
      }
      assert.ok(hand.kind === "edit" && hand.how === "hand" && hand.clone === 1);
      assert.equal(hand.file, file);
      for (const s of [synced, met, last]) {
        assert.ok(s.kind === "sync" && s.clone === 1 && !s.second);
      }
      // The second process, aimed inside the own --theirs: the user's edit
      // first, the datastore unreachable once it ended.
      assert.ok(other.kind === "sync" && other.clone === 1 && other.second && other.aimed);
      assert.equal(other.handBefore, file);
      assert.equal(other.outageAfter, true);
      assert.ok(!(other.atClear && other.afterClear));
      when.add(other.atClear ? "atClear" : other.afterClear ? "afterClear" : "takeIn");
      assert.ok(theirs.kind === "resolve" && theirs.clone === 1 && theirs.how === "theirs");
      assert.ok(answers.kind === "outage" && !answers.on);
      assert.ok(left.kind === "resolve" && left.clone === 1);
    },
  );
  assert.deepEqual([...when].sort(), ["afterClear", "atClear", "takeIn"]);
});
