/**
 * What the tests of the chaos moves that insert one block share: the
 * history of two operations a move inserts its block between, the seeds
 * drawn, the histories a move leaves alone, the republished move's clones
 * and steps (the cut-take-back move inserts that block too), the check
 * that a move adds nothing where it must not, and the check that the block
 * stands between the two with ids of its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { Rng } from "./prng.ts";

/** How many seeds (1 to this) each test draws its histories from. */
export const SEEDS = 50;

/** Another tool's first write: the first operation of the history a block is inserted in. */
export const foreign: Op = { id: 0, kind: "foreign", what: "file", file: 0 };

/** A clone's sync: the last operation of that history, and the whole of a history left alone. */
export const sync: Op = { id: 1, kind: "sync", clone: 0 };

/**
 * The clones' kinds, and the share drawn at, of the histories a move that
 * takes two clones, one of them driven through the API, leaves alone: one
 * clone; no clone driven through the API; two it could take, outside its
 * share.
 */
export const WITHOUT_API_PAIR: readonly [readonly ClientKind[], number][] = [
  [["api"], 1],
  [["core", "core-single-phase"], 1],
  [["api", "api"], 0],
];

/**
 * The histories {@link WITHOUT_API_PAIR} names for a move that also needs a
 * condition of the bucket's (`true` here), after two clones it could take
 * without that condition (`false`).
 */
export const WITHOUT_API_PAIR_OR_CONDITION: readonly [readonly ClientKind[], boolean, number][] = [
  [["api", "api"], false, 1],
  ...WITHOUT_API_PAIR.map(([kinds, share]): [readonly ClientKind[], boolean, number] => [
    kinds,
    true,
    share,
  ]),
];

/**
 * The histories the republished move leaves alone (and so the
 * cut-take-back move, which inserts its block), as the clones' kinds, its
 * condition (ETag versions) and the share drawn at: without ETag versions;
 * two clones; fewer than two driven through the API; outside its share.
 */
const WITHOUT_REPUBLISHED: readonly [readonly ClientKind[], boolean, number][] = [
  [["api", "api", "core"], false, 1],
  [["api", "api"], true, 1],
  [["api", "core", "core"], true, 1],
  [["api", "api", "core"], true, 0],
];

/** Clones the republished move takes: two driven through the API, and two others. */
export const REPUBLISHED_KINDS: readonly ClientKind[] = ["api", "core", "api", "core-single-phase"];

/** The kinds of the republished move's steps in order, its ticks and waits left out. */
export const REPUBLISHED_STEPS: readonly Op["kind"][] = [
  "crash",
  "edit",
  "delete",
  "edit",
  "crash",
  "delete",
  "oldpull",
  "sync",
  "sync",
  "edit",
  "sync",
  "sync",
];

/** A move with the republished move's parameters (the cut-take-back move's too). */
export type RepublishedMove = (
  ops: Op[],
  kinds: readonly ClientKind[],
  etag: boolean,
  rng: Rng,
  share: number,
) => void;

/**
 * For every seed, `insert` leaves each history the republished move
 * leaves alone as it was (see {@link assertNothingInserted}).
 */
export function assertNothingRepublished(insert: RepublishedMove): void {
  assertNothingInserted(
    WITHOUT_REPUBLISHED,
    (ops, [kinds, etag, share], rng) => insert(ops, kinds, etag, rng, share),
  );
}

/**
 * For every seed, the block `insert` adds at a share of 1 with ETag
 * versions beside {@link REPUBLISHED_KINDS} (see {@link forEachBlock}),
 * its ticks and waits left out, handed to `check`.
 */
export function forEachRepublished(insert: RepublishedMove, check: (steps: Op[]) => void): void {
  forEachBlock(
    (ops, rng) => insert(ops, REPUBLISHED_KINDS, true, rng, 1),
    (block) => check(block.filter((o) => o.kind !== "tick" && o.kind !== "wait")),
  );
}

/**
 * For every seed, and each of `cases` in turn, `insert` (given a generator
 * drawn from the seed) leaves a history of one sync as it was.
 */
export function assertNothingInserted<C>(
  cases: readonly C[],
  insert: (ops: Op[], c: C, rng: Rng) => void,
): void {
  for (let seed = 1; seed <= SEEDS; seed++) {
    for (const c of cases) {
      const ops: Op[] = [sync];
      insert(ops, c, new Rng(seed));
      assert.deepEqual(ops, [sync]);
    }
  }
}

/**
 * For every seed, the block `insert` (given a generator drawn from the
 * seed) adds to the history `foreign`, `sync`: checked to stand between the
 * two, its ids after theirs and each its own, then handed to `check`.
 */
export function forEachBlock(
  insert: (ops: Op[], rng: Rng) => void,
  check: (block: Op[]) => void,
): void {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const ops: Op[] = [foreign, sync];
    insert(ops, new Rng(seed));
    assert.equal(ops[0], foreign);
    assert.equal(ops.at(-1), sync);
    const block = ops.slice(1, -1);
    const ids = block.map((o) => o.id);
    assert.ok(ids.every((id) => id > 1), "ids after every other operation's");
    assert.equal(new Set(ids).size, ids.length);
    check(block);
  }
}
