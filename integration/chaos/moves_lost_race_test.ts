/**
 * The lost-race move: where it inserts its block, which clones it takes,
 * and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR } from "./moves_kit.ts";
import { insertLostRace } from "./moves_lost_race.ts";

Deno.test("lost-race: nothing with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR,
    (ops, [kinds, share], rng) => insertLostRace(ops, kinds, rng, share),
  );
});

Deno.test("lost-race: after another tool's first writes, the peer runs, the API clone syncs and dies in three runs, the peer runs, then the clone's marker push beside the peer's run, then the clone's raced sync", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  const orders = new Set<string>();
  forEachBlock((ops, rng) => insertLostRace(ops, kinds, rng, 1), (block) => {
    const runs = block.filter((o) => o.kind === "run");
    const peer = runs[0].clone;
    const clone = runs[1].clone;
    assert.notEqual(clone, peer);
    assert.equal(kinds[clone], "api", "the clone is driven through the API");
    assert.deepEqual(runs.map((r) => r.clone), [peer, clone, clone, clone, peer, peer]);
    assert.ok(runs.every((r) => r.kind === "run" && r.same === true), "deterministic runs");
    assert.deepEqual(
      block.filter((o) => o.kind === "crash").map((o) => o.clone),
      [clone, clone, clone],
    );
    const marker = block.find((o) => o.kind === "marker")!;
    assert.ok(marker.kind === "marker" && marker.clone === clone && !marker.back);
    assert.equal(marker.how, "push");
    // The marker push and the peer's last run come one right after the other.
    const at = block.indexOf(marker);
    const last = block.indexOf(runs[5]);
    assert.equal(Math.abs(at - last), 1);
    orders.add(at < last ? "marker first" : "run first");
    const syncs = block.filter((o) => o.kind === "sync");
    const raced = syncs.at(-1)!;
    assert.ok(raced.kind === "sync" && raced.clone === clone);
    assert.ok(marker.kind === "marker");
    assert.deepEqual(raced.raced, { model: marker.model, data: marker.data });
    assert.ok(block.indexOf(raced) > Math.max(at, last));
    assert.ok(syncs.slice(0, -1).every((s) => s.kind === "sync" && !s.raced));
  });
  assert.equal(orders.size, 2, "both orders drawn");
});
