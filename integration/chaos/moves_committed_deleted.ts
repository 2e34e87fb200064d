/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's user deletes here the data version the committed `latest` marker
 * names, where the push cannot publish the marker here in its place (the
 * marker here names a version deleted here too), or a version the marker
 * here names, then resolves `--mine` a conflict whose side here is that
 * deletion. Sluice must hold the deletion: deleted, the committed marker
 * would name a version the datastore no longer holds (I7, I8, I14); and a
 * `--mine` that no push will publish must leave the conflict open (I39).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { blockIds } from "./moves_start.ts";

/**
 * Inserts, in a share of histories, at their start (after another tool's
 * first writes), one of two blocks, each opening with a clone's sync, its
 * run of a model's data (version k committed, the marker naming it synced)
 * and a second run of that data:
 *
 * - `both`: the second run is armed to crash at `answer` (version k+1 and
 *   the marker naming it committed, its answer lost); the clone's user
 *   then deletes here both versions (`delete` with `run` and `synced`) and
 *   pushes: the push takes k+1's uploads back, and the marker here, naming
 *   it, cannot be published in place of the committed one, which names k
 *   (the deletion of k is held: the version deleted is k).
 * - `under`: the second run is acknowledged (k+1, the marker naming it);
 *   the clone's user deletes that version here while the marker here names
 *   it (`delete` with `run` and `committed`) and pushes (the deletion is
 *   held: the version deleted is k+1).
 *
 * Then, once that push ended, another client of the layout publishes the
 * deleted version's `raw` again with other bytes (a `vanish` with
 * `rewrite` and `idle`); the clone syncs, its pull meeting that as a
 * conflict with the deletion, which its user resolves `--mine`; the clone
 * and another one sync.
 *
 * From a generator of its own, with ids after every other operation's,
 * like {@link insertStalls}.
 */
export function insertCommittedDeleted(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const { id, tick } = blockIds(ops, rng);
  const clone = rng.int(clones);
  const other = clones > 1 ? (clone + rng.range(1, clones - 1)) % clones : clone;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const both = rng.chance(0.5);
  const first = id();
  const block: Op[] = [
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    { id: first, kind: "run", clone, model, data, workMs: 0 },
    tick(20, 40),
  ];
  if (both) block.push({ id: id(), kind: "crash", clone, at: "answer", queued: true });
  const second = id();
  block.push({ id: second, kind: "run", clone, model, data, workMs: 0 }, tick(20, 40));
  const deleted = both ? first : second;
  block.push(
    both
      ? { id: id(), kind: "delete", clone, file: 0, how: "push", run: second, synced: first }
      : { id: id(), kind: "delete", clone, file: 0, how: "push", run: second, committed: true },
    tick(20, 40),
    // Once the deletion's push ended: I36 reads the store as it ends.
    { id: id(), kind: "vanish", file: 0, run: deleted, rewrite: true, idle: clone },
    tick(20, 40),
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    { id: id(), kind: "resolve", clone, pick: 0, how: "mine" },
  );
  block.push(
    tick(30, 60),
    { id: id(), kind: "sync", clone },
    tick(30, 60),
    { id: id(), kind: "sync", clone: other },
    tick(30, 60),
  );
  insertAtStart(ops, block);
}
