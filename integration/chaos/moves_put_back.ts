/**
 * A move inserted into a generated history from a generator of its own: a
 * run's version held back for a put-back that may come (the index names
 * other bytes at it whose objects another tool deleted), then written again
 * by the same clone once a pull took the dangling entries out, its commit's
 * answer lost, and deleted here.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op } from "./history_ops.ts";

/** Fake time past the dangling-entry grace (15 minutes) after which a pull takes such an entry out. */
export const PAST_DANGLING_GRACE_MS = 16 * 60_000;

/**
 * Inserts, in a share of histories with two clones or more, at their start
 * (after another tool's first writes): a peer runs a model's data and
 * publishes its version; another tool deletes every file of that version
 * from the bucket (`vanish` with `whole`), the index naming them still; the
 * clone syncs (its pull sees the entries naming nothing and fetches none of
 * the version) and runs the same data, numbering its version the same: its
 * push creates nothing where the entries' writer's put-back may come, and
 * sets its copy aside (`version_exists`); its user removes the empty
 * version directory left here. Past the dangling-entry grace, the clone
 * syncs (its pull takes the entries out) and runs that data again, the same
 * number, its process dying as its commit's index write lands (its answer
 * lost); its user then deletes that version's files here and pushes them
 * by name. The push must take its own uploads back, and no pull bring the
 * files back (I6: the deletions are its user's). From a generator of its own,
 * with ids after every other operation's, like {@link insertStalls}.
 */
export function insertPutBackLost(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const tick = (): Op => ({ id: id++, kind: "tick", n: rng.range(30, 60), pick: rng.int(2 ** 31) });
  const run = (c: number): Op => ({ id: id++, kind: "run", clone: c, model, data, workMs: 0 });
  const published = run(peer);
  const block: Op[] = [published, tick()];
  block.push({ id: id++, kind: "vanish", file: 0, run: published.id, whole: true });
  const lost = run(clone);
  block.push({ id: id++, kind: "sync", clone }, tick(), lost, tick());
  block.push({ id: id++, kind: "delete", clone, file: 0, how: "hand", run: lost.id });
  block.push({ id: id++, kind: "wait", ms: PAST_DANGLING_GRACE_MS });
  block.push({ id: id++, kind: "sync", clone }, tick());
  block.push({ id: id++, kind: "crash", clone, at: "answer", queued: true });
  const again = run(clone);
  block.push(again, tick());
  block.push({ id: id++, kind: "delete", clone, file: 0, how: "push", run: again.id }, tick());
  block.push({ id: id++, kind: "sync", clone }, tick());
  const start = ops.findIndex((o) => o.kind !== "foreign");
  ops.splice(start < 0 ? ops.length : start, 0, ...block);
}
