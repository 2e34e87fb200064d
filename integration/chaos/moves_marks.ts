/**
 * Marks set on a generated history's operations, each drawn per operation
 * (by its id) from a generator of its own: blind pushes and rewrites among
 * another tool's deletions, streamed, parallel and structural runs, and
 * structural commands of a second process over a cache.
 *
 * @module
 */
import { mixSeed, Rng } from "./prng.ts";
import type { ClientKind, Op } from "./history_ops.ts";

/**
 * Marks each deletion of a run's output that is no rewrite as an older
 * client's blind push (see the `vanish` {@link Op}) with chance `share`,
 * drawn per operation (by its id) from a generator of its own.
 */
export function markBlinds(ops: Op[], seed: number, share: number): void {
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "vanish" || op.run === undefined || op.rewrite) continue;
    if (new Rng(mixSeed(seed, 0x626c6e00 + op.id)).chance(share)) ops[i] = { ...op, blind: true };
  }
}

/**
 * Marks each deletion of a run's output as a rewrite of it instead (see the
 * `vanish` {@link Op}) with chance `share`, drawn per operation (by its id).
 */
export function markRewrites(ops: Op[], seed: number, share: number): void {
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "vanish" || op.run === undefined) continue;
    if (new Rng(mixSeed(seed, 0x72770000 + op.id)).chance(share)) ops[i] = { ...op, rewrite: true };
  }
}

/**
 * In a share of histories, marks about half the runs (not the deterministic
 * ones), each by its id, as streaming their output (see the `run` {@link Op}'s `streamed`); a run
 * of an API clone ignores it.
 */
export function markStreamed(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x73747265)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    // Drawn per operation (by its id): the same run is marked whatever else was inserted.
    if (op.kind !== "run" || op.same) continue;
    if (new Rng(mixSeed(seed, 0x73740000 + op.id)).chance(0.5)) ops[i] = { ...op, streamed: true };
  }
}

/**
 * In a share of histories, marks about half the runs (not the deterministic
 * nor the streamed ones), each by its id, as having another step of their workflow run beside
 * them in the same process (see the `run` {@link Op}'s `parallel`); a run of
 * an API clone ignores it.
 */
export function markParallel(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x70617261)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "run" || op.same || op.streamed) continue;
    if (new Rng(mixSeed(seed, 0x70610000 + op.id)).chance(0.5)) ops[i] = { ...op, parallel: true };
  }
}

/**
 * In a share of histories, marks about half the `parallel` runs, each by its
 * id, as having a structural command of their process run beside them (see
 * the `run` {@link Op}'s `structural`).
 */
/**
 * Makes, in a share of histories, half the second processes that push over
 * a core-driven clone's cache run a structural command instead (see the
 * `sibling` {@link Op}): a pull naming no model in another process than the
 * clone's runs, which hold their locks there. The clone's run that follows
 * it works 30 s, and the command starts within it, while the run's version
 * is written and not yet flushed; in half of them that run's lock is broken
 * soon after it starts and another clone runs the same model, publishing a
 * version of the number the run wrote, for the command's pull to find.
 */
export function markSiblingStructural(
  ops: Op[],
  seed: number,
  kinds: readonly ClientKind[],
  share: number,
): void {
  if (!new Rng(mixSeed(seed, 0x73696273 ^ 0x5354)).chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind !== "sibling" || op.how !== "push" || kinds[op.clone] === "api") continue;
    const rng = new Rng(mixSeed(seed, 0x73690000 + op.id));
    if (!rng.chance(0.5)) continue;
    ops[i] = { ...op, how: "structural", workMs: rng.pick([2_000, 8_000, 20_000]) };
    const next = ops[i + 1];
    if (next?.kind !== "run" || next.clone !== op.clone) continue;
    ops[i + 1] = { ...next, workMs: 30_000 };
    if (kinds.length < 2 || !rng.chance(0.5)) continue;
    const peer = (op.clone + 1 + rng.int(kinds.length - 1)) % kinds.length;
    ops.splice(
      i + 2,
      0,
      { id: id++, kind: "tick", n: rng.range(4, 16), pick: rng.int(2 ** 31) },
      { id: id++, kind: "breakglass", model: next.model },
      { id: id++, kind: "run", clone: peer, model: next.model, data: next.data, workMs: 0 },
    );
    i += 4;
  }
}

export function markStructural(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x73747275)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "run" || !op.parallel) continue;
    if (new Rng(mixSeed(seed, 0x73750000 + op.id)).chance(0.5)) {
      ops[i] = { ...op, structural: true };
    }
  }
}
