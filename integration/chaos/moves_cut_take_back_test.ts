/**
 * The cut-take-back move: where it inserts its block, and that the block is
 * the republished move's with a brief outage at the take-back's delete.
 */
import assert from "node:assert/strict";
import type { ClientKind } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock } from "./moves_kit.ts";
import { insertCutTakeBack } from "./moves_cut_take_back.ts";

Deno.test("cut-take-back: nothing where the republished move inserts nothing, or outside its share", () => {
  const cases: [readonly ClientKind[], boolean, number][] = [
    [["api", "api", "core"], false, 1],
    [["api", "api"], true, 1],
    [["api", "core", "core"], true, 1],
    [["api", "api", "core"], true, 0],
  ];
  assertNothingInserted(
    cases,
    (ops, [kinds, etag, share], rng) => insertCutTakeBack(ops, kinds, etag, rng, share),
  );
});

Deno.test("cut-take-back: the republished block, a brief outage armed at a delete just before the third clone's take-back, whose next push is its other file's edit", () => {
  const kinds: ClientKind[] = ["api", "core", "api", "core-single-phase"];
  forEachBlock((ops, rng) => insertCutTakeBack(ops, kinds, true, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick" && o.kind !== "wait");
    assert.deepEqual(steps.map((o) => o.kind), [
      "crash",
      "edit",
      "blip",
      "delete",
      "edit",
      "crash",
      "delete",
      "oldpull",
      "sync",
      "sync",
      "edit",
      "sync",
      "sync",
    ]);
    const [, pushed, blip, takeBack, next] = steps;
    assert.ok(pushed.kind === "edit" && pushed.how === "push");
    assert.ok(blip.kind === "blip" && blip.clone === pushed.clone && blip.call === "delete");
    assert.ok(!blip.marker && !blip.landed);
    assert.ok(takeBack.kind === "delete" && takeBack.clone === pushed.clone);
    assert.equal(takeBack.file, pushed.file);
    assert.ok(next.kind === "edit" && next.clone === pushed.clone && next.how === "push");
  });
});
