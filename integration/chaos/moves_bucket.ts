/**
 * Moves of what else writes the bucket, inserted into a generated history
 * from generators of their own: reshapes, another tool's objects, its
 * deletions and rewrites, marks whose writes never came, a lost commit
 * answer, and versions published without the lock; and the objects those
 * other tools write.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history_ops.ts";

/** The indexes in {@link SHARED_FILES} of the files a reshape replaces (`notes/`). */
export const RESHAPED_FILES: readonly number[] = SHARED_FILES.flatMap((f, i) =>
  f.startsWith("notes/") ? [i] : []
);

/**
 * Inserts, in a share of histories, one or two reshapes (a `notes/` file
 * replaced by a directory of its name, or back; see the `reshape` {@link Op}),
 * each often after an edit of that file pushed by the same clone (so that it
 * has a synced file to replace), and in most of them a second reshape of the
 * same path a few operations later, by the same clone or by another after a
 * sync of its own (so that a synced directory is replaced by a file again).
 * From a generator of its own, with ids after every other operation's, like
 * {@link insertStalls}: the other operations of a seed stay as they were.
 */
export function insertReshapes(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const how = () => rng.pick(["hand", "push", "push"] as const);
  for (let n = rng.range(1, 2); n > 0; n--) {
    const file = rng.pick(RESHAPED_FILES);
    const clone = rng.int(clones);
    const at = placeAfterForeign(ops, rng);
    const first: Op[] = [];
    if (rng.chance(0.6)) first.push({ id: id++, kind: "edit", clone, file, how: "push" });
    first.push({ id: id++, kind: "reshape", clone, file, how: how() });
    const later: Op[] = [];
    if (rng.chance(0.7)) {
      const other = clones > 1 && rng.chance(0.6)
        ? (clone + rng.range(1, clones - 1)) % clones
        : clone;
      if (other !== clone || rng.chance(0.3)) later.push({ id: id++, kind: "sync", clone: other });
      later.push({ id: id++, kind: "reshape", clone: other, file, how: how() });
    }
    // Later positions first, so that `at` still points where it did.
    if (later.length > 0) ops.splice(Math.min(at + rng.range(0, 6), ops.length), 0, ...later);
    ops.splice(at, 0, ...first);
  }
}

/**
 * Inserts, in a share of histories, one to three writes of another tool
 * (see the `foreign` {@link Op}) at the start, into a bucket no index names
 * anything in yet: each a file of its own, a shared file, or a data version
 * (most often version 1, the one a clone's first run writes too, and often
 * with its latest marker). In most of them a clone's model run of that
 * data, or its edit of that shared file, follows at once, before any pull:
 * its first push writes where the other tool wrote. In some, a clone's move
 * to v2 comes first, cut off by its crash a few decisions in, and another
 * clone runs the move again. Ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertForeign(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const first: Op[] = [];
  const then: Op[] = [];
  for (let n = rng.range(1, 3); n > 0; n--) {
    const r = rng.next();
    const clone = rng.int(clones);
    if (r < 0.3) {
      first.push({ id: id++, kind: "foreign", what: "file" });
    } else if (r < 0.6) {
      const file = rng.int(SHARED_FILES.length);
      first.push({ id: id++, kind: "foreign", what: "shared", file });
      if (rng.chance(0.6)) then.push({ id: id++, kind: "edit", clone, file, how: "push" });
    } else {
      const model = rng.int(MODELS.length);
      const data = rng.int(DATA_NAMES.length);
      const version = rng.chance(0.8) ? 1 : 2;
      const marker = rng.chance(0.6);
      first.push({
        id: id++,
        kind: "foreign",
        what: "version",
        model,
        data,
        version,
        ...(marker ? { marker } : {}),
      });
      if (rng.chance(0.7)) {
        then.push({ id: id++, kind: "run", clone, model, data, workMs: 0 });
      }
    }
  }
  // Sometimes a clone moves the bucket to v2 at once, its process dies a few
  // decisions into the move (its shard writes, perhaps), and another clone
  // runs the move again once the dead one's global lock has gone stale.
  if (rng.chance(0.3)) {
    const mover = rng.int(clones);
    const again = clones > 1 ? (mover + rng.range(1, clones - 1)) % clones : mover;
    first.push(
      { id: id++, kind: "migrate", clone: mover },
      { id: id++, kind: "tick", n: rng.range(3, 30), pick: rng.int(2 ** 31) },
      { id: id++, kind: "crash", clone: mover },
      { id: id++, kind: "wait", ms: 65_000 },
      { id: id++, kind: "migrate", clone: again },
    );
  }
  ops.splice(0, 0, ...first, ...then);
}

/**
 * Inserts, in a share of histories, a file a clone creates whose commit's
 * answer is lost, then made a directory and pushed, that push cut off
 * between its delete and the index update after it: the clone's crash
 * armed at `answer`, its push of the file (its index write lands, the clone
 * dies before the answer), a crash armed at `commit`, and the reshape
 * pushed. The push that drops the clone's own committed upload at that
 * name must take the index entry naming it out before the upload, beside
 * old clients' entries too (a review found the removal left out there:
 * every conditional removal is checked against the store, which still held
 * the upload). At a random place after another tool's first writes (see
 * {@link insertAfterForeign}); from a generator of its own, with ids after
 * every other operation's.
 */
export function insertOwnLost(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const file = rng.pick(RESHAPED_FILES);
  const block: Op[] = [
    { id: id++, kind: "crash", clone, at: "answer", queued: true },
    { id: id++, kind: "edit", clone, file, how: "push" },
    { id: id++, kind: "crash", clone, at: "commit", queued: true },
    { id: id++, kind: "reshape", clone, file, how: "push" },
  ];
  // After another tool's first writes: its push may make the index, and
  // what that tool puts into the bucket must come before any index (I18).
  insertAfterForeign(ops, block, rng);
}

/**
 * Inserts, in a share of histories with two clones or more, a clone's new
 * file whose commit lands with its answer lost (armed to crash at
 * `answer`), which a peer then pulls; the clone deletes it and pushes,
 * armed to stop after that push's index write, before its delete of an
 * object (its withdrawal of its own upload: the entry out first, then the
 * object), and while it is stopped the peer syncs (its pull finds the entry
 * gone with the object there, and names the path again), in half of them
 * editing the file and pushing too, before the clone goes on. At the start
 * of the history (after another tool's first writes), so that the file is
 * new to every clone. From a generator of its own, with ids after every
 * other operation's, like {@link insertStalls}.
 */
export function insertOwnWithdrawn(ops: Op[], clones: number, rng: Rng, share: number): void {
  const drawn = sharedFilePair(ops, clones, rng, share);
  if (!drawn) return;
  const { clone, other: peer, file, id, tick } = drawn;
  const block: Op[] = [
    { id: id(), kind: "crash", clone, at: "answer", queued: true },
    { id: id(), kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer },
    tick(20, 40),
    { id: id(), kind: "stall", clone, on: true, at: "withdraw" },
    { id: id(), kind: "delete", clone, file, how: "push" },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer },
  ];
  if (rng.chance(0.5)) block.push({ id: id(), kind: "edit", clone: peer, file, how: "push" });
  // The clone's push goes on and ends before the history does.
  block.push(tick(20, 40), { id: id(), kind: "stall", clone, on: false }, tick(20, 40));
  insertAtStart(ops, block);
}

/**
 * Inserts, in a share of histories, another tool's deletion of a shared
 * file's object (see the `vanish` {@link Op}) at a random place: a clone
 * edits and pushes the file first (in two fifths of them, runs a model
 * instead, whose version's `raw` output is then deleted), then the object goes, and another clone
 * (one that has not pulled it since) pulls, then, 16 minutes later (in
 * steps, the scheduler going on between them), pulls again: past the 15 minutes after which a pull removes an index entry
 * naming nothing, which every clone then meets. Sometimes the editing clone
 * syncs last; sometimes the other clone first writes the file, its push cut
 * off after the upload, then deletes it and pushes (see below). Ids after
 * every other operation's, like {@link insertStalls}.
 */
export function insertVanish(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const file = rng.int(SHARED_FILES.length);
  const writer = rng.int(clones);
  const late = (writer + rng.range(1, clones - 1)) % clones;
  const block: Op[] = [
    { id: id++, kind: "edit", clone: writer, file, how: "push" },
    { id: id++, kind: "tick", n: rng.range(2, 40), pick: rng.int(2 ** 31) },
    { id: id++, kind: "vanish", file },
    { id: id++, kind: "sync", clone: late },
  ];
  // 16 minutes, in steps the other commands go on between (one long wait
  // would stop them past their own budget of fake time).
  for (let i = 0; i < 12; i++) {
    block.push(
      { id: id++, kind: "tick", n: 20, pick: rng.int(2 ** 31) },
      { id: id++, kind: "wait", ms: 80_000 },
    );
  }
  block.push({ id: id++, kind: "sync", clone: late });
  if (rng.chance(0.5)) block.push({ id: id++, kind: "sync", clone: writer });
  // In a share of them, the other clone writes the file before its first
  // pull (nothing is in the way of a create there), its push cut off after
  // the upload landed (before its commit), then deletes it and pushes: its
  // withdrawal of that upload must not take the writer's committed change,
  // which the writer then pulls past (I19 holds it to keep its copy).
  if (rng.chance(0.35)) {
    block.splice(
      3,
      1,
      // Its reads fail past the retries: the upload lands, the commit does not.
      { id: id++, kind: "flaky", call: "get", count: 6, afterEffect: false },
      { id: id++, kind: "edit", clone: late, file, how: "push" },
      { id: id++, kind: "delete", clone: late, file, how: "push" },
    );
    block.push({ id: id++, kind: "sync", clone: writer });
  }
  const at = placeAfterForeign(ops, rng);
  // Drawn last, so that the shared-file blocks stay as they were drawn before.
  if (rng.chance(0.4)) {
    const run = block[0].id;
    const model = rng.int(MODELS.length);
    const data = rng.int(DATA_NAMES.length);
    block[0] = { id: run, kind: "run", clone: writer, model, data, workMs: 0 };
    // A run takes more steps than an edit's push (its lock, its marker).
    const tick = block[1] as Extract<Op, { kind: "tick" }>;
    block[1] = { ...tick, n: rng.range(60, 160) };
    block[2] = { id: block[2].id, kind: "vanish", file, run };
  }
  ops.splice(at, 0, ...block);
}

/**
 * Inserts, in a share of histories, one or two marks whose writes never
 * came (see the `unwritten` {@link Op}) at random places, with ids after
 * every other.
 */
export function insertUnwritten(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const op: Op = {
      id: id++,
      kind: "unwritten",
      clone: rng.int(clones),
      file: rng.int(SHARED_FILES.length),
    };
    insertAfterForeign(ops, [op], rng);
  }
}

/**
 * Inserts, in a share of histories, another tool's publication of a
 * version at a run's number (see the `lockless` {@link Op}) right after
 * model runs: after most runs that a second process's structural command
 * over the same cache precedes (its pull then meets the other tool's
 * version while the run holds its own unpublished one), and after one or
 * two runs drawn at random; after a drawn run of a core-driven clone that
 * works 15 s or more, most often such a structural command too, started at
 * once. Three quarters of them write their index entries, and half of
 * those the `latest` marker too. Ids after every other operation's,
 * like {@link insertStalls}.
 */
export function insertLockless(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const runs = ops.flatMap((o, i) => o.kind === "run" ? [i] : []);
  if (runs.length === 0) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const after = new Set<number>();
  for (const i of runs) {
    const before = ops[i - 1];
    const structural = before?.kind === "sibling" && before.how === "structural" &&
      before.clone === (ops[i] as Extract<Op, { kind: "run" }>).clone;
    if (structural && rng.chance(0.8)) after.add(i);
  }
  const drawn = new Set<number>();
  for (let n = rng.range(1, 2); n > 0; n--) drawn.add(rng.pick(runs));
  // Later positions first, so that the earlier ones still point where they did.
  for (const i of [...new Set([...after, ...drawn])].sort((a, b) => b - a)) {
    const run = ops[i] as Extract<Op, { kind: "run" }>;
    // A marker only with index entries: written alone, it would leave the
    // index naming a marker version the store no longer holds.
    const indexed = rng.chance(0.75);
    const marker = indexed && rng.chance(0.5);
    const block: Op[] = [{
      id: id++,
      kind: "lockless",
      run: run.id,
      pick: rng.int(2 ** 31),
      indexed,
      ...(marker ? { marker } : {}),
    }];
    // After a drawn run of a core-driven clone that works long enough, most
    // often a second process over its cache runs a structural command at
    // once: its pull meets the other tool's version beside the run's own,
    // written and not flushed.
    if (!after.has(i) && kinds[run.clone] !== "api" && run.workMs >= 15_000 && rng.chance(0.7)) {
      const workMs = rng.pick([500, 1_000, 3_000]);
      block.push({ id: id++, kind: "sibling", clone: run.clone, how: "structural", workMs });
    }
    ops.splice(i + 1, 0, ...block);
  }
}

/**
 * What a `lockless` operation publishes at version `n` of the data under
 * `base` (`data/<model>/<data>`): each object's path and text.
 */
export function locklessObjects(
  op: Extract<Op, { kind: "lockless" }>,
  base: string,
  n: number,
): { path: string; text: string }[] {
  const by = `another tool without the lock, op ${op.id}`;
  return [
    { path: `${base}/${n}/raw`, text: `[${by}] raw output\n` },
    { path: `${base}/${n}/metadata.yaml`, text: `token: "[${by}]"\nversion: ${n}\n` },
    ...(op.marker ? [{ path: `${base}/latest`, text: `${n}` }] : []),
  ];
}

/** What a `foreign` operation puts into the bucket: each object's path and text. */
export function foreignObjects(
  op: Extract<Op, { kind: "foreign" }>,
): { path: string; text: string }[] {
  const by = `another tool, op ${op.id}`;
  if (op.what === "file") return [{ path: `imports/foreign-op${op.id}.txt`, text: `${by}\n` }];
  if (op.what === "shared") return [{ path: SHARED_FILES[op.file ?? 0], text: `${by}\n` }];
  const base = `data/${MODELS[op.model ?? 0]}/${DATA_NAMES[op.data ?? 0]}`;
  const n = op.version ?? 1;
  return [
    { path: `${base}/${n}/raw`, text: `[${by}] raw output\n` },
    { path: `${base}/${n}/metadata.yaml`, text: `token: "[${by}]"\nversion: ${n}\n` },
    ...(op.marker ? [{ path: `${base}/latest`, text: `${n}` }] : []),
  ];
}

/**
 * The first place in `ops` where a move's operations may go: after another
 * tool's first writes (the `foreign` operations), which come before any
 * index is made, and so before every other operation (I18: what is there
 * when an index is made is named by it). The one rule every move's
 * insertion follows, whatever was inserted before it: 0 while there are
 * none, so that a move inserted before them draws what it drew before.
 */
export function afterForeign(ops: readonly Op[]): number {
  return ops.findLastIndex((o) => o.kind === "foreign") + 1;
}

/**
 * A random place in `ops` for a move's block, drawn with one `rng.int`, at
 * or after {@link afterForeign} (`end` false: before the last operation).
 */
export function placeAfterForeign(ops: readonly Op[], rng: Rng, end = true): number {
  const from = afterForeign(ops);
  return from + rng.int(Math.max(1, ops.length - from + (end ? 1 : 0)));
}

/**
 * Inserts `block` at a random place after another tool's first writes,
 * which come before any index is made (see {@link afterForeign}).
 */
export function insertAfterForeign(ops: Op[], block: Op[], rng: Rng): void {
  ops.splice(placeAfterForeign(ops, rng), 0, ...block);
}

/**
 * Inserts `block` at the start of the history, after another tool's first
 * writes (see {@link afterForeign}).
 */
export function insertAtStart(ops: Op[], block: Op[]): void {
  ops.splice(afterForeign(ops), 0, ...block);
}

/** What {@link sharedFilePair} drew: a clone, another one, a shared file, and the next ids. */
export interface SharedFilePair {
  clone: number;
  other: number;
  file: number;
  /** The next operation's id. */
  id: () => number;
  /** A `tick` of `lo` to `hi` steps, with the next id. */
  tick: (lo: number, hi: number) => Op;
}

/**
 * The start of a generator of a clone's moves at a shared file beside
 * another clone's, in a share of histories with two clones or more:
 * undefined where it draws none (nothing drawn past `rng.chance(share)`),
 * else the clone, another one and the file, drawn in that order, with ids
 * after every other operation's, like {@link insertStalls}.
 */
export function sharedFilePair(
  ops: readonly Op[],
  clones: number,
  rng: Rng,
  share: number,
): SharedFilePair | undefined {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return undefined;
  let next = Math.max(...ops.map((o) => o.id)) + 1;
  const id = () => next++;
  const clone = rng.int(clones);
  const other = (clone + rng.range(1, clones - 1)) % clones;
  const file = rng.int(SHARED_FILES.length);
  const tick = (lo: number, hi: number): Op => ({
    id: id(),
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  return { clone, other, file, id, tick };
}

/**
 * Inserts, after both clones synced (so that their runs write one version
 * number), a clone's deterministic run (see the `run` {@link Op}'s `same`)
 * whose process stops once its version's uploads landed, before its
 * commit (a `stall` at `commit`), while a breakglass takes its lock; it
 * goes on, refused (`model_lock_lost`), its erasure's deletes of those
 * uploads cut off (left pending, as an outage leaves them). Another clone
 * then runs the same method: its creates meet those uploads, the same
 * bytes, and its commit publishes them. The first clone runs that model's
 * data again, other bytes at the number its erasure freed here (refused
 * with `version_exists`, its copy set aside), and syncs twice; after
 * another tool's first writes (see {@link insertAfterForeign}). For
 * `setAsideFlaky` histories (see `History.setAsideFlaky`), with two clones
 * or more; from a generator of its own, with ids after every other
 * operation's.
 */
export function insertSetAsideRerun(ops: Op[], clones: number, rng: Rng): void {
  if (ops.length === 0 || clones < 2) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const tick = (lo: number, hi: number): Op => ({
    id: id++,
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  const block: Op[] = [
    { id: id++, kind: "sync", clone },
    { id: id++, kind: "sync", clone: peer },
    tick(20, 40),
    { id: id, kind: "run", clone, model, data, workMs: 0, same: true },
    { id: id + 1, kind: "stall", clone, on: true, at: "commit", run: id, pick: rng.int(2 ** 31) },
  ];
  id += 2;
  block.push(
    { id: id++, kind: "breakglass", model },
    tick(20, 40),
    // Its erasure's deletes of its uploads cut off: left pending.
    { id: id++, kind: "flaky", call: "delete", count: 2, afterEffect: false },
    { id: id++, kind: "stall", clone, on: false },
    tick(20, 40),
    { id: id++, kind: "run", clone: peer, model, data, workMs: 0, same: true },
    tick(40, 80),
    tick(40, 80),
    { id: id++, kind: "run", clone, model, data, workMs: 0 },
    tick(20, 40),
    { id: id++, kind: "sync", clone },
    tick(20, 40),
    { id: id++, kind: "sync", clone },
  );
  // After another tool's first writes: its run makes an index, and what
  // that tool puts into the bucket must come before any index (I18).
  insertAfterForeign(ops, block, rng);
}
