/**
 * The rollback-past move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { insertRollbackPast } from "./moves_rollback.ts";
import { Rng } from "./prng.ts";

const foreign: Op = { id: 0, kind: "foreign", what: "file", file: 0 };
const sync: Op = { id: 1, kind: "sync", clone: 0 };

Deno.test("rollback-past: nothing with one clone, with no clone driven through the API, or outside its share", () => {
  for (let seed = 1; seed <= 50; seed++) {
    const one: Op[] = [sync];
    insertRollbackPast(one, ["api"], new Rng(seed), 1);
    assert.deepEqual(one, [sync]);
    const cores: Op[] = [sync];
    insertRollbackPast(cores, ["core", "core-single-phase"], new Rng(seed), 1);
    assert.deepEqual(cores, [sync]);
    const none: Op[] = [sync];
    insertRollbackPast(none, ["api", "api"], new Rng(seed), 0);
    assert.deepEqual(none, [sync]);
  }
});

Deno.test("rollback-past: after another tool's first writes, the peer runs, the API clone syncs, dies twice in runs, the peer runs twice and moves the marker back, then the clone pushes its marker", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  for (let seed = 1; seed <= 50; seed++) {
    const ops: Op[] = [foreign, sync];
    insertRollbackPast(ops, kinds, new Rng(seed), 1);
    assert.equal(ops[0], foreign);
    assert.equal(ops.at(-1), sync);
    const block = ops.slice(1, -1);
    const ids = block.map((o) => o.id);
    assert.ok(ids.every((id) => id > 1), "ids after every other operation's");
    assert.equal(new Set(ids).size, ids.length);
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
  }
});
