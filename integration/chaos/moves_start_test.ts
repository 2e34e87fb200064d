/**
 * What the moves inserted at a history's start draw alike: the ids and
 * ticks, the clones taken, and the steps several moves open with, each
 * drawn in a fixed order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { foreign, SEEDS, sync } from "./moves_kit.ts";
import {
  apiPair,
  blockIds,
  cutOffRun,
  lostVersions,
  oldMachineFiles,
  oldPullWindow,
  PAST_LOCK_TTL_MS,
  unpushedRuns,
} from "./moves_start.ts";
import { Rng } from "./prng.ts";

/** The kinds of `ops` but ticks, in order. */
const steps = (ops: readonly Op[]) => ops.filter((o) => o.kind !== "tick").map((o) => o.kind);

/** Asserts `ops`' ids are `from`, `from + 1`, … in order. */
function assertIdsFrom(ops: readonly Op[], from: number): void {
  assert.deepEqual(ops.map((o) => o.id), ops.map((_, i) => from + i));
}

Deno.test("blockIds: ids after the highest one in the history, and ticks that draw their steps, then their pick, as they are made", () => {
  const rng = new Rng(7);
  const twin = new Rng(7);
  const { id, tick } = blockIds([sync, { id: 9, kind: "sync", clone: 1 }, foreign], rng);
  assert.equal(rng.next(), twin.next(), "nothing drawn");
  assert.equal(id(), 10);
  assert.deepEqual(tick(), {
    id: 11,
    kind: "tick",
    n: twin.range(30, 60),
    pick: twin.int(2 ** 31),
  });
  assert.deepEqual(tick(5, 20), {
    id: 12,
    kind: "tick",
    n: twin.range(5, 20),
    pick: twin.int(2 ** 31),
  });
  assert.equal(id(), 13);
});

Deno.test("apiPair: none with no operations, too few clones, its condition false, no clone driven through the API, or outside its share", () => {
  const cases: [Op[], readonly ClientKind[], number, boolean, number][] = [
    [[], ["api", "api"], 1, true, 2],
    [[sync], ["api"], 1, true, 2],
    [[sync], ["api", "api"], 1, true, 3],
    [[sync], ["api", "api"], 1, false, 2],
    [[sync], ["core", "core-single-phase"], 1, true, 2],
    [[sync], ["api", "api"], 0, true, 2],
  ];
  for (const [ops, kinds, share, ok, least] of cases) {
    for (let seed = 1; seed <= SEEDS; seed++) {
      assert.equal(apiPair(ops, kinds, new Rng(seed), share, ok, least), undefined);
    }
  }
  // Its condition false: not even the share drawn.
  const rng = new Rng(3);
  apiPair([sync], ["api", "api"], rng, 1, false);
  assert.equal(rng.next(), new Rng(3).next());
});

Deno.test("apiPair: the share, then the API clone from those, then another clone, with ids after the history's", () => {
  const kinds: ClientKind[] = ["core", "api", "core-single-phase", "api"];
  const others = new Set<number>();
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Rng(seed);
    const pair = apiPair([foreign, sync], kinds, rng, 1, true, 3)!;
    const twin = new Rng(seed);
    assert.ok(twin.chance(1));
    const api = twin.pick([1, 3]);
    const other = (api + twin.range(1, 3)) % 4;
    assert.deepEqual([pair.api, pair.other], [api, other]);
    assert.equal(rng.next(), twin.next(), "nothing else drawn");
    assert.equal(pair.id(), 2);
    others.add(pair.other);
  }
  assert.deepEqual([...others].sort(), [0, 1, 2, 3], "any other clone, the other API one too");
});

Deno.test("unpushedRuns: the peer syncs and runs, the clone syncs and dies in as many runs, then the peer runs again; further runs the same", () => {
  const ids = blockIds([sync], new Rng(1));
  const { block, run } = unpushedRuns(ids, 2, 0, 1, 0, 2);
  assertIdsFrom(block, 2);
  assert.deepEqual(steps(block), [
    "sync",
    "run",
    "sync",
    "run",
    "crash",
    "wait",
    "run",
    "crash",
    "wait",
    "run",
  ]);
  const runs = block.filter((o) => o.kind === "run");
  assert.deepEqual(runs.map((r) => [r.clone, r.workMs]), [[0, 0], [2, 600_000], [2, 600_000], [
    0,
    0,
  ]]);
  assert.ok(runs.every((r) => r.model === 1 && r.data === 0 && r.same === true));
  assert.ok(block.every((o) => o.kind !== "wait" || o.ms === PAST_LOCK_TTL_MS));
  const dying = block.filter((o) =>
    o.kind === "tick" && block[block.indexOf(o) - 1].kind === "run"
  );
  assert.ok(dying.slice(1, 3).every((t) => t.kind === "tick" && t.n >= 10 && t.n <= 30));
  assert.deepEqual(run(0), {
    id: block.length + 2,
    kind: "run",
    clone: 0,
    model: 1,
    data: 0,
    workMs: 0,
    same: true,
  });
});

Deno.test("cutOffRun and lostVersions: a sync, a committed run, a run cut off at its commit, the locks' TTL, then a working run that loses the cut-off run's version and its own", () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Rng(seed);
    const ids = blockIds([sync], rng);
    const target = { clone: 1, model: 0, data: 1 };
    const block = [...cutOffRun(ids, target), ...lostVersions(ids, rng, target)];
    assertIdsFrom(block, 2);
    assert.equal(steps(block).join(" "), "sync run crash run wait run lockless lockless");
    const crash = block.find((o) => o.kind === "crash")!;
    assert.deepEqual(crash, { id: crash.id, kind: "crash", clone: 1, at: "commit", queued: true });
    const runs = block.filter((o) => o.kind === "run");
    assert.deepEqual(runs.map((r) => [r.clone, r.model, r.data, r.workMs]), [
      [1, 0, 1, 0],
      [1, 0, 1, 0],
      [1, 0, 1, 30_000],
    ]);
    const lockless = block.filter((o) => o.kind === "lockless");
    assert.ok(lockless.every((o) => o.run === runs[2].id && o.indexed));
    assert.deepEqual(lockless.map((o) => o.below), [true, undefined]);
  }
});

Deno.test("oldMachineFiles: a third clone, a shared file and another one", () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { machine, file, gone } = oldMachineFiles(4, new Rng(seed), 2, 0);
    assert.ok(machine === 1 || machine === 3);
    assert.notEqual(gone, file);
  }
});

Deno.test("oldPullWindow: the machine pushes a file, deletes it cut off at its commit, and past the global lock's TTL its old client's pull stops for the peer", () => {
  const ids = blockIds([sync], new Rng(2));
  const block = oldPullWindow(ids, 2, 3, 0);
  assertIdsFrom(block, 2);
  assert.deepEqual(steps(block).slice(0, 3), ["edit", "crash", "delete"]);
  const [edit, crash, del] = block.filter((o) => o.kind !== "tick");
  assert.ok(edit.kind === "edit" && edit.clone === 2 && edit.file === 3 && edit.how === "push");
  assert.deepEqual(crash, { id: crash.id, kind: "crash", clone: 2, at: "commit", queued: true });
  assert.ok(del.kind === "delete" && del.clone === 2 && del.file === 3 && del.how === "push");
  assert.deepEqual(block.slice(-3).map((o) => o.kind), ["wait", "tick", "oldpull"]);
  assert.deepEqual(block.at(-1), { id: block.length + 1, kind: "oldpull", clone: 2, window: 0 });
});
