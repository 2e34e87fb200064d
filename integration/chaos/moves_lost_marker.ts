/**
 * A move inserted into a generated history with old clients from a
 * generator of its own: a core-driven clone (two-phase) whose run loses its
 * data version, and the one a run of its cut off at its commit uploaded
 * before, to another tool while an old client's push stands inside its
 * read-modify-write of the index (I35 looks at what that push writes back).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { blockIds, cutOffRun, lostVersions } from "./moves_start.ts";

/**
 * Inserts, in a share of histories with old clients and a core-driven
 * clone that flushes in two phases beside another clone, at their start
 * (after another tool's first writes): the clone syncs and runs a model's
 * data (a version committed, its `latest` marker with it); its next run of
 * that data dies between its uploads (the version, and the marker over the
 * committed one) and its commit's index update; past the TTL of the locks
 * the dead process held, it runs that data again, working 30 s. While it
 * works, its version written here and not flushed, another tool publishes
 * with its index entries a version at the number the cut-off run uploaded
 * and one at this run's (`lockless`, `below` first), and an old client on
 * the other clone's machine starts a push that stops between its read of
 * the index and its write (`window`). The run's preparation then throws its
 * lost versions: the marker's reset goes back to the committed one, so its
 * take-back of the cut-off run's marker upload puts the committed bytes
 * back and names them in the index, which must wait for the global lock
 * the old client holds. From a generator of its own, with ids after every
 * other operation's, like {@link insertStalls}.
 */
export function insertLostMarkerWindow(
  ops: Op[],
  kinds: readonly ClientKind[],
  oldClients: boolean,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !oldClients || !rng.chance(share)) return;
  const cores = kinds.flatMap((k, i) => k === "core" ? [i] : []);
  if (cores.length === 0 || kinds.length < 2) return;
  const ids = blockIds(ops, rng);
  const clone = rng.pick(cores);
  const machine = (clone + rng.range(1, kinds.length - 1)) % kinds.length;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const target = { clone, model, data };
  insertAtStart(ops, [
    ...cutOffRun(ids, target),
    ...lostVersions(ids, rng, target),
    // Aimed: the scheduler goes on until the old client read the index.
    { id: ids.id(), kind: "oldpush", clone: machine, window: clone },
    ids.tick(60, 120),
  ]);
}
