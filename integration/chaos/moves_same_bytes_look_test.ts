/**
 * The same-bytes-look move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR_OR_CONDITION } from "./moves_kit.ts";
import { insertSameBytesLook } from "./moves_same_bytes_look.ts";

Deno.test("same-bytes-look: nothing without ETag versions, with fewer than two clones driven through the API, or outside its share", () => {
  const one: [readonly ClientKind[], boolean, number] = [
    ["api", "core", "core-single-phase"],
    true,
    1,
  ];
  assertNothingInserted(
    [...WITHOUT_API_PAIR_OR_CONDITION, one],
    (ops, [kinds, etag, share], rng) => insertSameBytesLook(ops, kinds, etag, rng, share),
  );
});

Deno.test("same-bytes-look: a clone's create with its answer lost, its take-back armed to fail its look at the same bytes put back and stopped before its delete, a peer's sync going on as it goes on", () => {
  forEachBlock(
    (ops, rng) => insertSameBytesLook(ops, ["core", "api", "api"], true, rng, 1),
    (block) => {
      const steps = block.filter((o) => o.kind !== "tick" && o.kind !== "wait");
      assert.deepEqual(steps.map((o) => o.kind), [
        "crash",
        "edit",
        "sync",
        "blip",
        "stall",
        "delete",
        "sync",
        "stall",
        "sync",
        "sync",
      ]);
      const [lost, pushed, fetched, look, stop, takeBack, named, go, sync, other] = steps;
      assert.ok(pushed.kind === "edit" && pushed.how === "push" && pushed.clone !== 0);
      const clone = pushed.clone;
      assert.ok(lost.kind === "crash" && lost.clone === clone && lost.at === "answer");
      assert.ok(fetched.kind === "sync" && fetched.clone !== clone && fetched.clone !== 0);
      const peer = fetched.clone;
      assert.deepEqual(look, { id: look.id, kind: "blip", clone, call: "head", putBack: true });
      assert.ok(stop.kind === "stall" && stop.clone === clone && stop.on && stop.at === "withdraw");
      assert.ok(takeBack.kind === "delete" && takeBack.clone === clone && takeBack.how === "push");
      assert.equal(takeBack.file, pushed.file);
      assert.ok(named.kind === "sync" && named.clone === peer);
      assert.ok(go.kind === "stall" && go.clone === clone && !go.on);
      assert.ok(sync.kind === "sync" && sync.clone === clone);
      assert.ok(other.kind === "sync" && other.clone === peer);
      // Past the global lock's TTL before each of the peer's first two syncs.
      assert.equal(block[block.indexOf(fetched) - 2].kind, "wait");
      assert.equal(block[block.indexOf(named) - 1].kind, "wait");
      // The clone goes on while the peer's sync is under way: a short tick between.
      const between = block[block.indexOf(go) - 1];
      assert.ok(between.kind === "tick" && between.n <= 25);
    },
  );
});
