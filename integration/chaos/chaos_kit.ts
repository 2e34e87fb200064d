/**
 * What the chaos checker's tests share: the report of histories that broke
 * an invariant, and the checks that a move drawn from a generator of its
 * own leaves a seed's other operations as they were.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  formatHistory,
  generateHistory,
  type GenerateOptions,
  type History,
  type Op,
} from "./history.ts";
import type { HistoryResult } from "./workload.ts";
import { INSERTS_OFF } from "./shares_off.ts";

/** Each history in `results`, the invariants it broke, and how to reproduce it. */
export function describe(results: readonly HistoryResult[]): string {
  return results.map((r) =>
    `${formatHistory(r.history)}\n${
      r.violations.map((v) => `  ${v.invariant}: ${v.message}`).join("\n")
    }\nreproduce and shrink: deno task chaos --seed ${r.history.seed}`
  ).join("\n\n");
}

/**
 * The history of `seed` with `on` over `base`, once checked that the
 * operations of the history without it are all there, in order, as they
 * were; with the history without, their ids, and the operations added.
 */
export function generateBoth(
  seed: number,
  on: GenerateOptions,
  base: GenerateOptions = INSERTS_OFF,
) {
  const without = generateHistory(seed, base);
  const h = generateHistory(seed, { ...base, ...on });
  const ids = new Set(without.ops.map((o) => o.id));
  assert.deepEqual(h.ops.filter((o) => ids.has(o.id)), without.ops);
  return { without, h, ids, added: h.ops.filter((o) => !ids.has(o.id)) };
}

/**
 * A move inserted at the start from a generator of its own, over seeds 1 to
 * `seeds`: the other operations as they were (`generateBoth`), nothing added
 * to a history `leftOut` holds for, and in the others the added operations
 * first, handed to `check` with those of them that are not ticks. Returns how many
 * histories got the move.
 */
export function insertedAtStart(
  on: GenerateOptions,
  leftOut: (h: History) => boolean,
  check: (inserted: { h: History; steps: Op[]; added: Op[] }) => void,
  { seeds = 200, base = INSERTS_OFF }: { seeds?: number; base?: GenerateOptions } = {},
): number {
  let inserted = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const { h, added } = generateBoth(seed, on, base);
    if (leftOut(h)) {
      assert.deepEqual(added, []);
      continue;
    }
    inserted++;
    assert.deepEqual(h.ops.slice(0, added.length), added, "at the start");
    check({ h, steps: added.filter((o) => o.kind !== "tick"), added });
  }
  return inserted;
}
