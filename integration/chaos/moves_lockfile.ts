/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's lockfile change kept as its pending delta (the transaction failed
 * in an outage, its local view written), a peer's transaction published
 * meanwhile, a pull here that meets both (a conflict at the lockfile), then
 * this clone's own transaction, which publishes its change merged into the
 * peer's copy and writes that copy here (I34 looks at what is left open).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import type { Op } from "./history_ops.ts";
import { sharedFilePair } from "./moves_bucket.ts";

/**
 * Inserts, in a share of histories with two clones or more, at their start
 * (after another tool's first writes): a clone publishes a lockfile entry;
 * in an outage its next lockfile change fails (kept as its pending delta,
 * its local copy holding it); the store back, a peer publishes an entry of
 * its own; the clone syncs, its pull meeting the lockfile changed here and
 * on the datastore; then its next transaction (a retry of the pending delta,
 * or a new change merged with it) publishes. Ticks between the steps let
 * each command end before the next clone's begins. From a generator of its
 * own, with ids after every other operation's, like {@link insertStalls}.
 */
export function insertLockfileRace(ops: Op[], clones: number, rng: Rng, share: number): void {
  const drawn = sharedFilePair(ops, clones, rng, share);
  if (!drawn) return;
  const { clone, other: peer, id, tick } = drawn;
  const set = (c: number): Op => {
    const n = id();
    return { id: n, kind: "lockfile", clone: c, set: `@chaos/ext-${n}` };
  };
  const block: Op[] = [
    set(clone),
    tick(30, 60),
    { id: id(), kind: "outage", on: true },
    set(clone),
    tick(60, 120),
    { id: id(), kind: "outage", on: false },
    tick(10, 20),
    set(peer),
    tick(30, 60),
    { id: id(), kind: "sync", clone },
    tick(30, 60),
  ];
  block.push(rng.chance(0.5) ? set(clone) : { id: id(), kind: "lockfile", clone }, tick(30, 60));
  const start = ops.findIndex((o) => o.kind !== "foreign");
  ops.splice(start < 0 ? ops.length : start, 0, ...block);
}
