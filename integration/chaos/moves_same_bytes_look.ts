/**
 * A move inserted into a generated history from a generator of its own, on
 * a v1 bucket with old clients whose store's versions are the bytes' (S3
 * ETags): a take-back of a clone's own upload whose look, after its delete,
 * at the same bytes a peer put back there fails once.
 *
 * @module
 */
import type { ClientKind, Op } from "./history_ops.ts";
import { SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiClones, blockIds, PAST_LOCK_TTL_MS } from "./moves_start.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of v1 histories with old clients on a store whose
 * versions are the bytes' (`etag`), with two clones driven through the
 * library's API (the clone and its peer), at their start (after another tool's
 * first writes, so that the file is new to every clone): the clone, armed
 * to crash at `answer`, pushes a shared file (its commit lands, its answer
 * lost); past the TTL of the global lock its dead process held, the peer
 * syncs, fetching it. The clone is armed to fail once
 * its second look at a file's object since its delete of it, where the
 * store holds that object again (a `blip` at `head` with `putBack`), and
 * to stop at `withdraw`; it deletes the file and pushes: its take-back of
 * its own upload takes the entry out, then stops before its delete. Past
 * the TTL of the global lock it holds, the peer syncs (its pull finds the
 * entry gone with the object there, names it again, and puts its copy back
 * once the delete landed: the same bytes, so the very version deleted);
 * part way through, the clone goes on, its look after its delete meeting
 * that copy. Both then sync. From a generator of its own, with ids after
 * every other operation's, like {@link insertStalls}.
 */
export function insertSameBytesLook(
  ops: Op[],
  kinds: readonly ClientKind[],
  etag: boolean,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !etag || !rng.chance(share)) return;
  const apis = apiClones(kinds);
  if (apis.length < 2) return;
  const { id, tick } = blockIds(ops, rng);
  const clone = rng.pick(apis);
  const peer = rng.pick(apis.filter((c) => c !== clone));
  const file = rng.int(SHARED_FILES.length);
  insertAtStart(ops, [
    { id: id(), kind: "crash", clone, at: "answer", queued: true },
    { id: id(), kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer },
    tick(20, 40),
    { id: id(), kind: "blip", clone, call: "head", putBack: true },
    { id: id(), kind: "stall", clone, on: true, at: "withdraw" },
    { id: id(), kind: "delete", clone, file, how: "push" },
    tick(40, 80),
    // Past the TTL of the global lock the stopped push holds.
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    { id: id(), kind: "sync", clone: peer },
    tick(1, 25),
    { id: id(), kind: "stall", clone, on: false },
    tick(40, 80),
    { id: id(), kind: "sync", clone },
    tick(40, 80),
    { id: id(), kind: "sync", clone: peer },
    tick(40, 80),
  ]);
}
