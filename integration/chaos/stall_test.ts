/**
 * The stall move: a clone's process stops (its store calls and timers wait
 * while fake time passes for the others), then goes on.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { formatOp, generateHistory, type Op, parseHistory } from "./history.ts";
import { SimScheduler } from "./scheduler.ts";
import { runHistory } from "./workload.ts";
import { STALL_OTHERS_OFF } from "./shares_off.ts";

Deno.test("scheduler: a stopped owner's calls are not released, by ticks or in order, until it goes on", async () => {
  const sched = new SimScheduler();
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  const order: string[] = [];
  for (const name of ["a", "b"]) {
    sched.spawn(name, name, async () => {
      await store.head(`${name}1`);
      order.push(`${name}1`);
      await store.head(`${name}2`);
      order.push(`${name}2`);
    });
  }
  await sched.startReady();
  sched.stop("a");
  assert.equal(sched.isStopped("a"), true);
  // r2 = 0 would pick a's call first; stopped, it is passed over.
  while (await sched.step(1, 0));
  assert.deepEqual(order, ["b1", "b2"]);
  assert.equal(await sched.stepInOrder(), false);
  sched.resume("a");
  while (await sched.stepInOrder());
  assert.deepEqual(order, ["b1", "b2", "a1", "a2"]);
  assert.equal(sched.active().length, 0);
});

Deno.test("scheduler: a stopped owner's timers wait while time passes; overdue, they fire once it goes on", async () => {
  const sched = new SimScheduler({ start: 0 });
  let beats = 0;
  const woke: string[] = [];
  const unit = sched.spawn("x", "x", async () => {
    sched.clock.setTimeout(() => beats++, 500);
    await sched.clock.sleep(1_000);
    woke.push("x");
  });
  sched.spawn("y", "y", async () => {
    await sched.clock.sleep(1_000);
    woke.push("y");
  });
  await sched.startReady();
  sched.stop("x");
  await sched.advanceBy(10_000);
  assert.deepEqual({ beats, woke }, { beats: 0, woke: ["y"] });
  // Its command budget does not count the 10 s it stood still.
  sched.resume("x");
  assert.equal(unit.startedAt, 10_000);
  await sched.advanceBy(0);
  assert.deepEqual({ beats, woke }, { beats: 1, woke: ["y", "x"] });
});

Deno.test("history: stalls are inserted from a generator of their own; a seed's other operations stay as they were", () => {
  let withStalls = 0;
  for (let seed = 1; seed <= 40; seed++) {
    // Reshapes, another tool's writes and the other inserted blocks, from generators of their own too, are left out here.
    const h = generateHistory(seed, STALL_OTHERS_OFF);
    const base = generateHistory(seed, { stallShare: 0, ...STALL_OTHERS_OFF }).ops;
    const last = Math.max(...base.map((o) => o.id));
    // What was inserted takes ids after every other operation's.
    const inserted = h.ops.filter((o) => o.id > last);
    assert.deepEqual(h.ops.filter((o) => o.id <= last), base);
    const stalls = inserted.filter((o) => o.kind === "stall");
    if (inserted.length === 0) continue;
    withStalls++;
    // Every stall starts stopped; beside stalls, only a move to v2 of a v1
    // bucket (and edits of one shared file around it) is inserted, for a
    // stop armed after a v1 index write; or, for a move stopped after its
    // read of the v1 index, a second move, time for its lock, and v2 commits.
    const first = stalls.find((o) => o.kind === "stall" && o.on);
    assert.ok(first);
    for (const o of inserted.filter((o) => o.kind !== "stall")) {
      assert.ok(
        ["migrate", "sync", "edit", "delete", "tick", "wait", "run"].includes(o.kind),
        o.kind,
      );
      assert.ok(!h.v2);
      assert.ok(stalls.some((s) => s.kind === "stall" && s.at !== undefined));
      if (o.kind === "run" || o.kind === "wait") {
        assert.ok(stalls.some((s) => s.kind === "stall" && s.at === "move"));
      }
    }
    assert.deepEqual(parseHistory(JSON.stringify(h)), h);
  }
  assert.ok(withStalls > 5 && withStalls < 35, `${withStalls} of 40 histories with stalls`);
  const op: Op = { id: 3, kind: "stall", clone: 1, on: true };
  assert.equal(formatOp(op), "#3 stall c1 stops");
  assert.equal(formatOp({ ...op, on: false }), "#3 stall c1 goes on");
});

Deno.test("history: an armed stall stops a clone right after its v1 index write, before the shards and meta beside it", async () => {
  const lines: string[] = [];
  const h = parseHistory(JSON.stringify({
    seed: 7,
    clones: 2,
    ops: [
      { id: 1, kind: "stall", clone: 0, on: true, at: "companions" },
      { id: 2, kind: "edit", clone: 0, file: 0, how: "push" },
      { id: 3, kind: "tick", n: 40, pick: 11 },
      { id: 4, kind: "migrate", clone: 1 },
      { id: 5, kind: "tick", n: 40, pick: 12 },
      { id: 6, kind: "stall", clone: 0, on: false },
    ],
  }));
  const r = await runHistory(h, { trace: (l) => lines.push(l) });
  assert.deepEqual(r.violations, []);
  assert.equal(r.stats.companionStalls, 1, lines.join("\n"));
  const stop = lines.findIndex((l) =>
    /c0 stops after its v1 index write \(.* on (get|head|put) _index\//.test(l)
  );
  assert.ok(stop >= 0, lines.join("\n"));
  assert.equal(formatOp(h.ops[0]), "#1 stall c0 stops after its next v1 index write");
});

Deno.test("history: a move armed to stop stops right after reading the v1 index, before its shard writes", async () => {
  const lines: string[] = [];
  const h = parseHistory(JSON.stringify({
    seed: 7,
    clones: 2,
    ops: [
      { id: 1, kind: "run", clone: 1, model: 0, data: 0, workMs: 0 },
      { id: 2, kind: "tick", n: 40, pick: 11 },
      { id: 3, kind: "stall", clone: 0, on: true, at: "move" },
      { id: 4, kind: "migrate", clone: 0 },
      { id: 5, kind: "tick", n: 40, pick: 12 },
      { id: 6, kind: "stall", clone: 0, on: false },
      { id: 7, kind: "tick", n: 40, pick: 13 },
    ],
  }));
  const r = await runHistory(h, { trace: (l) => lines.push(l) });
  assert.deepEqual(r.violations, []);
  assert.equal(r.stats.moveStalls, 1, lines.join("\n"));
  const stop = lines.findIndex((l) =>
    /c0 stops after its move read the v1 index \(.* on (put|delete|get|list) _index\//.test(l)
  );
  assert.ok(stop >= 0, lines.join("\n"));
  assert.equal(formatOp(h.ops[2]), "#3 stall c0 stops after its move reads the v1 index");
});
