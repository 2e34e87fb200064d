/**
 * Shrinking a failing history: delta debugging over its operations (remove
 * chunks, halving the chunk size down to single operations), then smaller
 * parameters (fewer ticks per tick operation, no method-body time). A
 * candidate is kept when it still breaks the same invariant. Histories are
 * deterministic (see `scheduler.ts`), so a kept candidate reproduces.
 *
 * @module
 */
import type { History, Op } from "./history.ts";
import type { Invariant } from "./invariants.ts";

/** Options of {@link shrinkHistory}. */
export interface ShrinkOptions {
  /** Most candidate runs; default 400. */
  readonly maxRuns?: number;
  /** Wall-clock budget in ms; default 120 000. */
  readonly maxMs?: number;
}

/** What shrinking did. */
export interface ShrinkResult {
  /** The smallest failing history found. */
  readonly history: History;
  /** Candidates run. */
  readonly runs: number;
}

/**
 * Shrinks `history` while `fails(candidate)` reports `invariant` among its
 * violations.
 *
 * @example
 * ```ts
 * import { shrinkHistory } from "./shrink.ts";
 * import { generateHistory } from "./history.ts";
 * const h = generateHistory(3);
 * const small = await shrinkHistory(h, "I1", (c) => Promise.resolve(c.ops.length > 2 ? ["I1"] : []));
 * console.log(small.history.ops.length); // 3
 * ```
 */
export async function shrinkHistory(
  history: History,
  invariant: Invariant,
  fails: (candidate: History) => Promise<readonly Invariant[]>,
  options: ShrinkOptions = {},
): Promise<ShrinkResult> {
  const maxRuns = options.maxRuns ?? 400;
  const deadline = performance.now() + (options.maxMs ?? 120_000);
  let runs = 0;
  let best = history;
  const budgetLeft = () => runs < maxRuns && performance.now() < deadline;
  const attempt = async (ops: readonly Op[]): Promise<boolean> => {
    if (!budgetLeft()) return false;
    runs++;
    const candidate: History = { ...best, ops };
    if ((await fails(candidate)).includes(invariant)) {
      best = candidate;
      return true;
    }
    return false;
  };

  // Delta debugging over operations.
  let chunks = 2;
  while (best.ops.length >= 2 && budgetLeft()) {
    const size = Math.ceil(best.ops.length / chunks);
    let removed = false;
    for (let start = 0; start < best.ops.length && budgetLeft(); start += size) {
      const ops = [...best.ops.slice(0, start), ...best.ops.slice(start + size)];
      if (ops.length > 0 && await attempt(ops)) {
        removed = true;
        chunks = Math.max(chunks - 1, 2);
        break;
      }
    }
    if (!removed) {
      if (size <= 1) break;
      chunks = Math.min(best.ops.length, chunks * 2);
    }
  }

  // Smaller parameters, one operation at a time.
  for (let i = 0; i < best.ops.length && budgetLeft(); i++) {
    const op = best.ops[i];
    const smaller: Op[] = [];
    if (op.kind === "tick" && op.n > 1) {
      smaller.push({ ...op, n: Math.floor(op.n / 2) }, { ...op, n: op.n - 1 });
    }
    if (op.kind === "run" && op.workMs > 0) smaller.push({ ...op, workMs: 0 });
    if (op.kind === "wait" && op.ms > 1_000) smaller.push({ ...op, ms: Math.floor(op.ms / 2) });
    for (const s of smaller) {
      if (await attempt(best.ops.map((o, j) => (j === i ? s : o)))) {
        i--; // try shrinking the same operation further
        break;
      }
    }
  }
  return { history: best, runs };
}
