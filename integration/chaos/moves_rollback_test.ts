/**
 * The rollback-past move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR } from "./moves_kit.ts";
import { insertRollbackPast } from "./moves_rollback.ts";

Deno.test("rollback-past: nothing with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR,
    (ops, [kinds, share], rng) => insertRollbackPast(ops, kinds, rng, share),
  );
});

Deno.test("rollback-past: after another tool's first writes, the peer runs, the API clone syncs, dies twice in runs, the peer runs twice and moves the marker back, then the clone pushes its marker", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  forEachBlock((ops, rng) => insertRollbackPast(ops, kinds, rng, 1), (block) => {
    const runs = block.filter((o) => o.kind === "run");
    const markers = block.filter((o) => o.kind === "marker");
    assert.equal(runs.length, 5);
    assert.equal(markers.length, 2);
    const clone = runs[1].clone;
    const peer = runs[0].clone;
    assert.notEqual(clone, peer);
    assert.equal(kinds[clone], "api", "the clone is driven through the API");
    assert.deepEqual(runs.map((r) => r.clone), [peer, clone, clone, peer, peer]);
    assert.ok(runs.every((r) => r.kind === "run" && r.same === true), "deterministic runs");
    assert.deepEqual(
      block.filter((o) => o.kind === "crash").map((o) => o.clone),
      [clone, clone],
    );
    const [back, forward] = markers;
    assert.ok(back.kind === "marker" && back.clone === peer && back.back && back.how === "push");
    assert.ok(
      forward.kind === "marker" && forward.clone === clone && !forward.back &&
        forward.how === "push",
    );
    assert.ok(block.indexOf(back) < block.indexOf(forward), "the rollback comes first");
  });
});
