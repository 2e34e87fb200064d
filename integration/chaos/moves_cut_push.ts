/**
 * A move inserted into a generated history from a generator of its own: a
 * run's push cut off once its uploads landed, the run pushing its version
 * once more under its lock after a breakglass took that lock, refused
 * while the datastore fails its looks at the uploads the first push left,
 * and the clone's next run of that data writing the same version number
 * again. A refusal that leaves those uploads without a word makes that run
 * meet them as a version published from here (`version_exists`), and the
 * version is published by nobody (I27).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiClones, blockIds } from "./moves_start.ts";

/** Fake milliseconds a run whose push was cut off waits before it pushes again. */
export const AGAIN_MS = 600_000;

/**
 * Inserts, in a share of histories with a clone driven through the API, at
 * their start (after another tool's first writes): the clone syncs, then
 * runs a model's data, pushing again after {@link AGAIN_MS} when its push
 * is cut off (the `run` {@link Op}'s `again`); its push stops once its
 * version's uploads landed, before the check of its lock that precedes its
 * commit (a `stall` at `commit`), and goes on in an outage, where that
 * check cannot read the lock: cut off. The clone's process stops while
 * the run waits; the store comes back, a breakglass takes the run's lock,
 * and the clone is armed to fail its next look at a file (a `blip` at
 * `head`); the process goes on, and the run's second push is refused
 * (`model_lock_lost`), its look at the first push's uploads failing. The clone then runs the same data again (the number its
 * refusal freed here) and syncs. From a generator of its own, with ids
 * after every other operation's, like {@link insertStalls}.
 */
export function insertCutPush(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  // Its run pushes again: a clone driven through the API.
  const apis = apiClones(kinds);
  if (apis.length === 0) return;
  const { id, tick } = blockIds(ops, rng);
  const clone = rng.pick(apis);
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const cut = id();
  const block: Op[] = [
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    { id: cut, kind: "run", clone, model, data, workMs: 0, again: AGAIN_MS },
    { id: id(), kind: "stall", clone, on: true, at: "commit", run: cut, pick: rng.int(2 ** 31) },
    { id: id(), kind: "outage", on: true },
    { id: id(), kind: "stall", clone, on: false },
    // Few decisions: enough for the push to fail, too few for the run's
    // wait to be over (fake time passes where nothing else is to do).
    tick(8, 12),
    // The clone's process stops, the run's wait with it, until the store is
    // back, its lock broken and its next look at a file armed to fail.
    { id: id(), kind: "stall", clone, on: true },
    { id: id(), kind: "outage", on: false },
    { id: id(), kind: "breakglass", model },
    tick(20, 40),
    { id: id(), kind: "blip", clone, call: "head" },
    { id: id(), kind: "stall", clone, on: false },
    tick(40, 80),
    { id: id(), kind: "run", clone, model, data, workMs: 0 },
    tick(40, 80),
    { id: id(), kind: "sync", clone },
    tick(20, 40),
  ];
  insertAtStart(ops, block);
}
