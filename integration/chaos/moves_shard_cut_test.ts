/**
 * The shard-cut move: where it inserts its block, which clones it takes,
 * and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR_OR_CONDITION } from "./moves_kit.ts";
import { insertShardCut } from "./moves_shard_cut.ts";

Deno.test("shard-cut: nothing on a v1 bucket, with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR_OR_CONDITION,
    (ops, [kinds, v2, share], rng) => insertShardCut(ops, kinds, v2, rng, share),
  );
});

Deno.test("shard-cut: the API clone's same-output run stops before its commit, a breakglass, the peer's same run armed to crash at its shard write, the run goes on, then another data name of that model and a listed sync", () => {
  const kinds: ClientKind[] = ["core", "api", "core-single-phase"];
  forEachBlock((ops, rng) => insertShardCut(ops, kinds, true, rng, 1), (block) => {
    const clone = 1;
    const kindsOf = block.filter((o) => o.kind !== "tick").map((o) => o.kind);
    assert.deepEqual(kindsOf, [
      "sync",
      "sync",
      "run",
      "stall",
      "breakglass",
      "crash",
      "run",
      "stall",
      "run",
      "sync",
    ]);
    const [stopped, same, other] = block.filter((o) => o.kind === "run") as Extract<
      Op,
      { kind: "run" }
    >[];
    assert.equal(stopped.clone, clone, "the clone is driven through the API");
    assert.notEqual(same.clone, clone);
    assert.ok(stopped.same && same.same && !other.same);
    assert.deepEqual([same.model, same.data], [stopped.model, stopped.data]);
    assert.equal(other.clone, clone);
    assert.equal(other.model, stopped.model);
    assert.notEqual(other.data, stopped.data);
    const [stop, resume] = block.filter((o) => o.kind === "stall") as Extract<
      Op,
      { kind: "stall" }
    >[];
    assert.deepEqual([stop.clone, stop.on, stop.at, stop.run], [clone, true, "commit", stopped.id]);
    assert.deepEqual([resume.clone, resume.on], [clone, false]);
    const crash = block.find((o) => o.kind === "crash")!;
    assert.deepEqual(crash, {
      id: crash.id,
      kind: "crash",
      clone: same.clone,
      at: "answer",
      queued: true,
    });
    const last = block.filter((o) => o.kind === "sync").at(-1)!;
    assert.ok(last.kind === "sync" && last.clone === clone);
    assert.deepEqual(last.listed, { model: stopped.model, data: stopped.data });
  });
});
