/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's run whose commit lands with its answer lost (its version and the
 * `latest` marker naming it committed, recorded as synced nowhere), whose
 * version the clone's user then deletes here and pushes, the marker still
 * naming it here. The push takes the version's uploads back; I14 holds the
 * index to name no marker pointing at them.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { blockIds } from "./moves_start.ts";

/**
 * Inserts, in a share of histories, at their start (after another tool's
 * first writes): a clone syncs and, most often, runs a model's data (a
 * version committed, its marker with it: the marker the next is written
 * over; otherwise the next run's marker is the data's first); armed to
 * crash at `answer`, it runs that data again, its process dying as its
 * commit's index write lands (the version and the marker naming it
 * committed, its answer lost); its user then deletes that version's files
 * here (`delete` with `run`) and pushes, the marker here still naming it,
 * dirty (never recorded as synced); the clone and another one sync. From a
 * generator of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertMarkerTakenBack(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const { id, tick } = blockIds(ops, rng);
  const clone = rng.int(clones);
  const other = clones > 1 ? (clone + rng.range(1, clones - 1)) % clones : clone;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const block: Op[] = [{ id: id(), kind: "sync", clone }, tick(20, 40)];
  if (rng.chance(0.75)) {
    block.push({ id: id(), kind: "run", clone, model, data, workMs: 0 }, tick(20, 40));
  }
  block.push({ id: id(), kind: "crash", clone, at: "answer", queued: true });
  const lost = id();
  block.push(
    { id: lost, kind: "run", clone, model, data, workMs: 0 },
    tick(20, 40),
    { id: id(), kind: "delete", clone, file: 0, how: "push", run: lost },
    tick(30, 60),
    { id: id(), kind: "sync", clone },
    tick(30, 60),
    { id: id(), kind: "sync", clone: other },
    tick(30, 60),
  );
  insertAtStart(ops, block);
}
