import assert from "node:assert/strict";
import { insertBlips } from "./moves_blip.ts";
import { RESHAPED_FILES } from "./moves_bucket.ts";
import type { Op } from "./history_ops.ts";
import { Rng } from "./prng.ts";

/**
 * A history's operations drawn from `seed`: another tool's first writes (none
 * to three) at the start, then syncs and edits of `clones` clones, with an
 * outage on and off now and then.
 */
function history(seed: number, clones: number): Op[] {
  const rng = new Rng(seed);
  const ops: Op[] = [];
  let id = 0;
  for (let n = rng.int(4); n > 0; n--) ops.push({ id: id++, kind: "foreign", what: "file" });
  let down = false;
  for (let n = rng.range(1, 30); n > 0; n--) {
    if (rng.chance(0.15)) {
      down = !down;
      ops.push({ id: id++, kind: "outage", on: down });
    } else if (rng.chance(0.5)) ops.push({ id: id++, kind: "sync", clone: rng.int(clones) });
    else ops.push({ id: id++, kind: "edit", clone: rng.int(clones), file: 0, how: "push" });
  }
  if (down) ops.push({ id: id++, kind: "outage", on: false });
  return ops;
}

/** The operations `insertBlips` added to `before` in `after`, in the order they were made (by id). */
function added(before: readonly Op[], after: readonly Op[]): Op[] {
  const ids = new Set(before.map((o) => o.id));
  return after.filter((o) => !ids.has(o.id)).sort((a, b) => a.id - b.id);
}

/** `added`'s moves cut into the blocks `insertBlips` made, each a blip's. */
function blocks(moves: readonly Op[]): Op[][] {
  const out: Op[][] = [];
  for (let i = 0; i < moves.length;) {
    const n = moves[i].kind === "edit" ? 8 : 2;
    out.push(moves.slice(i, i + n));
    i += n;
  }
  return out;
}

const SEEDS = 300;

Deno.test("blips: none with the share 0, nor in an empty history", () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const ops = history(seed, 1 + seed % 3);
    const before = structuredClone(ops);
    insertBlips(ops, 1 + seed % 3, new Rng(seed), 0);
    assert.deepEqual(ops, before, `seed ${seed}`);
    const none: Op[] = [];
    insertBlips(none, 2, new Rng(seed), 1);
    assert.deepEqual(none, []);
  }
});

Deno.test("blips: with the share 1, one or two in every history, the other operations as they were and the ids after theirs", () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const clones = 1 + seed % 3;
    const ops = history(seed, clones);
    const before = structuredClone(ops);
    insertBlips(ops, clones, new Rng(seed), 1);
    const ids = new Set(before.map((o) => o.id));
    assert.deepEqual(ops.filter((o) => ids.has(o.id)), before, `seed ${seed}`);
    const moves = added(before, ops);
    const max = Math.max(...before.map((o) => o.id));
    assert.deepEqual(moves.map((o) => o.id), moves.map((_, i) => max + 1 + i), `seed ${seed}`);
    const blips = moves.filter((o) => o.kind === "blip");
    assert.ok(blips.length === 1 || blips.length === 2, `seed ${seed}: ${blips.length} blips`);
    for (const b of blips) assert.ok(b.kind === "blip" && b.clone >= 0 && b.clone < clones);
  }
});

Deno.test("blips: each alone, or after two notes/ files edited, replaced by directories and marked by name, a config edit after it, all on one clone", () => {
  let bare = 0;
  let reshaped = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const ops = history(seed, 3);
    const before = structuredClone(ops);
    insertBlips(ops, 3, new Rng(seed), 1);
    for (const block of blocks(added(before, ops))) {
      const blip = block.find((o) => o.kind === "blip");
      assert.ok(blip?.kind === "blip", `seed ${seed}`);
      assert.ok(block.every((o) => !("clone" in o) || o.clone === blip.clone), `seed ${seed}`);
      const kinds = block.map((o) => o.kind);
      if (block.length === 2) {
        bare++;
        assert.deepEqual(kinds, ["blip", "tick"], `seed ${seed}`);
        continue;
      }
      reshaped++;
      assert.deepEqual(
        kinds,
        ["edit", "edit", "tick", "reshape", "reshape", "blip", "config", "tick"],
        `seed ${seed}`,
      );
      const edits = block.filter((o) => o.kind === "edit");
      const reshapes = block.filter((o) => o.kind === "reshape");
      const files = edits.map((o) => o.file);
      assert.notEqual(files[0], files[1], `seed ${seed}`);
      assert.ok(files.every((f) => RESHAPED_FILES.includes(f)), `seed ${seed}`);
      assert.deepEqual(reshapes.map((o) => o.file), files, `seed ${seed}`);
      assert.ok(reshapes.every((o) => o.kind === "reshape" && o.how === "mark"), `seed ${seed}`);
      // A deletion's blip meets files pushed (synced); a write's, files made by hand.
      const how = blip.call === "delete" ? "push" : "hand";
      assert.ok(edits.every((o) => o.kind === "edit" && o.how === how), `seed ${seed}`);
    }
  }
  // Most come with the reshaped files.
  assert.ok(reshaped > bare && bare > 0, `${reshaped} reshaped, ${bare} alone`);
});

Deno.test("blips: never before another tool's first writes, nor while an outage is on or with one in the next few operations", () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const ops = history(seed, 2);
    const before = structuredClone(ops);
    insertBlips(ops, 2, new Rng(seed), 1);
    const ids = new Set(before.map((o) => o.id));
    const lastForeign = ops.findLastIndex((o) => o.kind === "foreign");
    let down = false;
    ops.forEach((o, i) => {
      if (o.kind === "outage") down = o.on;
      if (ids.has(o.id)) return;
      assert.ok(i > lastForeign, `seed ${seed}: op ${o.id} before another tool's writes`);
      assert.ok(!down, `seed ${seed}: op ${o.id} while an outage is on`);
      const next = ops.slice(i + 1).filter((p) => ids.has(p.id)).slice(0, 3);
      assert.ok(
        next.every((p) => p.kind !== "outage"),
        `seed ${seed}: an outage soon after op ${o.id}`,
      );
    });
  }
});
