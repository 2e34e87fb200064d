/**
 * The committed-deleted move: where it inserts its block, and what each of
 * its two blocks does, in order.
 */
import assert from "node:assert/strict";
import type { Op } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock } from "./moves_kit.ts";
import { insertCommittedDeleted } from "./moves_committed_deleted.ts";

Deno.test("committed-deleted: nothing outside its share", () => {
  assertNothingInserted([2, 3], (ops, clones, rng) => insertCommittedDeleted(ops, clones, rng, 0));
});

Deno.test("committed-deleted: a clone's two runs of one data name, then both versions deleted in one push after the second's answer was lost, or the second deleted under its marker, rewritten by another client and resolved --mine; then two syncs", () => {
  const seen = { both: 0, mine: 0 };
  forEachBlock((ops, rng) => insertCommittedDeleted(ops, 3, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick");
    const clone = steps[0].kind === "sync" ? steps[0].clone : -1;
    const runs = steps.filter((o) => o.kind === "run") as Extract<Op, { kind: "run" }>[];
    assert.equal(runs.length, 2);
    const [first, second] = runs;
    assert.ok(runs.every((r) => r.clone === clone && r.model === first.model));
    assert.equal(second.data, first.data);
    const kinds = steps.map((o) => o.kind);
    const deleted = steps.find((o) => o.kind === "delete")!;
    assert.ok(deleted.kind === "delete" && deleted.clone === clone && deleted.how === "push");
    assert.equal(deleted.run, second.id, "the second run's version");
    const [again, other] = steps.slice(-2);
    assert.ok(again.kind === "sync" && again.clone === clone);
    assert.ok(other.kind === "sync" && other.clone !== clone);
    if (kinds.includes("crash")) {
      seen.both++;
      assert.deepEqual(kinds, ["sync", "run", "crash", "run", "delete", "sync", "sync"]);
      const crash = steps[2];
      assert.ok(crash.kind === "crash" && crash.clone === clone && crash.at === "answer");
      assert.ok(crash.queued === true, "armed for the second run");
      assert.equal(deleted.synced, first.id, "and the version the marker synced names");
      assert.equal(deleted.committed, undefined);
      return;
    }
    seen.mine++;
    assert.deepEqual(kinds, [
      "sync",
      "run",
      "run",
      "delete",
      "vanish",
      "sync",
      "resolve",
      "sync",
      "sync",
    ]);
    assert.equal(deleted.committed, true, "under its marker");
    assert.equal(deleted.synced, undefined);
    const [rewrite, sync, resolve] = steps.slice(4, 7);
    assert.ok(rewrite.kind === "vanish" && rewrite.run === second.id && rewrite.rewrite);
    assert.equal(rewrite.idle, clone, "once the deletion's push ended");
    assert.ok(sync.kind === "sync" && sync.clone === clone);
    assert.ok(resolve.kind === "resolve" && resolve.clone === clone && resolve.how === "mine");
  });
  assert.ok(seen.both > 0 && seen.mine > 0, JSON.stringify(seen));
});
