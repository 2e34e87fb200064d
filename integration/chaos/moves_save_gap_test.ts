/**
 * The save-gap move: which runs it marks, how a run's save and its step's
 * flush wait for each other, and one history of it.
 */
import assert from "node:assert/strict";
import { formatOp, generateHistory, type Op, parseHistory } from "./history.ts";
import { markSaveGap, SAVE_GAP_MAX_MS, SaveGap } from "./moves_save_gap.ts";
import { SimScheduler } from "./scheduler.ts";
import { runHistory } from "./workload.ts";

const strip = (ops: readonly Op[]) =>
  ops.map((o) => {
    if (o.kind !== "run") return o;
    const { saveGap: _, ...rest } = o;
    return rest;
  });

Deno.test("history: the save-gap move marks every parallel run of a share of histories, from a generator of its own, the other operations as they were", () => {
  let marked = 0;
  let byDefault = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const without = generateHistory(seed, { parallelShare: 1, saveGapShare: 0 });
    const h = generateHistory(seed, { parallelShare: 1, saveGapShare: 1 });
    assert.deepEqual(strip(h.ops), without.ops);
    for (const o of h.ops) {
      assert.equal(o.kind === "run" && o.saveGap === true, o.kind === "run" && !!o.parallel);
    }
    if (h.ops.some((o) => o.kind === "run" && o.saveGap)) marked++;
    if (
      generateHistory(seed, { parallelShare: 1 }).ops.some((o) => o.kind === "run" && o.saveGap)
    ) {
      byDefault++;
    }
    assert.deepEqual(parseHistory(JSON.stringify(h)), h);
  }
  assert.ok(marked > 150, `${marked} of 200 histories`);
  assert.ok(byDefault > 0 && byDefault < 30, `${byDefault} of 200 by default`);
  const ops: Op[] = [{
    id: 4,
    kind: "run",
    clone: 1,
    model: 0,
    data: 0,
    workMs: 0,
    parallel: true,
  }];
  markSaveGap(ops, 1, 1);
  assert.equal(formatOp(ops[0]), "#4 run c1 shell/cmd/m0/out work=0s parallel save-gap");
});

Deno.test("save gap: the step flushes once the run's save opens it, and the save goes on once that flush is over", async () => {
  const sched = new SimScheduler({ start: 0 });
  const gap = new SaveGap(sched.clock);
  const order: string[] = [];
  sched.spawn("step", "c0.0", async () => {
    assert.equal(await gap.opened(), true);
    order.push(`step flushes at ${sched.clock.now()}`);
    await sched.clock.sleep(5_000);
    gap.stepOver();
  });
  sched.spawn("run", "c0.0", async () => {
    await sched.clock.sleep(2_000);
    order.push("run marks");
    assert.equal(await gap.hold(), true);
    order.push(`run writes at ${sched.clock.now()}`);
  });
  await sched.startReady();
  while (sched.active().length > 0) assert.ok(await sched.stepInOrder());
  assert.deepEqual(order.slice(0, 2), ["run marks", "step flushes at 2000"]);
  const at = Number(order[2]?.replace("run writes at ", ""));
  assert.ok(at >= 7_000 && at <= 7_100, order.join(", "));
});

Deno.test("save gap: a run ending before its save lets the step flush; a step that never ends its flush holds the save no longer than the longest gap", async () => {
  const sched = new SimScheduler({ start: 0 });
  const closed = new SaveGap(sched.clock);
  const stuck = new SaveGap(sched.clock);
  const seen: unknown[] = [];
  sched.spawn("step", "c0.0", async () => {
    seen.push(await closed.opened());
  });
  sched.spawn("run", "c0.0", async () => {
    await sched.clock.sleep(1_000);
    closed.close();
    seen.push(await stuck.hold(), sched.clock.now() - 1_000);
  });
  await sched.startReady();
  while (sched.active().length > 0) assert.ok(await sched.stepInOrder());
  assert.equal(seen[0], false);
  assert.equal(seen[1], false);
  assert.ok((seen[2] as number) >= SAVE_GAP_MAX_MS && (seen[2] as number) < SAVE_GAP_MAX_MS + 200);
});

Deno.test("save gap: a core-driven parallel run saving as the tool does, its step flushing inside the save, has its version on every clone", async () => {
  const h = parseHistory(JSON.stringify({
    seed: 11,
    clones: 2,
    kinds: ["core", "api"],
    ops: [
      {
        id: 1,
        kind: "run",
        clone: 0,
        model: 0,
        data: 0,
        workMs: 1_000,
        parallel: true,
        saveGap: true,
      },
      { id: 2, kind: "tick", n: 40, pick: 3 },
    ],
  }));
  const r = await runHistory(h);
  assert.deepEqual(r.violations, []);
  assert.deepEqual([r.stats.saveGapRuns, r.stats.saveGapHits], [1, 1]);
});
