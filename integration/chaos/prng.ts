/**
 * A tiny seeded pseudo-random generator (mulberry32), so that a chaos history
 * and every choice made while running it follow from one number.
 *
 * @module
 */

/**
 * mulberry32: a 32-bit state generator returning numbers in [0, 1).
 *
 * @example
 * ```ts
 * import { mulberry32 } from "./prng.ts";
 * const next = mulberry32(42);
 * console.log(next(), next());
 * ```
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mixes several integers into one 32-bit seed (for derived generators: one
 * per clone incarnation, one per tick).
 *
 * @example
 * ```ts
 * import { mixSeed } from "./prng.ts";
 * mixSeed(7, 1, 0); // a stable 32-bit number
 * ```
 */
export function mixSeed(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
  }
  return h >>> 0;
}

/**
 * Convenience methods over {@link mulberry32}.
 *
 * @example
 * ```ts
 * import { Rng } from "./prng.ts";
 * const rng = new Rng(1);
 * rng.int(6); // 0..5
 * rng.pick(["a", "b"]);
 * ```
 */
export class Rng {
  readonly #next: () => number;

  /** A generator seeded with `seed`. */
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  /** A number in [0, 1). */
  next(): number {
    return this.#next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One key of `weights`, chosen in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((n, [, w]) => n + w, 0);
    let r = this.#next() * total;
    for (const [k, w] of entries) {
      if ((r -= w) < 0) return k;
    }
    return entries[entries.length - 1][0];
  }
}
