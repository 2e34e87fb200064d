/**
 * A move inserted into a generated history from a generator of its own, on
 * a v1 bucket with old clients whose store's versions are the bytes' (S3
 * ETags): a file taken back, its same bytes published again (the same
 * version), their entry dropped by an old client's write-back, then edited
 * by a peer that synced them.
 *
 * @module
 */
import type { ClientKind, Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import {
  apiClones,
  blockIds,
  oldMachineFiles,
  oldPullWindow,
  PAST_LOCK_TTL_MS,
} from "./moves_start.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of v1 histories with old clients, on a store whose
 * versions are the bytes' (`etag`), with three clones or more, two of them
 * driven through the library's API (the clone and the peer), at their
 * start (after another tool's first writes, so that the files are new to
 * every clone): a third clone, the old client's machine, armed to crash at
 * `answer`, pushes a shared file (its commit lands, its answer lost), then
 * deletes it and pushes (its take-back of its own upload: the entry out,
 * then the object). It pushes another shared file and, armed to crash at
 * `commit`, deletes it and pushes (the object gone, the entry left); past
 * the TTL of the global lock its dead process held, the old client's pull
 * there reads the index and stops before its write-back (`window`) while
 * the clone syncs, writing between its pull and its push the very bytes
 * the third clone had pushed and taken back (a `sync` with `edit` and
 * `again`: the same version, by their ETag), and the peer syncs, fetching
 * them. The write-back drops their entry. The peer's user then edits the
 * file and pushes it before any pull of its saw the drop (an `edit` with
 * `dropped`: I37, nobody deleted the file), and both sync. From a
 * generator of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertRepublished(
  ops: Op[],
  kinds: readonly ClientKind[],
  etag: boolean,
  rng: Rng,
  share: number,
): void {
  const clones = kinds.length;
  if (ops.length === 0 || clones < 3 || !etag || !rng.chance(share)) return;
  const apis = apiClones(kinds);
  if (apis.length < 2) return;
  const ids = blockIds(ops, rng);
  const { id, tick } = ids;
  const peer = rng.pick(apis);
  const clone = rng.pick(apis.filter((c) => c !== peer));
  const { machine, file, gone } = oldMachineFiles(clones, rng, clone, peer);
  const lost: Op = { id: id(), kind: "crash", clone: machine, at: "answer", queued: true };
  const first = id();
  insertAtStart(ops, [
    lost,
    { id: first, kind: "edit", clone: machine, file, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    tick(20, 40),
    { id: id(), kind: "delete", clone: machine, file, how: "push" },
    tick(40, 80),
    ...oldPullWindow(ids, machine, gone, peer),
    { id: id(), kind: "sync", clone, edit: file, again: { op: first, clone: machine } },
    tick(60, 120),
    { id: id(), kind: "sync", clone: peer },
    tick(40, 80),
    { id: id(), kind: "edit", clone: peer, file, how: "push", dropped: true },
    tick(40, 80),
    { id: id(), kind: "sync", clone },
    tick(40, 80),
    { id: id(), kind: "sync", clone: peer },
    tick(40, 80),
  ]);
}
