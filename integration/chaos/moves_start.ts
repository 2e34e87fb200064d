/**
 * What the moves inserted at a history's start from generators of their
 * own draw alike: their ids and ticks, the clones they take, and the steps
 * several of them open with. Each helper draws from the generator in the
 * order the moves drew before it, so that every seed's history stays as it
 * was.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, type Op, SHARED_FILES } from "./history_ops.ts";

/** Fake time past the TTL of the locks a dead process held (a model's lock, the global lock). */
export const PAST_LOCK_TTL_MS = 31_000;

/** The ids of a move's block, after every other operation's, and its ticks. */
export interface BlockIds {
  /** The next operation's id. */
  id: () => number;
  /** A `tick` of `lo` to `hi` steps (30 to 60 unless told), with the next id. */
  tick: (lo?: number, hi?: number) => Op;
}

/**
 * Ids after every operation in `ops` (not empty), and ticks that draw from
 * `rng` as they are made (their steps, then their pick). Draws nothing
 * itself.
 */
export function blockIds(ops: readonly Op[], rng: Rng): BlockIds {
  let next = Math.max(...ops.map((o) => o.id)) + 1;
  const id = () => next++;
  const tick = (lo = 30, hi = 60): Op => ({
    id: id(),
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  return { id, tick };
}

/** The indexes in `kinds` of the clones driven through the library's API. */
export function apiClones(kinds: readonly ClientKind[]): number[] {
  return kinds.flatMap((k, i) => k === "api" ? [i] : []);
}

/** What {@link apiPair} drew: a clone driven through the API, another one, and the block's ids. */
export interface ApiPair extends BlockIds {
  api: number;
  other: number;
}

/**
 * The start of a move that takes a clone driven through the library's API
 * and another clone, in a share of histories with `least` clones or more
 * (two unless told) where `ok`: undefined where it takes none (nothing
 * drawn past `rng.chance(share)`, nor that where `ok` is false), else the
 * API clone, drawn from those, then another one, with ids after every
 * other operation's.
 */
export function apiPair(
  ops: readonly Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
  ok = true,
  least = 2,
): ApiPair | undefined {
  const clones = kinds.length;
  if (ops.length === 0 || clones < least || !ok || !rng.chance(share)) return undefined;
  const apis = apiClones(kinds);
  if (apis.length === 0) return undefined;
  const api = rng.pick(apis);
  const other = (api + rng.range(1, clones - 1)) % clones;
  return { api, other, ...blockIds(ops, rng) };
}

/** What {@link unpushedRuns} made: its steps, and a maker of the peer's further runs. */
export interface UnpushedRuns {
  block: Op[];
  /** A deterministic run of the model's data by clone `c`, with the next id. */
  run: (c: number) => Op;
}

/**
 * What a move at the `latest` marker of a model's data opens with, between
 * `clone`, driven through the library's API, and `peer` (deterministic
 * runs: every clone's run of a version writes the same bytes): the peer
 * syncs and runs the data, and the clone syncs: its marker synced at that
 * version (k). The clone runs the data `dying` times (k+1 on), its process
 * dying each time while the run works (past the dead run's lock, the next
 * takes it): those versions and the marker naming the last stay here,
 * unpushed. Past the dead runs' lock, the peer runs the data (k+1, its
 * marker pushed there).
 */
export function unpushedRuns(
  { id, tick }: BlockIds,
  clone: number,
  peer: number,
  model: number,
  data: number,
  dying: number,
): UnpushedRuns {
  const run = (c: number, workMs = 0): Op => ({
    id: id(),
    kind: "run",
    clone: c,
    model,
    data,
    workMs,
    same: true,
  });
  const block: Op[] = [{ id: id(), kind: "sync", clone: peer }, tick(), run(peer), tick()];
  block.push({ id: id(), kind: "sync", clone }, tick());
  for (let i = 0; i < dying; i++) {
    block.push(run(clone, 600_000), tick(10, 30));
    block.push({ id: id(), kind: "crash", clone }, {
      id: id(),
      kind: "wait",
      ms: PAST_LOCK_TTL_MS,
    });
  }
  block.push(run(peer), tick());
  return { block, run: (c) => run(c) };
}

/** A clone's run of a model's data, which a move's steps name. */
export interface RunAt {
  clone: number;
  model: number;
  data: number;
}

/**
 * What a move whose clone's run loses its versions to another tool opens
 * with: the clone syncs and runs a model's data (a version committed, its
 * `latest` marker with it: the marker the lost version's is written over);
 * its next run of that data dies between its uploads (the version, and the
 * marker over the committed one) and its commit's index update; then fake
 * time passes the TTL of the locks the dead process held.
 */
export function cutOffRun({ id, tick }: BlockIds, { clone, model, data }: RunAt): Op[] {
  return [
    { id: id(), kind: "sync", clone },
    tick(20, 40),
    { id: id(), kind: "run", clone, model, data, workMs: 0 },
    tick(20, 40),
    { id: id(), kind: "crash", clone, at: "commit", queued: true },
    { id: id(), kind: "run", clone, model, data, workMs: 0 },
    tick(20, 40),
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    tick(5, 20),
  ];
}

/**
 * After {@link cutOffRun}: the clone runs that data again, working 30 s,
 * and while it works, its version written here and not flushed, another
 * tool publishes with its index entries a version at the number the
 * cut-off run uploaded and one at this run's (`lockless`, `below` first,
 * their picks drawn from `rng`): the run loses both, and the marker's
 * reset goes back to the committed one.
 */
export function lostVersions({ id }: BlockIds, rng: Rng, { clone, model, data }: RunAt): Op[] {
  const run = id();
  return [
    { id: run, kind: "run", clone, model, data, workMs: 30_000 },
    { id: id(), kind: "lockless", run, pick: rng.int(2 ** 31), indexed: true, below: true },
    { id: id(), kind: "lockless", run, pick: rng.int(2 ** 31), indexed: true },
  ];
}

/** What {@link oldMachineFiles} drew: the old client's machine and two shared files. */
export interface OldMachineFiles {
  /** A third clone, neither of the two the move takes. */
  machine: number;
  /** The shared file the move is about. */
  file: number;
  /** Another shared file, whose entry the old client's pull meets naming a missing object. */
  gone: number;
}

/**
 * Draws, for a move that takes `clone` and `peer` among three clones or
 * more, the third clone whose machine runs an old client, then a shared
 * file and another one.
 */
export function oldMachineFiles(
  clones: number,
  rng: Rng,
  clone: number,
  peer: number,
): OldMachineFiles {
  let machine = rng.int(clones);
  while (machine === clone || machine === peer) machine = (machine + 1) % clones;
  const file = rng.int(SHARED_FILES.length);
  const gone = (file + rng.range(1, SHARED_FILES.length - 1)) % SHARED_FILES.length;
  return { machine, file, gone };
}

/**
 * The old client's pull held in its window: `machine` pushes the shared
 * file `gone`, then, armed to crash at `commit`, deletes it and pushes it
 * by name (its deletion of the object lands, its commit never comes: the
 * entry names a missing object); past the TTL of the global lock its dead
 * process held, the old client's pull there reads the index and stops
 * before its write-back (`window`) until `peer`'s next command ends or
 * attempts the global lock.
 */
export function oldPullWindow(
  { id, tick }: BlockIds,
  machine: number,
  gone: number,
  peer: number,
): Op[] {
  return [
    { id: id(), kind: "edit", clone: machine, file: gone, how: "push" },
    tick(20, 40),
    { id: id(), kind: "crash", clone: machine, at: "commit", queued: true },
    { id: id(), kind: "delete", clone: machine, file: gone, how: "push" },
    tick(20, 40),
    { id: id(), kind: "wait", ms: PAST_LOCK_TTL_MS },
    tick(5, 20),
    // Aimed: the scheduler goes on until the old client read the index.
    { id: id(), kind: "oldpull", clone: machine, window: peer },
  ];
}
