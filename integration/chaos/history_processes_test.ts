/**
 * The history generator's moves on a clone's processes and its manifest
 * log: another process's write ahead cut off, a line of the log damaged (its
 * process restarted, or still open, or dying in its next save, or failing to
 * replace the log), and second processes over a clone's cache; each
 * inserted leaving the other operations as they were.
 *
 * @module
 */
import assert from "node:assert/strict";
import { formatOp, generateHistory, type Op } from "./history.ts";
import { generateBoth } from "./chaos_kit.ts";
import { INSERTS_OFF } from "./shares_off.ts";

Deno.test("history: another process's write ahead cut off part way is aimed after a peer's edit and the clone's sync, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids } = generateBoth(seed, { tornLogShare: 1 });
    const at = h.ops.findIndex((o) => o.kind === "torn");
    assert.ok(at > 0);
    inserted++;
    const torn = h.ops[at] as Extract<Op, { kind: "torn" }>;
    // Right after the clone's sync (whose download it is aimed at), a peer's edit pushed before.
    assert.deepEqual(h.ops[at - 1], { id: torn.id - 1, kind: "sync", clone: torn.clone });
    if (h.clones > 1) {
      const edit = h.ops[at - 3];
      assert.equal(edit.kind, "edit");
      assert.notEqual((edit as { clone: number }).clone, torn.clone);
    }
    assert.match(formatOp(torn), /another process over its cache, its disk full/);
    assert.equal(h.ops.filter((o) => !ids.has(o.id)).every((o) => o.id > Math.max(...ids)), true);
  }
  assert.equal(inserted, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "torn"));
});

Deno.test("history: a line of a clone's manifest log damaged on disk follows the clone's sync, aimed at the record of a file edited before it, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids } = generateBoth(seed, { damagedLogShare: 1 });
    const at = h.ops.findIndex((o) => o.kind === "damaged");
    assert.ok(at > 0);
    inserted++;
    const damaged = h.ops[at] as Extract<Op, { kind: "damaged" }>;
    // After the clone's sync (and its tick), or its user's deletion by hand of the aimed file.
    const before = h.ops[at - 1];
    if (before.kind === "delete") {
      assert.deepEqual(before, {
        id: damaged.id - 1,
        kind: "delete",
        clone: damaged.clone,
        file: damaged.file,
        how: "hand",
      });
    }
    const sync = h.ops[at - (before.kind === "delete" ? 3 : 2)];
    assert.deepEqual(sync, { id: sync.id, kind: "sync", clone: damaged.clone });
    // The file aimed at was edited before the sync, by the clone or a peer.
    const edits = h.ops.slice(0, at).filter((o) => !ids.has(o.id) && o.kind === "edit");
    assert.ok(edits.some((o) => (o as { file: number }).file === damaged.file));
    // Then the restarted process syncs.
    assert.deepEqual(h.ops[at + 1], { id: damaged.id + 1, kind: "sync", clone: damaged.clone });
    assert.match(formatOp(damaged), /a damaged disk block/);
    assert.equal(h.ops.filter((o) => !ids.has(o.id)).every((o) => o.id > Math.max(...ids)), true);
  }
  assert.equal(inserted, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: a line of a clone's manifest log damaged while its process stays open comes from a share of its own, followed by that process's next sync, the other operations as they were", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { damagedOpenShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged");
    assert.equal(damaged.length, 1);
    const op = damaged[0] as Extract<Op, { kind: "damaged" }>;
    assert.equal(op.open, true);
    const at = h.ops.indexOf(op);
    assert.deepEqual(h.ops[at + 1], { id: op.id + 1, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /another process writes a line ahead after it/);
    // The restarting move is drawn apart: its histories stay as they were.
    const restart = generateHistory(seed, { ...INSERTS_OFF, damagedLogShare: 1 });
    const both = generateHistory(seed, { ...INSERTS_OFF, damagedLogShare: 1, damagedOpenShare: 1 });
    const restartIds = new Set(restart.ops.map((o) => o.id));
    assert.deepEqual(both.ops.filter((o) => restartIds.has(o.id)), restart.ops);
  }
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: a process restarted on a damaged manifest log armed to die inside its next base's save comes from a share of its own, followed by its sync, the other operations as they were", () => {
  const how = new Set<string>();
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { saveCrashShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged") as Extract<Op, { kind: "damaged" }>[];
    assert.equal(damaged.length, 1);
    const op = damaged[0];
    assert.ok(op.dies === "log" || op.dies === "nolog");
    assert.equal(op.open, undefined);
    how.add(op.dies);
    const at = h.ops.indexOf(op);
    assert.deepEqual(h.ops[at + 1], { id: op.id + 1, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /dies inside the save its next sync makes/);
  }
  assert.deepEqual([...how].sort(), ["log", "nolog"]);
});

Deno.test("history: a process restarted on a damaged manifest log whose replacement of the log after its next base fails comes from a share of its own, followed by its own edit's push and its sync, the other operations as they were", () => {
  let armed = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { logFailShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged") as Extract<Op, { kind: "damaged" }>[];
    assert.equal(damaged.length, 1);
    const op = damaged[0];
    assert.equal(op.replaceFails, true);
    assert.equal(op.dies, undefined);
    assert.equal(op.open, undefined);
    const at = h.ops.indexOf(op);
    const edit = h.ops[at + 1];
    assert.ok(edit.kind === "edit" && edit.clone === op.clone && edit.how === "push");
    assert.equal(h.ops[at + 2].kind, "tick");
    assert.deepEqual(h.ops[at + 3], { id: h.ops[at + 3].id, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /its replacement of the log after a base its save writes fails/);
    armed++;
  }
  assert.equal(armed, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: second processes over a clone's cache are inserted from a generator of their own, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    // The share left unset draws second processes at its default.
    // Another tool's writes, vanishing objects, marks never written, own
    // lost writes and old clients' windows are left at their defaults.
    const { h, added } = generateBoth(seed, { sharedCacheShare: undefined }, {
      ...INSERTS_OFF,
      foreignShare: undefined,
      vanishShare: undefined,
      unwrittenShare: undefined,
      ownLostShare: undefined,
      oldWindowShare: undefined,
    });
    if (added.length === 0) continue;
    inserted++;
    for (const [i, o] of h.ops.entries()) {
      if (o.kind !== "sibling") continue;
      // Followed at once by the clone's own run or sync, then scheduling.
      const [next, tick] = h.ops.slice(i + 1, i + 3);
      assert.ok(next.kind === "run" || next.kind === "sync");
      assert.equal((next as { clone: number }).clone, o.clone);
      assert.equal(tick.kind, "tick");
      assert.match(formatOp(o), /a second process over its cache/);
    }
  }
  assert.ok(inserted > 5 && inserted < 45, `${inserted} of 200`);
});
