/**
 * A move inserted into a generated history from a generator of its own: a
 * peer's rollback of a `latest` marker that moved past the number a clone
 * synced, met by that clone's marker moved further forward.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair, unpushedRuns } from "./moves_start.ts";

/**
 * Inserts, in a share of histories with two clones or more, at their start
 * (after another tool's first writes): a peer syncs and runs a model's data
 * (deterministic runs: every clone's run of a version writes the same
 * bytes), and the clone, driven through the library's API, syncs: its
 * marker synced at that version (k). The clone runs the data twice (k+1,
 * k+2), its process dying each time while the run works: both versions and
 * the marker naming k+2 stay here, unpushed. Past the dead runs' lock, the
 * peer runs the data twice (k+1, k+2, the same bytes; its marker at k+2)
 * and its user moves the marker back one (to k+1: a rollback, held to I9).
 * The clone, which has not pulled since, sets its marker at its highest
 * version (k+2) and pushes it: a marker moved forward from k, further than
 * the datastore's k+1, which the peer reached by moving the marker back.
 * Written over unseen, the peer's rollback is lost (I9). From a generator
 * of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertRollbackPast(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  // Driven through the library's API: a core-driven clone pulls before it pushes.
  const pair = apiPair(ops, kinds, rng, share);
  if (!pair) return;
  const { api: clone, other: peer, id, tick } = pair;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  // Two runs of the clone's, each dying while it works: versions k+1 and
  // k+2 stay here, unpushed; then the peer's first run (k+1).
  const { block, run } = unpushedRuns(pair, clone, peer, model, data, 2);
  block.push(run(peer), tick());
  block.push(
    { id: id(), kind: "marker", clone: peer, model, data, back: true, how: "push" },
    tick(),
  );
  block.push({ id: id(), kind: "marker", clone, model, data, back: false, how: "push" }, tick());
  insertAtStart(ops, block);
}
