/**
 * The checked-window move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind } from "./history_ops.ts";
import { insertCheckedWindow } from "./moves_checked_window.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR_OR_CONDITION } from "./moves_kit.ts";

Deno.test("checked-window: nothing without checked deletes, with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR_OR_CONDITION,
    (ops, [kinds, checked, share], rng) => insertCheckedWindow(ops, kinds, checked, rng, share),
  );
});

Deno.test("checked-window: the clone's push, its answer lost, the peer's sync, the clone's deletion stopped before its delete, the peer's sync editing between pull and push, the clone going on, the peer's checked sync", () => {
  const kinds: ClientKind[] = ["core", "api", "core-single-phase"];
  forEachBlock((ops, rng) => insertCheckedWindow(ops, kinds, true, rng, 1), (block) => {
    const peer = 1;
    const steps = block.filter((o) => o.kind !== "tick");
    assert.deepEqual(steps.map((o) => o.kind), [
      "crash",
      "edit",
      "sync",
      "stall",
      "delete",
      "sync",
      "stall",
      "sync",
    ]);
    const [crash, edit, first, stop, del, editing, resume, checked] = steps;
    assert.ok(crash.kind === "crash" && crash.at === "answer" && crash.queued);
    const clone = crash.clone;
    assert.notEqual(clone, peer);
    assert.ok(edit.kind === "edit" && edit.clone === clone && edit.how === "push");
    assert.ok(first.kind === "sync" && first.clone === peer && first.edit === undefined);
    assert.ok(stop.kind === "stall" && stop.clone === clone && stop.on && stop.at === "withdraw");
    assert.ok(del.kind === "delete" && del.clone === clone && del.how === "push");
    assert.equal(del.file, edit.file);
    assert.ok(editing.kind === "sync" && editing.clone === peer && editing.edit === edit.file);
    assert.ok(resume.kind === "stall" && resume.clone === clone && !resume.on);
    assert.ok(checked.kind === "sync" && checked.clone === peer && checked.named === edit.file);
  });
});
