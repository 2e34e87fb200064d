/**
 * The republished move: where it inserts its block, which clones it takes,
 * and what the block does, in order.
 */
import assert from "node:assert/strict";
import {
  assertNothingRepublished,
  forEachRepublished,
  REPUBLISHED_KINDS,
  REPUBLISHED_STEPS,
} from "./moves_kit.ts";
import { insertRepublished } from "./moves_republished.ts";

Deno.test("republished: nothing without ETag versions, with two clones, with fewer than two clones driven through the API, or outside its share", () => {
  assertNothingRepublished(insertRepublished);
});

Deno.test("republished: a third clone's file taken back, the old client's pull stopped, the clone's sync writing those bytes again, the peer's sync, then its edit over the dropped entry", () => {
  const kinds = REPUBLISHED_KINDS;
  forEachRepublished(insertRepublished, (steps) => {
    assert.deepEqual(steps.map((o) => o.kind), REPUBLISHED_STEPS);
    const [answer, pushed, takenBack, , cut, , old, again, fetch, edit] = steps;
    assert.ok(answer.kind === "crash" && answer.at === "answer");
    assert.ok(cut.kind === "crash" && cut.at === "commit");
    assert.ok(pushed.kind === "edit" && pushed.how === "push");
    const machine = pushed.clone;
    assert.ok(takenBack.kind === "delete" && takenBack.clone === machine);
    assert.equal(takenBack.file, pushed.file);
    assert.ok(old.kind === "oldpull" && old.clone === machine);
    assert.ok(again.kind === "sync" && again.edit === pushed.file);
    assert.deepEqual(again.again, { op: pushed.id, clone: machine });
    assert.ok(edit.kind === "edit" && edit.dropped === true && edit.file === pushed.file);
    const peer = edit.clone;
    assert.ok(fetch.kind === "sync" && fetch.clone === peer);
    assert.equal(old.window, peer);
    assert.deepEqual(
      [kinds[again.clone], kinds[peer]],
      ["api", "api"],
      "the clone and the peer are driven through the API",
    );
    assert.ok(new Set([machine, again.clone, peer]).size === 3);
  });
});
