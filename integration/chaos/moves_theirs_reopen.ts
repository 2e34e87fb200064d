/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's `resolve --theirs` of a conflict of a shared file, inside which a
 * second process over its cache records a newer conflict of that file, and
 * whose pull then fails, the datastore unreachable. The resolution reopens
 * the conflict: the newer record must stay open as the other process saved
 * it, naming the copies set aside, never written over by the older record
 * the resolution read (I22, see `world_moves.ts`).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, type Op, SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair } from "./moves_start.ts";
import { editInPlaceConflict } from "./moves_shared_conflict.ts";

/**
 * Inserts, in a share of histories with two clones or more, one driven
 * through the API, at their start (after another tool's first writes): a
 * peer pushes an edit of a shared file, which the API clone syncs; its user
 * edits it by hand, the peer pushes another edit, and the clone syncs (a
 * conflict, its edit in place); the peer pushes a third edit (a newer
 * version of theirs). The clone's own process resolves the conflict
 * `--theirs`: in a third of them right after its take-in of the conflict
 * records, before it moves its copy aside (`aimed` alone), in a third right
 * before its clear of the record (`atClear`), else right after it, once its
 * pull took in what the cache synced (`afterClear`), the user writes another
 * edit at the path and a second process over the cache syncs to its end,
 * recording a conflict of it with the newer version of theirs; then the
 * datastore goes unreachable (`outageAfter`): the own pull fails, theirs is
 * not taken, and the resolution reopens the conflict. Once it ended, the
 * datastore answers again; the own process resolves what is left any way,
 * and syncs. From a generator of its own, with ids after every other
 * operation's, like {@link insertStalls}.
 */
export function insertTheirsReopen(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  const pair = apiPair(ops, kinds, rng, share);
  if (!pair) return;
  const { api: clone, other: peer, id, tick } = pair;
  const file = rng.int(SHARED_FILES.length);
  const when = rng.pick([{}, { atClear: true as const }, { afterClear: true as const }]);
  insertAtStart(ops, [
    ...editInPlaceConflict(pair, clone, peer, file),
    {
      id: id(),
      kind: "sync",
      clone,
      second: true,
      aimed: true,
      ...when,
      handBefore: file,
      outageAfter: true,
    },
    { id: id(), kind: "resolve", clone, pick: rng.int(8), how: "theirs" },
    tick(20, 60),
    { id: id(), kind: "outage", on: false },
    {
      id: id(),
      kind: "resolve",
      clone,
      pick: rng.int(8),
      how: rng.pick(["mine", "theirs", "merged"] as const),
    },
    tick(20, 40),
    { id: id(), kind: "sync", clone },
    tick(20, 40),
  ]);
}
