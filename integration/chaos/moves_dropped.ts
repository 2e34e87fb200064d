/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's hand deletion, never marked, of a file its peer holds too, whose
 * index entry an old client's pull dropped, pulled and pushed by the clone
 * before the peer's pull names the file again.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, type Op, SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";

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
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const { file, opening, nextId, tick, sync } = droppedEntry(ops, clones, rng, clone, peer);
  const block: Op[] = [
    ...opening,
    { id: nextId(), kind: "delete", clone, file, how: "hand" },
    sync(clone),
  ];
  if (rng.chance(0.5)) block.push({ id: nextId(), kind: "bulk", clone });
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
  const clones = kinds.length;
  if (ops.length === 0 || clones < 3 || !rng.chance(share)) return;
  // The peer drives Sluice itself: its sync pulls before it attempts the
  // global lock, so the old client's write-back comes after that pull.
  const api = kinds.flatMap((k, i) => k === "api" ? [i] : []);
  if (api.length === 0) return;
  const peer = api[rng.int(api.length)];
  const clone = (peer + rng.range(1, clones - 1)) % clones;
  const { file, opening, nextId, tick, sync } = droppedEntry(ops, clones, rng, clone, peer);
  insertAtStart(ops, [
    ...opening,
    // The peer's edit, pushed before any pull of its saw the drop.
    { id: nextId(), kind: "edit", clone: peer, file, how: "push", dropped: true },
    tick(40, 80),
    sync(clone),
    tick(40, 80),
    sync(peer),
    tick(40, 80),
  ]);
}

/**
 * What both moves open with, their ids after every op in `ops`: a third
 * clone (neither `clone` nor `peer`), the old client's machine, pushes a
 * shared file, then, armed to crash at `commit`, deletes it and pushes it
 * by name; past the TTL of the global lock its dead process held, the old
 * client's pull there stops before its write-back until the peer's next
 * command, while `clone` pushes another shared file, `file`, new, and the
 * peer syncs. With the id counter and the tick and sync ops the rest of the
 * move draws from it.
 */
function droppedEntry(ops: Op[], clones: number, rng: Rng, clone: number, peer: number) {
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  let machine = rng.int(clones);
  while (machine === clone || machine === peer) machine = (machine + 1) % clones;
  const file = rng.int(SHARED_FILES.length);
  const gone = (file + rng.range(1, SHARED_FILES.length - 1)) % SHARED_FILES.length;
  const tick = (lo: number, hi: number): Op => ({
    id: id++,
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  // An odd id: a core-driven clone's sync with an even one, beside old
  // clients, is a token command of the tool's, which pulls nothing.
  const sync = (c: number): Op => {
    if (id % 2 === 0) id++;
    return { id: id++, kind: "sync", clone: c };
  };
  const opening: Op[] = [
    { id: id++, kind: "edit", clone: machine, file: gone, how: "push" },
    tick(20, 40),
    { id: id++, kind: "crash", clone: machine, at: "commit", queued: true },
    { id: id++, kind: "delete", clone: machine, file: gone, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id++, kind: "wait", ms: 31_000 },
    tick(5, 20),
    // Aimed: the scheduler goes on until the old client read the index.
    { id: id++, kind: "oldpull", clone: machine, window: peer },
    { id: id++, kind: "edit", clone, file, how: "push" },
    tick(30, 60),
    sync(peer),
    tick(40, 80),
  ];
  return { file, opening, nextId: () => id++, tick, sync };
}
