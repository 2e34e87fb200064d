/**
 * The marker-taken-back move: where it inserts its block, and what the
 * block does, in order.
 */
import assert from "node:assert/strict";
import { assertNothingInserted, forEachBlock } from "./moves_kit.ts";
import { insertMarkerTakenBack } from "./moves_marker_taken_back.ts";

Deno.test("marker-taken-back: nothing outside its share", () => {
  assertNothingInserted([2, 3], (ops, clones, rng) => insertMarkerTakenBack(ops, clones, rng, 0));
});

Deno.test("marker-taken-back: after another tool's first writes, a clone's run committed with its answer lost, its version deleted here and pushed, then two syncs", () => {
  let first = 0;
  forEachBlock((ops, rng) => insertMarkerTakenBack(ops, 3, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick");
    const runs = steps.filter((o) => o.kind === "run");
    assert.ok(runs.length === 1 || runs.length === 2);
    if (runs.length === 1) first++;
    const clone = steps[0].kind === "sync" ? steps[0].clone : -1;
    assert.ok(runs.every((r) => r.kind === "run" && r.clone === clone));
    assert.ok(
      runs.every((r) => r.kind === "run" && r.model === runs[0].model && r.data === runs[0].data),
    );
    const tail = steps.slice(-5);
    assert.deepEqual(tail.map((o) => o.kind), ["crash", "run", "delete", "sync", "sync"]);
    const [crash, lost, deleted, again, other] = tail;
    assert.ok(crash.kind === "crash" && crash.clone === clone && crash.at === "answer");
    assert.ok(crash.queued === true, "armed for the run that follows");
    assert.ok(deleted.kind === "delete" && deleted.clone === clone && deleted.how === "push");
    assert.equal(deleted.run, lost.id, "the version of the run whose answer was lost");
    assert.ok(again.kind === "sync" && again.clone === clone);
    assert.ok(other.kind === "sync" && other.clone !== clone);
  });
  assert.ok(first > 0 && first < 50, "some blocks make the data's first marker");
});
