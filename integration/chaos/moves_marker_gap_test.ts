/**
 * The marker-gap move: where it inserts its block, and what the block
 * does, in order.
 */
import assert from "node:assert/strict";
import type { Op } from "./history_ops.ts";
import { assertNothingInserted, SEEDS } from "./moves_kit.ts";
import { insertMarkerGap } from "./moves_marker_gap.ts";
import { Rng } from "./prng.ts";

Deno.test("marker-gap: nothing outside its share, without old clients on v1, or with one clone", () => {
  const cases: [number, boolean, number][] = [[2, true, 0], [2, false, 1], [1, true, 1]];
  assertNothingInserted(
    cases,
    (ops, [clones, oldV1, share], rng) => insertMarkerGap(ops, clones, oldV1, rng, share),
  );
});

Deno.test("marker-gap: a clone armed to stop past a marker's delete right before its push, an old client on another machine pulling right before the clone's next operation, then it goes on", () => {
  let afterCrash = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const history: Op[] = [
      { id: 0, kind: "foreign", what: "file", file: 0 },
      { id: 1, kind: "run", clone: 0, model: 0, data: 0, workMs: 0 },
      { id: 2, kind: "crash", clone: 1, at: "answer", queued: true },
      { id: 3, kind: "run", clone: 1, model: 0, data: 0, workMs: 0 },
      { id: 4, kind: "tick", n: 30, pick: 7 },
      { id: 5, kind: "sync", clone: 1 },
      { id: 6, kind: "sync", clone: 0 },
    ];
    const ops = [...history];
    insertMarkerGap(ops, 3, true, new Rng(seed), 1);
    assert.equal(ops.length, history.length + 4);
    assert.deepEqual(ops.filter((o) => o.id <= 6), history, "the others as they were");
    const arm = ops.findIndex((o) => o.id > 6);
    const stop = ops[arm];
    const push = ops[arm + 1];
    assert.ok(push.kind === "run" || push.kind === "sync");
    assert.ok(stop.kind === "stall" && stop.on && stop.at === "marker");
    assert.equal(stop.clone, push.clone);
    if (push.id >= 3) afterCrash++;
    const tail = ops.slice(arm + 2).filter((o) => o.id > 6);
    assert.deepEqual(tail.map((o) => o.kind), ["oldpull", "tick", "stall"]);
    const [pull, , on] = tail;
    assert.ok(pull.kind === "oldpull" && pull.clone !== push.clone);
    assert.ok(on.kind === "stall" && !on.on && on.clone === push.clone);
    const end = ops.indexOf(on);
    assert.deepEqual(ops.slice(ops.indexOf(pull), end + 1), tail, "together");
    const later = ops.slice(arm + 2, ops.indexOf(pull));
    assert.ok(
      later.every((o) => !("clone" in o) || o.clone !== push.clone),
      "before the clone's next operation",
    );
    assert.ok(ops[end + 1] === undefined || ("clone" in ops[end + 1]));
    assert.equal(new Set(ops.map((o) => o.id)).size, ops.length);
  }
  assert.ok(afterCrash > SEEDS / 2, "most before a crashed clone's push");
});
