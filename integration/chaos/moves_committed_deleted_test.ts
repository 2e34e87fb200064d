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

Deno.test("committed-deleted: a clone's two runs of one data name; both versions deleted in one push after the second's answer was lost, or the second deleted under its marker; the deleted version rewritten by another client once that push ended, met by a sync and resolved --mine; then two syncs", () => {
  const seen = { both: 0, under: 0 };
  forEachBlock((ops, rng) => insertCommittedDeleted(ops, 3, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick");
    const clone = steps[0].kind === "sync" ? steps[0].clone : -1;
    const runs = steps.filter((o) => o.kind === "run") as Extract<Op, { kind: "run" }>[];
    assert.equal(runs.length, 2);
    const [first, second] = runs;
    assert.ok(runs.every((r) => r.clone === clone && r.model === first.model));
    assert.equal(second.data, first.data);
    const both = steps.some((o) => o.kind === "crash");
    const tail = ["delete", "vanish", "sync", "resolve", "sync", "sync"];
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["sync", "run", ...(both ? ["crash"] : []), "run", ...tail],
    );
    const [deleted, rewrite, sync, resolve, again, other] = steps.slice(-6);
    assert.ok(deleted.kind === "delete" && deleted.clone === clone && deleted.how === "push");
    assert.equal(deleted.run, second.id, "the second run's version");
    if (both) {
      seen.both++;
      const crash = steps[2];
      assert.ok(crash.kind === "crash" && crash.clone === clone && crash.at === "answer");
      assert.ok(crash.queued === true, "armed for the second run");
      assert.equal(deleted.synced, first.id, "and the version the marker synced names");
      assert.equal(deleted.committed, undefined);
    } else {
      seen.under++;
      assert.equal(deleted.committed, true, "under its marker");
      assert.equal(deleted.synced, undefined);
    }
    assert.ok(rewrite.kind === "vanish" && rewrite.rewrite);
    assert.equal(rewrite.run, both ? first.id : second.id, "the version whose deletion is held");
    assert.equal(rewrite.idle, clone, "once the deletion's push ended");
    assert.ok(sync.kind === "sync" && sync.clone === clone);
    assert.ok(resolve.kind === "resolve" && resolve.clone === clone && resolve.how === "mine");
    assert.ok(again.kind === "sync" && again.clone === clone);
    assert.ok(other.kind === "sync" && other.clone !== clone);
  });
  assert.ok(seen.both > 0 && seen.under > 0, JSON.stringify(seen));
});
