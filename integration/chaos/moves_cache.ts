/**
 * Moves of a clone's cache on disk, inserted into a generated history from
 * generators of their own: a second process over the cache, a cache copied
 * from another clone's, and a manifest log torn or damaged.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history_ops.ts";
import { insertAfterForeign } from "./moves_bucket.ts";

/**
 * Inserts, in a share of histories, one or two second processes over a
 * clone's cache (see the `sibling` {@link Op}) at random places, each
 * followed at once by a model run or a sync of that clone's own process,
 * whose commit then lands while the second one's marks stand unpushed. Ids
 * after every other operation's, like {@link insertStalls}.
 */
export function insertSiblings(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const clone = rng.int(clones);
    const block: Op[] = [{
      id: id++,
      kind: "sibling",
      clone,
      how: rng.chance(0.6) ? "dies" : "push",
      workMs: rng.pick([5_000, 15_000, 45_000]),
    }];
    block.push(
      rng.chance(0.6)
        ? {
          id: id++,
          kind: "run",
          clone,
          model: rng.int(MODELS.length),
          data: rng.int(DATA_NAMES.length),
          workMs: 0,
        }
        : { id: id++, kind: "sync", clone },
      { id: id++, kind: "tick", n: rng.range(20, 80), pick: rng.int(2 ** 31) },
    );
    insertAfterForeign(ops, block, rng);
  }
}

/**
 * Inserts, in a share of histories with two clones or more, one copy of a
 * clone's cache over another's (see the `copy` {@link Op}) at a random
 * place, followed by an edit of one shared file by both (the one copied
 * from pushing first, the copy syncing after: the copy must take the
 * other's committed edit for a peer's, never for its own) and a tick. Ids
 * after every other operation's, like {@link insertStalls}.
 */
export function insertCopies(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const from = (clone + rng.range(1, clones - 1)) % clones;
  const file = rng.int(SHARED_FILES.length);
  const block: Op[] = [
    { id: id++, kind: "copy", clone, from },
    { id: id++, kind: "edit", clone: from, file, how: "push" },
    { id: id++, kind: "edit", clone, file, how: "hand" },
    { id: id++, kind: "sync", clone },
    { id: id++, kind: "tick", n: rng.range(20, 80), pick: rng.int(2 ** 31) },
  ];
  insertAfterForeign(ops, block, rng);
}

/**
 * The start of a move on a clone's cache: the clone (one a second process
 * shares, in half the histories that have one), a peer when there is one,
 * ids after every other operation's, and a tick of 20 to 60 steps.
 */
function cacheMoveStart(
  ops: Op[],
  clones: number,
  rng: Rng,
): { clone: number; peer: number | undefined; next: () => number; tick: () => Op } {
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const shared = ops.filter((o) => o.kind === "sibling").map((o) => (o as { clone: number }).clone);
  const clone = shared.length > 0 && rng.chance(0.5) ? rng.pick(shared) : rng.int(clones);
  const peer = clones > 1 ? (clone + 1 + rng.int(clones - 1)) % clones : undefined;
  const next = () => id++;
  const tick = (): Op => ({
    id: next(),
    kind: "tick",
    n: rng.range(20, 60),
    pick: rng.int(2 ** 31),
  });
  return { clone, peer, next, tick };
}

/**
 * Inserts, in a share of histories, another process's write ahead to a
 * clone's manifest log cut off part way (see the `torn` {@link Op}) at a
 * random place, often on a clone a second process shares: a peer first
 * pushes an edit of a shared file, then the clone syncs, and the torn line
 * is aimed at that sync's download of it (whose record it writes ahead to
 * that log right after); in half of them
 * the clone's process then dies and a new one opens the cache, and in half
 * a peer pushes the deletion of a shared file, which the clone syncs (a
 * cache that lost its records takes the file for its own, never synced,
 * and publishes it again). Ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertTornLogs(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const { clone, peer, next, tick } = cacheMoveStart(ops, clones, rng);
  const block: Op[] = [];
  if (peer !== undefined) {
    block.push({
      id: next(),
      kind: "edit",
      clone: peer,
      file: rng.int(SHARED_FILES.length),
      how: "push",
    }, tick());
  }
  block.push(
    { id: next(), kind: "sync", clone },
    { id: next(), kind: "torn", clone, file: rng.int(SHARED_FILES.length), pick: rng.int(2 ** 31) },
    tick(),
  );
  if (rng.chance(0.5)) block.push({ id: next(), kind: "crash", clone });
  if (peer !== undefined && rng.chance(0.5)) {
    block.push(
      { id: next(), kind: "delete", clone: peer, file: rng.int(SHARED_FILES.length), how: "push" },
      tick(),
      { id: next(), kind: "sync", clone },
    );
  }
  insertAfterForeign(ops, block, rng);
}

/**
 * Inserts, in a share of histories, a line in the middle of a clone's
 * manifest log damaged on disk (see the `damaged` {@link Op}) at a random
 * place, often on a clone a second process shares: a peer first pushes
 * edits of two shared files and the clone its own of a third, then the
 * clone syncs (its records of the three written ahead to its log); in half
 * of them its user then deletes one of the three by hand (left to a walk);
 * then the line holding that file's record is damaged (the clone's own
 * edit's in half, a peer's it fetched in half), the clone's process
 * restarts, and the clone syncs (a cache that lost its records fetches the
 * deleted file again); in half a peer then pushes an edit or the deletion
 * of a shared file, which the clone syncs. With `open` (a share of its
 * own), the clone's process stays open over the damage instead, another
 * process writing a line ahead after it, and the clone's next sync takes
 * the log in (see the `damaged` {@link Op}); with `dies` (a share of its
 * own), the restarted process dies inside the save of the base its next
 * sync writes, the log in place or gone (see the `damaged` {@link Op});
 * with `fails` (a share of its own), the restarted process first pushes an
 * edit of its own, and the replacement of the log after the base its save
 * writes fails, the process living on (`replaceFails`).
 * Ids after every other operation's, like {@link insertStalls}.
 */
export function insertDamagedLogs(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
  mode: "restart" | "open" | "dies" | "fails" = "restart",
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const { clone, peer, next, tick } = cacheMoveStart(ops, clones, rng);
  const file = () => rng.int(SHARED_FILES.length);
  const aimed = file();
  // The clone's own edit of the file aimed at, or a peer's it fetches.
  const own = peer === undefined || rng.chance(0.5);
  const block: Op[] = [];
  if (peer !== undefined) {
    block.push(
      { id: next(), kind: "edit", clone: peer, file: own ? file() : aimed, how: "push" },
      tick(),
      { id: next(), kind: "edit", clone: peer, file: file(), how: "push" },
      tick(),
    );
  }
  block.push(
    { id: next(), kind: "edit", clone, file: own ? aimed : file(), how: "push" },
    tick(),
    { id: next(), kind: "sync", clone },
    tick(),
  );
  if (rng.chance(0.5)) block.push({ id: next(), kind: "delete", clone, file: aimed, how: "hand" });
  block.push(
    {
      id: next(),
      kind: "damaged",
      clone,
      file: aimed,
      pick: rng.int(2 ** 31),
      ...(mode === "open" ? { open: true } : {}),
      ...(mode === "dies" ? { dies: rng.chance(0.5) ? "log" : "nolog" } : {}),
      ...(mode === "fails" ? { replaceFails: true } : {}),
    },
  );
  // A push of the clone's own edit first: the save after it, the first
  // since the restart, writes a base recording that file anew.
  if (mode === "fails") {
    block.push({ id: next(), kind: "edit", clone, file: file(), how: "push" }, tick());
  }
  block.push(
    { id: next(), kind: "sync", clone },
    tick(),
  );
  if (peer !== undefined && rng.chance(0.5)) {
    block.push(
      rng.chance(0.5)
        ? { id: next(), kind: "delete", clone: peer, file: file(), how: "push" }
        : { id: next(), kind: "edit", clone: peer, file: file(), how: "push" },
      tick(),
      { id: next(), kind: "sync", clone },
      tick(),
    );
  }
  insertAfterForeign(ops, block, rng);
}
