/**
 * A move inserted into a generated history from a generator of its own, on
 * a v1 bucket with old clients whose store's versions are the bytes' (S3
 * ETags): a take-back stopped before its delete, its global lock taken
 * over by an old client that writes the very bytes it takes back.
 *
 * @module
 */
import type { ClientKind, Op } from "./history_ops.ts";
import { SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiClones, blockIds, PAST_LOCK_TTL_MS } from "./moves_start.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of v1 histories with old clients, on a store whose
 * versions are the bytes' (`etag`), with a clone driven through the
 * library's API and another clone, at their start (after another tool's
 * first writes, so that the file is new to every clone): the clone, armed
 * to crash at `answer`, pushes a shared file (its commit lands, its answer
 * lost); past the TTL of the global lock its dead process held, it is
 * armed to stop at `withdraw` and deletes the file and pushes: its
 * take-back of its own upload takes the entry out, then stops before its
 * delete. Past the TTL of the global lock it holds, an old client on the
 * other clone's machine takes that lock over and pushes the very bytes the
 * clone took back at that path (`again`: the same version, by their ETag),
 * the first old client's write in the bucket. The clone then goes on, and
 * both sync. From a generator of its own, with ids after every other
 * operation's, like {@link insertStalls}.
 */
export function insertOldTakeBack(
  ops: Op[],
  kinds: readonly ClientKind[],
  etag: boolean,
  rng: Rng,
  share: number,
): void {
  const clones = kinds.length;
  if (ops.length === 0 || clones < 2 || !etag || !rng.chance(share)) return;
  const apis = apiClones(kinds);
  if (apis.length === 0) return;
  const ids = blockIds(ops, rng);
  const { id, tick } = ids;
  const clone = rng.pick(apis);
  const machine = (clone + rng.range(1, clones - 1)) % clones;
  const file = rng.int(SHARED_FILES.length);
  const first = id();
  insertAtStart(ops, [
    { id: id(), kind: "crash", clone, at: "answer", queued: true },
    { id: first, kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    tick(20, 40),
    { id: id(), kind: "stall", clone, on: true, at: "withdraw" },
    { id: id(), kind: "delete", clone, file, how: "push" },
    tick(40, 80),
    // Past the TTL of the global lock the stopped push holds.
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    { id: id(), kind: "oldpush", clone: machine, file, again: { op: first, clone } },
    tick(40, 80),
    { id: id(), kind: "stall", clone, on: false },
    tick(40, 80),
    { id: id(), kind: "sync", clone },
    tick(40, 80),
    { id: id(), kind: "sync", clone: machine },
    tick(40, 80),
  ]);
}
