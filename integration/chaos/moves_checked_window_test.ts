/**
 * The checked-window move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { insertCheckedWindow } from "./moves_checked_window.ts";
import { Rng } from "./prng.ts";

const foreign: Op = { id: 0, kind: "foreign", what: "file", file: 0 };
const sync: Op = { id: 1, kind: "sync", clone: 0 };

Deno.test("checked-window: nothing without checked deletes, with one clone, with no clone driven through the API, or outside its share", () => {
  for (let seed = 1; seed <= 50; seed++) {
    const cases: [readonly ClientKind[], boolean, number][] = [
      [["api", "api"], false, 1],
      [["api"], true, 1],
      [["core", "core-single-phase"], true, 1],
      [["api", "api"], true, 0],
    ];
    for (const [kinds, checked, share] of cases) {
      const ops: Op[] = [sync];
      insertCheckedWindow(ops, kinds, checked, new Rng(seed), share);
      assert.deepEqual(ops, [sync]);
    }
  }
});

Deno.test("checked-window: the clone's push, its answer lost, the peer's sync, the clone's deletion stopped before its delete, the peer's sync editing between pull and push, the clone going on, the peer's checked sync", () => {
  const kinds: ClientKind[] = ["core", "api", "core-single-phase"];
  for (let seed = 1; seed <= 50; seed++) {
    const ops: Op[] = [foreign, sync];
    insertCheckedWindow(ops, kinds, true, new Rng(seed), 1);
    assert.equal(ops[0], foreign);
    assert.equal(ops.at(-1), sync);
    const block = ops.slice(1, -1);
    const ids = block.map((o) => o.id);
    assert.ok(ids.every((id) => id > 1), "ids after every other operation's");
    assert.equal(new Set(ids).size, ids.length);
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
  }
});
