/**
 * The cut-take-back move: where it inserts its block, and that the block is
 * the republished move's with a brief outage at the take-back's delete.
 */
import assert from "node:assert/strict";
import { assertNothingRepublished, forEachRepublished, REPUBLISHED_STEPS } from "./moves_kit.ts";
import { insertCutTakeBack } from "./moves_cut_take_back.ts";

Deno.test("cut-take-back: nothing where the republished move inserts nothing, or outside its share", () => {
  assertNothingRepublished(insertCutTakeBack);
});

Deno.test("cut-take-back: the republished block, a brief outage armed at a delete just before the third clone's take-back, whose next push is its other file's edit", () => {
  forEachRepublished(insertCutTakeBack, (steps) => {
    const [first, second, ...rest] = REPUBLISHED_STEPS;
    assert.deepEqual(steps.map((o) => o.kind), [first, second, "blip", ...rest]);
    const [, pushed, blip, takeBack, next] = steps;
    assert.ok(pushed.kind === "edit" && pushed.how === "push");
    assert.ok(blip.kind === "blip" && blip.clone === pushed.clone && blip.call === "delete");
    assert.ok(!blip.marker && !blip.landed);
    assert.ok(takeBack.kind === "delete" && takeBack.clone === pushed.clone);
    assert.equal(takeBack.file, pushed.file);
    assert.ok(next.kind === "edit" && next.clone === pushed.clone && next.how === "push");
  });
});
