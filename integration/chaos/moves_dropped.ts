/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's hand deletion, never marked, of a file its peer holds too, whose
 * index entry an old client's pull dropped, pulled and pushed by the clone
 * before the peer's pull names the file again.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import type { ClientKind, Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair, type BlockIds, blockIds, oldMachineFiles, oldPullWindow } from "./moves_start.ts";

/**
 * Inserts, in a share of v1 histories with old clients and three clones or
 * more, at their start (after another tool's first writes, so that the
 * files are new to every clone): a third clone pushes a shared file, then,
 * armed to crash at `commit`, deletes it and pushes it by name: its
 * deletion of the object lands, its commit never comes (the entry names a
 * missing object until that clone pushes again). Once the global lock its
 * dead process left is stale, an old client's pull on that clone's machine
 * reads the index, meets the object missing, and stops before writing back
 * the index it read (`window`) until the peer's next command ends or
 * attempts the global lock; meanwhile the clone pushes another shared file,
 * new, and the peer syncs, fetching it. The old client's write-back drops
 * the clone's entry, its object kept. The clone's user then deletes the
 * file by hand, never marking it, and the clone syncs (in half of them a
 * walk follows) before the peer syncs again. Nobody asked to delete the
 * file on the datastore: I23 holds the clone to delete its object there
 * only for a mark of its user's, and the file stays on the peer (I33). From
 * a generator of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertDroppedDeletion(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || clones < 3 || !rng.chance(share)) return;
  const ids = blockIds(ops, rng);
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const { file, opening, tick, sync } = droppedEntry(ids, clones, rng, clone, peer);
  const block: Op[] = [
    ...opening,
    { id: ids.id(), kind: "delete", clone, file, how: "hand" },
    sync(clone),
  ];
  if (rng.chance(0.5)) block.push({ id: ids.id(), kind: "bulk", clone });
  block.push(tick(40, 80), sync(peer), tick(40, 80));
  insertAtStart(ops, block);
}

/**
 * Inserts, in a share of v1 histories with old clients and three clones or
 * more, one driving Sluice itself (the peer), at their start, the same old client's pull stopped before its
 * write-back while a clone pushes a shared file, new, and the peer syncs,
 * fetching it; the write-back drops the clone's entry, its object kept.
 * The peer's user then edits the file and pushes it (no pull of the peer's
 * saw the drop), and syncs of the clone and the peer follow. Nobody
 * deleted the file: I1 and I12 hold the peer's edit (or the clone's
 * version) to be on the datastore and on every clone. From a generator of
 * its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertDroppedEdit(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  // The peer drives Sluice itself: its sync pulls before it attempts the
  // global lock, so the old client's write-back comes after that pull.
  const pair = apiPair(ops, kinds, rng, share, true, 3);
  if (!pair) return;
  const { api: peer, other: clone } = pair;
  const { file, opening, tick, sync } = droppedEntry(pair, kinds.length, rng, clone, peer);
  insertAtStart(ops, [
    ...opening,
    // The peer's edit, pushed before any pull of its saw the drop.
    { id: pair.id(), kind: "edit", clone: peer, file, how: "push", dropped: true },
    tick(40, 80),
    sync(clone),
    tick(40, 80),
    sync(peer),
    tick(40, 80),
  ]);
}

/**
 * What both moves open with, their ids from `ids`: a third clone (neither
 * `clone` nor `peer`), the old client's machine, pushes a shared file,
 * then, armed to crash at `commit`, deletes it and pushes it by name; past
 * the TTL of the global lock its dead process held, the old client's pull
 * there stops before its write-back until the peer's next command (see
 * {@link oldPullWindow}), while `clone` pushes another shared file, `file`,
 * new, and the peer syncs. With the tick and sync ops the rest of the move
 * draws from it.
 */
function droppedEntry(ids: BlockIds, clones: number, rng: Rng, clone: number, peer: number) {
  const { id, tick } = ids;
  const { machine, file, gone } = oldMachineFiles(clones, rng, clone, peer);
  // An odd id: a core-driven clone's sync with an even one, beside old
  // clients, is a token command of the tool's, which pulls nothing.
  const sync = (c: number): Op => {
    let n = id();
    if (n % 2 === 0) n = id();
    return { id: n, kind: "sync", clone: c };
  };
  const opening: Op[] = [
    ...oldPullWindow(ids, machine, gone, peer),
    { id: id(), kind: "edit", clone, file, how: "push" },
    tick(30, 60),
    sync(peer),
    tick(40, 80),
  ];
  return { file, opening, tick, sync };
}
