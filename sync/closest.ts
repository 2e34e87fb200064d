/**
 * The known name a mistyped one most likely means, for the "did you mean"
 * of a config key or a store URL's query parameter.
 *
 * @module
 */

/**
 * The name of `known` nearest to `name` by edit distance (case aside), when
 * within about a third of its length; undefined when none is that near.
 *
 * @example
 * ```ts
 * import { closest } from "./closest.ts";
 * closest("endpiont", ["bucket", "endpoint"]); // "endpoint"
 * ```
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
