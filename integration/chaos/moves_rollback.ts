/**
 * A move inserted into a generated history from a generator of its own: a
 * peer's rollback of a `latest` marker that moved past the number a clone
 * synced, met by that clone's marker moved further forward.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";

/** Fake time past a dead run's model lock's TTL, after which a peer's run takes the lock. */
const PAST_LOCK_TTL_MS = 31_000;

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
  const clones = kinds.length;
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  // Driven through the library's API: a core-driven clone pulls before it pushes.
  const apis = kinds.flatMap((k, i) => k === "api" ? [i] : []);
  if (apis.length === 0) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.pick(apis);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const tick = (): Op => ({ id: id++, kind: "tick", n: rng.range(30, 60), pick: rng.int(2 ** 31) });
  const run = (c: number, workMs = 0): Op => ({
    id: id++,
    kind: "run",
    clone: c,
    model,
    data,
    workMs,
    same: true,
  });
  const block: Op[] = [{ id: id++, kind: "sync", clone: peer }, tick(), run(peer), tick()];
  block.push({ id: id++, kind: "sync", clone }, tick());
  // Two runs of the clone's, each dying while it works (past the dead
  // run's lock, the next takes it): versions k+1 and k+2 stay here, unpushed.
  for (let i = 0; i < 2; i++) {
    block.push(run(clone, 600_000), {
      id: id++,
      kind: "tick",
      n: rng.range(10, 30),
      pick: rng.int(2 ** 31),
    });
    block.push({ id: id++, kind: "crash", clone }, {
      id: id++,
      kind: "wait",
      ms: PAST_LOCK_TTL_MS,
    });
  }
  block.push(run(peer), tick(), run(peer), tick());
  block.push(
    { id: id++, kind: "marker", clone: peer, model, data, back: true, how: "push" },
    tick(),
  );
  block.push({ id: id++, kind: "marker", clone, model, data, back: false, how: "push" }, tick());
  const start = ops.findIndex((o) => o.kind !== "foreign");
  ops.splice(start < 0 ? ops.length : start, 0, ...block);
}
