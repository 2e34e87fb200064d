/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's `latest` marker, moved forward further than a peer's, whose write
 * may lose the race to the peer's marker moved forward meanwhile (it stays
 * dirty, its version files published above the peer's marker), met by that
 * clone's pull before its next push; and I38, what that pull may record.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import { markerNumber, markerNumberOfHash } from "../../sync/marker_numbers.ts";
import type { PullResult } from "../../sync/service/pull_result.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { CommandEnv } from "./commands.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair, unpushedRuns } from "./moves_start.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of histories with two clones or more, at their start
 * (after another tool's first writes): a peer syncs and runs a model's data
 * (deterministic runs: every clone's run of a version writes the same
 * bytes), and the clone, driven through the library's API, syncs: its
 * marker synced at that version (k). The clone runs the data three times
 * (k+1 to k+3), its process dying each time while the run works: the
 * versions and the marker naming k+3 stay here, unpushed. Past the dead
 * runs' lock, the peer runs the data (k+1, its marker pushed there). Then,
 * at once, in an order drawn, the clone sets its marker at its highest
 * version and pushes it (moved forward from k, further than the
 * datastore's: written over it as a compare-and-swap), and the peer runs
 * the data again (k+2, its marker moved forward from k+1): where the peer's
 * marker lands between the clone's read of the datastore's and its write,
 * the clone's write loses the race and its marker stays dirty, its
 * versions published. The clone then syncs (a pull before its next push,
 * as a run of a core-driven clone makes under its model lock), marked
 * `raced` for I38. From a generator of its own, with ids after every other
 * operation's, like {@link insertStalls}.
 */
export function insertLostRace(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  // Driven through the library's API: its sync is a plain pull, then push.
  const pair = apiPair(ops, kinds, rng, share);
  if (!pair) return;
  const { api: clone, other: peer, id, tick } = pair;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const { block, run } = unpushedRuns(pair, clone, peer, model, data, 3);
  const marker: Op = { id: id(), kind: "marker", clone, model, data, back: false, how: "push" };
  const again = run(peer);
  block.push(...(rng.chance(0.5) ? [marker, again] : [again, marker]));
  block.push(tick(60, 120), tick(), { id: id(), kind: "sync", clone, raced: { model, data } });
  block.push(tick());
  insertAtStart(ops, block);
}

/**
 * `pull`, the pull of clone `clone`'s sync marked `raced` (see
 * {@link insertLostRace}), held to I38: where the marker of
 * `data/<model>/<data>` here names a higher version than the one this clone
 * synced, it records no new conflict there whose datastore copy names a
 * version between the two (moved forward too, less far) that no user's
 * rollback wrote (`truth.markerRollbacks`): a version listed above the
 * peer's marker that this cache's own push published is none the peer
 * moved back from. (A marker here at or below the datastore's, its runs
 * having died before they wrote their versions, is a conflict by design.)
 */
export async function racedPull(
  env: CommandEnv,
  svc: SyncService,
  clone: number,
  raced: { readonly model: number; readonly data: number },
  pull: () => Promise<PullResult>,
): Promise<PullResult> {
  const path = `data/${MODELS[raced.model]}/${DATA_NAMES[raced.data]}/latest`;
  const open = svc.conflicts().some((r) => r.path === path);
  const bytes = await Deno.readFile(`${svc.cacheDir}/${path}`).catch(() => null);
  const synced = svc.state.synced(path)?.hash;
  env.stats.racedPulls++;
  // Its marker still unpublished: its write lost the race (or met a conflict).
  if (bytes && (await sha256Hex(bytes)) !== synced) env.stats.racedPullsHeld++;
  const mine = bytes ? markerNumber(bytes) : undefined;
  const r = await pull();
  const rec = svc.conflicts().find((c) => c.path === path && c.foundBy === "pull");
  if (open || !rec?.theirs || mine === undefined || synced === undefined) return r;
  if (env.truth.markerRollbacks.has(`${path}\0${rec.theirs.hash}`)) return r;
  // Both moved forward from the one synced here, this one further.
  const base = await markerNumberOfHash(synced, mine);
  const theirs = await markerNumberOfHash(rec.theirs.hash, mine - 1);
  if (base === undefined || theirs === undefined || theirs <= base) return r;
  env.truth.violate({
    invariant: "I38",
    message:
      `c${clone}'s pull after its push of ${path} (at ${mine} here, synced at ${base}), moved forward further than a peer's (at ${theirs}; nobody moved it back), recorded a conflict there: ${rec.reason}`,
    afterOp: env.opId(),
  });
  return r;
}
