/**
 * The old-take-back move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR_OR_CONDITION } from "./moves_kit.ts";
import { insertOldTakeBack } from "./moves_old_take_back.ts";

Deno.test("old-take-back: nothing without ETag versions, with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR_OR_CONDITION,
    (ops, [kinds, etag, share], rng) => insertOldTakeBack(ops, kinds, etag, rng, share),
  );
});

Deno.test("old-take-back: a clone's create with its answer lost, its take-back stopped before its delete, an old client on another machine writing the same bytes there, the take-back going on", () => {
  forEachBlock(
    (ops, rng) => insertOldTakeBack(ops, ["core", "api", "api"], true, rng, 1),
    (block) => {
      const steps = block.filter((o) => o.kind !== "tick" && o.kind !== "wait");
      assert.deepEqual(steps.map((o) => o.kind), [
        "crash",
        "edit",
        "stall",
        "delete",
        "oldpush",
        "stall",
        "sync",
        "sync",
      ]);
      const [lost, pushed, stop, takeBack, old, go, sync, other] = steps;
      assert.ok(pushed.kind === "edit" && pushed.how === "push" && pushed.clone !== 0);
      const clone = pushed.clone;
      assert.ok(lost.kind === "crash" && lost.clone === clone && lost.at === "answer");
      assert.ok(stop.kind === "stall" && stop.clone === clone && stop.on && stop.at === "withdraw");
      assert.ok(takeBack.kind === "delete" && takeBack.clone === clone && takeBack.how === "push");
      assert.equal(takeBack.file, pushed.file);
      assert.ok(old.kind === "oldpush" && old.clone !== clone && old.file === pushed.file);
      assert.deepEqual(old.again, { op: pushed.id, clone });
      assert.ok(go.kind === "stall" && go.clone === clone && !go.on);
      assert.ok(sync.kind === "sync" && sync.clone === clone);
      assert.ok(other.kind === "sync" && other.clone === old.clone);
      // Past the global lock's TTL before the old client's push.
      assert.equal(block[block.indexOf(old) - 1].kind, "wait");
    },
  );
});
