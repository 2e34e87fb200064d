/**
 * Moves of the fleet's processes, inserted into a generated history from
 * generators of their own: old clients' pushes, pulls and same-bytes
 * writes, raced `latest` markers, stalls and a move to v2 that stalls.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history_ops.ts";
import {
  afterForeign,
  insertAfterForeign,
  insertAtStart,
  placeAfterForeign,
  sharedFilePair,
} from "./moves_bucket.ts";

/**
 * Makes `ops` a mixed fleet's: a breakglass of the global lock becomes one
 * of a model's lock (breaking the lock an old client's index rewrite
 * relies on loses writes by design), and two to six old-client pushes are
 * inserted at random places, with ids after every other: half of them a new
 * file of the old client's own, a third an edit of a shared file, a sixth
 * its deletion.
 */
export function insertOldPushes(ops: Op[], clones: number, rng: Rng): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind === "breakglass" && op.model === null) ops[i] = { ...op, model: 0 };
  }
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(2, 6); n > 0; n--) {
    const at = placeAfterForeign(ops, rng);
    const clone = rng.int(clones);
    const what = rng.int(6);
    const file = what >= 3 ? { file: rng.int(SHARED_FILES.length) } : {};
    ops.splice(at, 0, {
      id: id++,
      kind: "oldpush",
      clone,
      ...file,
      ...(what === 5 ? { del: true } : {}),
    });
  }
}

/**
 * After each `latest` marker moved back and pushed, with chance `share`,
 * another clone's push of the same marker moved forward (its highest
 * version), right after, before any sync of that clone: the two race, and
 * the second is based on the marker as it was before the move back. A
 * marker moved back on purpose is a committed change like any edit (I9):
 * never written over by a writer that had not seen it.
 */
export function insertMarkerRaces(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (clones < 2 || share <= 0) return;
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let i = ops.length - 1; i >= 0; i--) {
    const m = ops[i];
    if (m.kind !== "marker" || !m.back || m.how !== "push" || !rng.chance(share)) continue;
    const clone = (m.clone + rng.range(1, clones - 1)) % clones;
    ops.splice(i + 1, 0, { ...m, id: id++, clone, back: false });
  }
}

/**
 * After each breakglass that follows a deterministic run of its model
 * (within four operations), inserts, with chance one half, an old client's
 * write of that run's bytes (see the `oldsame` {@link Op}) on another
 * clone's machine, with ids after every other.
 */
export function insertOldSame(ops: Op[], clones: number, rng: Rng): void {
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let i = ops.length - 1; i >= 0; i--) {
    const b = ops[i];
    if (b.kind !== "breakglass" || b.model === null) continue;
    const run = ops.slice(Math.max(0, i - 4), i).reverse().find((o) =>
      o.kind === "run" && o.same === true && o.model === b.model
    ) as Extract<Op, { kind: "run" }> | undefined;
    if (!run || !rng.chance(0.5)) continue;
    const clone = clones < 2 ? run.clone : (run.clone + rng.range(1, clones - 1)) % clones;
    ops.splice(i + 1, 0, { id: id++, kind: "oldsame", clone, run: run.id, pick: rng.int(2 ** 31) });
  }
}

/**
 * Inserts one to three old-client pulls (see the `oldpull` {@link Op}) at
 * random places (half of them right after a deletion), with ids after every
 * other.
 */
export function insertOldPulls(ops: Op[], clones: number, rng: Rng): void {
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 3); n > 0; n--) {
    // Half of them right after a clone's deletion, which removes the object
    // before its entry: the pull may meet it missing, its commit on the way.
    // (On another clone's machine: a clone's commands run one at a time.)
    const deletions = ops.flatMap((o, i) => o.kind === "delete" ? [i] : []);
    const after = deletions.length && rng.chance(0.5)
      ? deletions[rng.int(deletions.length)]
      : undefined;
    const by = after === undefined ? undefined : (ops[after] as { clone: number }).clone;
    const clone = by === undefined || clones < 2
      ? rng.int(clones)
      : (by + rng.range(1, clones - 1)) % clones;
    const at = after === undefined
      ? placeAfterForeign(ops, rng)
      : Math.max(after + 1, afterForeign(ops));
    ops.splice(at, 0, { id: id++, kind: "oldpull", clone });
  }
}

/**
 * Inserts one or two stalls (a clone stopped, then going on some operations
 * later, or at the end) into `ops`, in a share of histories; a stall armed
 * to come after a v1 index write often gets a move to v2 by another clone
 * before it goes on, and sometimes a shared file that the stopped clone
 * edits and the mover then changes too. The stall
 * operations take ids after every other, so the others keep theirs, and a
 * seed without stalls generates what it did before stalls existed.
 */
export function insertStalls(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
  v1: boolean,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const clone = rng.int(clones);
    const at = placeAfterForeign(ops, rng, false);
    const off = at + rng.range(2, 12);
    const armed = rng.chance(0.4);
    // Later positions first, so that `at` still points where it did.
    if (off < ops.length) ops.splice(off, 0, { id: id++, kind: "stall", clone, on: false });
    // A stop armed after a v1 index write is there for the move to v2 that
    // may run meanwhile: on a v1 bucket, another clone often moves it then
    // (just before the stopped clone goes on), and sometimes the stopped
    // clone's commit is an edit of a shared file that the mover then edits
    // or deletes on the v2 bucket, before the stopped commit goes on.
    const aimed = armed && v1 && clones > 1 && rng.chance(0.5);
    const mover = aimed ? (clone + rng.range(1, clones - 1)) % clones : 0;
    const file = rng.int(SHARED_FILES.length);
    const race = aimed && rng.chance(0.5);
    if (aimed) {
      const end = Math.min(off, ops.length);
      // Queued commands run only as the scheduler goes on: time for them
      // before the stopped clone goes on.
      ops.splice(end, 0, { id: id++, kind: "tick", n: rng.range(40, 80), pick: rng.int(2 ** 31) });
      if (race) {
        // After a sync: a clone that never synced the file has nothing to delete.
        ops.splice(
          end,
          0,
          { id: id++, kind: "sync", clone: mover },
          rng.chance(0.5)
            ? { id: id++, kind: "delete", clone: mover, file, how: "push" }
            : { id: id++, kind: "edit", clone: mover, file, how: "push" },
        );
      }
      ops.splice(end, 0, { id: id++, kind: "migrate", clone: mover });
    }
    if (race) ops.splice(at, 0, { id: id++, kind: "edit", clone, file, how: "push" });
    ops.splice(
      at,
      0,
      armed
        ? { id: id++, kind: "stall", clone, on: true, at: "companions" }
        : { id: id++, kind: "stall", clone, on: true },
    );
  }
}

/**
 * Inserts, in a share of v1 histories, a move to v2 that stops after it
 * read the v1 index (before its shard writes) for long enough that its
 * global lock is taken over: another clone moves the bucket meanwhile, and
 * v2 commits (model runs, sometimes a shared file's edit or deletion) follow
 * before the stopped mover goes on. From a generator of its own, with ids
 * after every other operation's, like {@link insertStalls}.
 */
export function insertMoveStall(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
  v1: boolean,
): void {
  if (!v1 || clones < 2 || ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const stopped = rng.int(clones);
  const other = () => (stopped + rng.range(1, clones - 1)) % clones;
  const tick = (lo: number, hi: number): Op => ({
    id: id++,
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  const mover = other();
  const inserted: Op[] = [
    { id: id++, kind: "stall", clone: stopped, on: true, at: "move" },
    { id: id++, kind: "migrate", clone: stopped },
    tick(20, 40),
    { id: id++, kind: "migrate", clone: mover },
    // Past the stopped mover's lock TTL: the other mover takes the lock over.
    { id: id++, kind: "wait", ms: 31_000 },
    tick(40, 80),
  ];
  for (let n = rng.range(1, 2); n > 0; n--) {
    inserted.push({
      id: id++,
      kind: "run",
      clone: other(),
      model: rng.int(MODELS.length),
      data: rng.int(DATA_NAMES.length),
      workMs: 0,
    });
  }
  if (rng.chance(0.5)) {
    const file = rng.int(SHARED_FILES.length);
    inserted.push(
      { id: id++, kind: "sync", clone: mover },
      rng.chance(0.5)
        ? { id: id++, kind: "delete", clone: mover, file, how: "push" }
        : { id: id++, kind: "edit", clone: mover, file, how: "push" },
    );
  }
  inserted.push(tick(40, 80), { id: id++, kind: "stall", clone: stopped, on: false }, tick(20, 60));
  insertAfterForeign(ops, inserted, rng);
}

/**
 * Inserts, in a share of histories with old clients and two clones or
 * more, at their start (so that the file is new to every clone), a clone's
 * push that runs inside an old client's read-modify-write of the index: the
 * clone writes a shared file and pushes, its commit landing with its answer
 * lost (armed to crash at `answer`; in half of them an update of the file
 * it pushed before, else its create); once the global lock its dead
 * process left is stale, an old client on another clone's machine pushes a
 * file of its own, stopping between its read of the index and its write
 * (`window`), while the clone deletes the file and pushes: its withdrawal
 * of its own committed upload (or deletion of its own committed update)
 * must not be undone by the old client's write of the index it read
 * before. From a generator of its own, with ids after every other
 * operation's, like {@link insertStalls}.
 */
export function insertOldWindow(ops: Op[], clones: number, rng: Rng, share: number): void {
  const drawn = sharedFilePair(ops, clones, rng, share);
  if (!drawn) return;
  const { clone, other: machine, file, id, tick } = drawn;
  const block: Op[] = [];
  if (rng.chance(0.5)) {
    block.push({ id: id(), kind: "edit", clone, file, how: "push" }, tick(20, 40));
  }
  block.push(
    { id: id(), kind: "crash", clone, at: "answer", queued: true },
    { id: id(), kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id(), kind: "wait", ms: 31_000 },
    tick(5, 20),
    // Aimed: the scheduler goes on until the old client read the index.
    { id: id(), kind: "oldpush", clone: machine, window: clone },
    { id: id(), kind: "delete", clone, file, how: "push" },
    tick(40, 80),
  );
  insertAtStart(ops, block);
}
