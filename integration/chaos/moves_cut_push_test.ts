/**
 * The cut-push move: where it inserts its block, which clone it takes, and
 * what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock } from "./moves_kit.ts";
import { AGAIN_MS, insertCutPush } from "./moves_cut_push.ts";

Deno.test("cut-push: nothing with no clone driven through the API, or outside its share", () => {
  const cases: [ClientKind[], number][] = [[["core", "core-single-phase"], 1], [["api"], 0]];
  assertNothingInserted(cases, (ops, [kinds, share], rng) => insertCutPush(ops, kinds, rng, share));
});

Deno.test("cut-push: the API clone's run stopped before its commit goes on in an outage, then, its process stopped while it waits, a breakglass and a look armed to fail, and a run of the same data", () => {
  const kinds: ClientKind[] = ["core", "api", "core-single-phase"];
  forEachBlock((ops, rng) => insertCutPush(ops, kinds, rng, 1), (block) => {
    const clone = 1;
    const kindsOf = block.filter((o) => o.kind !== "tick").map((o) => o.kind);
    assert.deepEqual(kindsOf, [
      "sync",
      "run",
      "stall",
      "outage",
      "stall",
      "stall",
      "outage",
      "breakglass",
      "blip",
      "stall",
      "run",
      "sync",
    ]);
    assert.ok(block.every((o) => !("clone" in o) || o.clone === clone), "the API clone's");
    const [cut, next] = block.filter((o) => o.kind === "run") as Extract<Op, { kind: "run" }>[];
    assert.equal(cut.again, AGAIN_MS, "it pushes again when cut off");
    assert.equal(next.again, undefined);
    assert.deepEqual([next.model, next.data], [cut.model, cut.data]);
    const stalls = block.filter((o) => o.kind === "stall") as Extract<Op, { kind: "stall" }>[];
    assert.deepEqual(stalls.map((o) => [o.on, o.at, o.run]), [
      [true, "commit", cut.id],
      [false, undefined, undefined],
      [true, undefined, undefined],
      [false, undefined, undefined],
    ]);
    const [stop, resume, pause, goOn] = stalls;
    // The outage spans the run's going on, and ends while its process is stopped.
    const at = (o: Op) => block.indexOf(o);
    const [down, up] = block.filter((o) => o.kind === "outage") as Extract<
      Op,
      { kind: "outage" }
    >[];
    assert.ok(down.on && !up.on);
    assert.ok(at(stop) < at(down) && at(down) < at(resume) && at(resume) < at(pause));
    assert.ok(at(pause) < at(up));
    const glass = block.find((o) => o.kind === "breakglass")!;
    assert.ok(glass.kind === "breakglass" && glass.model === cut.model && at(up) < at(glass));
    const blip = block.find((o) => o.kind === "blip")!;
    assert.ok(blip.kind === "blip" && blip.call === "head" && at(glass) < at(blip));
    assert.ok(at(blip) < at(goOn) && at(goOn) < at(next));
  });
});
