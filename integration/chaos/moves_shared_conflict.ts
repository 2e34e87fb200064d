/**
 * A move inserted into a generated history from a generator of its own:
 * two processes over one clone's cache at a conflict of one path, one
 * resolving it while the other pulls a newer version of theirs (or both
 * pulling, or both resolving), the second one's command run, in most
 * histories, right after the own one took the conflict records in (its
 * view of them then stale for everything it saves after). A record one of
 * them saves over the other's, or a clear that drops a record saved since,
 * must leave no copy a pull set aside named by no record (I6, checked on
 * the records on disk as the own command ends), nor lose the user's edit.
 * In half of them the conflict is met first by a pull of the own process
 * planned before the second one's record of it, with a copy of its own to
 * set aside (see {@link plannedBlock}): the other process's record is
 * then saved over, unless the later save keeps naming its copy.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, type Op, type ResolveHow, SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair, type BlockIds } from "./moves_start.ts";

/** What the two processes over the clone's cache do at once: its own process's command first. */
export const PAIRS: readonly (readonly ["resolve" | "sync", "resolve" | "sync"])[] = [
  ["resolve", "sync"],
  ["sync", "resolve"],
  ["sync", "sync"],
  ["resolve", "resolve"],
];

/**
 * Inserts, in a share of histories with two clones or more, one driven
 * through the API, at their start (after another tool's first writes): a
 * peer pushes an edit of a shared file, which the API clone syncs in half
 * of them (never synced here in the other half: its copy is set aside);
 * the clone's user edits it by hand, the peer pushes another edit, and the
 * clone syncs: a conflict of the file. The peer pushes a third edit (a
 * newer version of theirs); then the clone's own process and a second
 * process over its cache (`second`) resolve the conflict or sync (a pair
 * of {@link PAIRS}): in four fifths of them the second one's command is
 * `aimed`, set first and run right after the own command's take-in of the
 * conflict records; else both are queued at once, interleaved by a tick.
 * The clone's own process then resolves what is left and syncs. Else, in
 * a share of them ({@link PLANNED_SHARE}, drawn last), the block of
 * {@link plannedBlock} instead. From a generator of its own, with ids after
 * every other operation's, like {@link insertStalls}.
 */
export function insertSharedConflict(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  const pair = apiPair(ops, kinds, rng, share);
  if (!pair) return;
  const { api: clone, other: peer, id, tick } = pair;
  const file = rng.int(SHARED_FILES.length);
  const how = (): ResolveHow => rng.pick(["mine", "theirs", "merged"] as const);
  const command = (kind: "resolve" | "sync", second: boolean, aimed = false): Op => {
    const by = second ? { second: true as const, ...(aimed ? { aimed: true as const } : {}) } : {};
    return kind === "sync"
      ? { id: id(), kind, clone, ...by }
      : { id: id(), kind, clone, pick: rng.int(8), how: how(), ...by };
  };
  const peerEdit = (): Op => ({ id: id(), kind: "edit", clone: peer, file, how: "push" });
  const block: Op[] = [peerEdit(), tick(20, 40)];
  if (rng.chance(0.5)) block.push(command("sync", false), tick(20, 40));
  block.push(
    { id: id(), kind: "edit", clone, file, how: "hand" },
    peerEdit(),
    tick(20, 40),
    command("sync", false),
    tick(20, 40),
    peerEdit(),
    tick(20, 40),
  );
  const [own, second] = rng.pick(PAIRS);
  // In most histories the second process's command runs right after the
  // own one's take-in of the conflict records (`aimed`: set first, for the
  // own command after it), else beside it.
  if (rng.chance(0.8)) {
    block.push(command(second, true, true), command(own, false), tick(20, 60));
  } else block.push(command(own, false), command(second, true), tick(20, 60));
  block.push(command("resolve", false), tick(20, 40), command("sync", false), tick(20, 40));
  // Drawn last, so that the histories without it stay as they were.
  const chosen = rng.chance(PLANNED_SHARE) ? plannedBlock(pair, clone, peer, file, rng) : block;
  // Drawn after it, for the same reason.
  insertAtStart(
    ops,
    rng.chance(THEIRS_SHARE) ? theirsBlock(pair, clone, peer, file, rng) : chosen,
  );
}

/** The share of the move's histories whose own resolution `--theirs` meets a conflict another process recorded during its pull. */
export const THEIRS_SHARE = 0.4;

/**
 * The block of the histories where the clone's own `resolve --theirs` meets
 * a conflict of the path another process over its cache records while its
 * pull runs: the peer pushes an edit of the file, which the clone syncs;
 * its user edits it by hand, the peer pushes another edit, and the clone
 * syncs (a conflict, its edit in place); the peer pushes a third edit.
 * The own process resolves it `--theirs`: it moves the edit aside, clears
 * its record and pulls. In half of them, right after that pull took in what
 * the cache synced (`afterClear`), else right before the clear (`atClear`),
 * the user writes another edit at the path (`handBefore`) and a second
 * process over the cache syncs to its end, setting that edit aside in a
 * conflict of its own and recording it. The own pull, planned before, finds
 * nothing of the path in conflict; the clear must keep that record (I6
 * right after it), and the resolution is not done while it is open (I22)
 * nor writes its own over it (I6 as the resolution ends). In half of them
 * the user writes a merge by hand after (`handAfter`), which the own pull
 * meets too. Then the own process resolves what is left, and syncs.
 */
function theirsBlock(ids: BlockIds, clone: number, peer: number, file: number, rng: Rng): Op[] {
  const { id, tick } = ids;
  const after = rng.chance(0.5) ? { handAfter: file } : {};
  const when = rng.chance(0.5) ? { afterClear: true as const } : { atClear: true as const };
  return [
    ...editInPlaceConflict(ids, clone, peer, file),
    {
      id: id(),
      kind: "sync",
      clone,
      second: true,
      aimed: true,
      ...when,
      handBefore: file,
      ...after,
    },
    { id: id(), kind: "resolve", clone, pick: rng.int(8), how: "theirs" },
    tick(20, 60),
    ...resolveThenSync(ids, clone, rng),
  ];
}

/** The share of the move's histories that meet the conflict in a pull planned before the second process's record. */
export const PLANNED_SHARE = 0.5;

/**
 * The block of the histories where the clone's own pull meets the conflict
 * planned before the second process's record of it: the peer pushes an edit
 * of the file, which the clone never syncs; its user edits it by hand (a
 * copy this cache never synced), and the peer pushes another edit. Then
 * the clone's own process syncs, and right after its pull took in what the
 * cache synced (`atPull`), a second process over its cache syncs to its
 * end, setting the user's copy aside in a conflict and recording it, and
 * the user writes a merge by hand at the path (`handAfter`): the own pull,
 * planned before all that, finds a copy of its own never synced here, sets
 * it aside too and records the conflict over the second one's record. Then
 * the peer pushes a third edit (a newer version of theirs), the own process
 * resolves one of its conflicts, and syncs.
 */
function plannedBlock(ids: BlockIds, clone: number, peer: number, file: number, rng: Rng): Op[] {
  const { id, tick } = ids;
  const peerEdit = (): Op => ({ id: id(), kind: "edit", clone: peer, file, how: "push" });
  return [
    peerEdit(),
    tick(20, 40),
    { id: id(), kind: "edit", clone, file, how: "hand" },
    peerEdit(),
    tick(20, 40),
    { id: id(), kind: "sync", clone, second: true, aimed: true, atPull: true, handAfter: file },
    { id: id(), kind: "sync", clone },
    tick(20, 60),
    peerEdit(),
    tick(20, 40),
    ...resolveThenSync(ids, clone, rng),
  ];
}

/** The blocks' end: the own process resolves one of its conflicts any way, then syncs. */
function resolveThenSync(ids: BlockIds, clone: number, rng: Rng): Op[] {
  const { id, tick } = ids;
  return [
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
  ];
}

/**
 * The start of a `--theirs` block: `peer` pushes an edit of shared file
 * `file`, which `clone` syncs; its user edits it by hand, the peer pushes
 * another edit, and the clone syncs (a conflict, its edit in place); the
 * peer pushes a third edit (a newer version of theirs). Ids and ticks are
 * drawn in that order.
 */
export function editInPlaceConflict(
  ids: BlockIds,
  clone: number,
  peer: number,
  file: number,
): Op[] {
  const { id, tick } = ids;
  const peerEdit = (): Op => ({ id: id(), kind: "edit", clone: peer, file, how: "push" });
  return [
    peerEdit(),
    tick(20, 40),
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    { id: id(), kind: "edit", clone, file, how: "hand" },
    peerEdit(),
    tick(20, 40),
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    peerEdit(),
    tick(20, 40),
  ];
}
