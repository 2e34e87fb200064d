/**
 * The commands a clone runs in a chaos history, one after another (as one
 * user at one terminal): model runs, lockfile transactions, syncs, bulk
 * pushes, and the edits, deletions, marker writes and conflict resolutions
 * whose local changes I6 follows (`local_changes.ts`).
 *
 * @module
 */
import { ResolveRefusedError } from "../../sync/service/resolve.ts";
import { hasCode, SluiceError } from "../../sync/errors.ts";
import { sha256Hex } from "../../sync/hash.ts";
import {
  MANAGED_LOCKFILE_PATH,
  pendingLockfileDelta,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../../sync/locks/lockfile_txn.ts";
import { type LockfileChange, mergeLockfileChanges } from "../../sync/locks/lockfile_change.ts";
import {
  acquireModelLocks,
  globalLockKey,
  type ModelLockSet,
} from "../../sync/locks/model_locks.ts";
import { migrateIndex } from "../../sync/service/migrate.ts";
import { setAsideCopies } from "../../sync/service/conflicts.ts";
import { setAsideSource } from "../../sync/transfer/cache_state.ts";
import type { DistributedLock, LockOptions } from "../../sync/ports.ts";
import { pushUnderGlobalLock } from "../../sync/service/global_lock_push.ts";
import type { PushOptions } from "../../sync/service/push_options.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import { peerCommitSeq, peerPull, peerPush } from "../../packages/testing/layout_peer.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { ConflictRecord, Resolution } from "../../sync/service/conflicts.ts";
import type { ResolveResult } from "../../sync/service/resolve.ts";
import { DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history.ts";
import {
  type GroundTruth,
  pendingRun,
  type RunRecord,
  sameBytes,
  type TxnRecord,
} from "./invariants.ts";
import type { LocalChanges } from "./local_changes.ts";
import type { ShapeWatch } from "./shapes.ts";
import type { ChaosStats } from "./stats.ts";
import { pendingChanges, unaccounted } from "./accounted.ts";
import { underMarkerDelete } from "./under_marker.ts";

/** Lock timings of the workload (fake time). */
export const CHAOS_LOCK: LockOptions = { ttlMs: 30_000, maxWaitMs: 60_000, retryDelayMs: 2_000 };

/** A command queued on a clone. */
export interface Command {
  readonly label: string;
  readonly body: (svc: SyncService) => Promise<void>;
  /** Marks the command's record when a crash or a timeout freezes it. */
  readonly onFreeze: (why: "crashed" | "hung") => void;
  /**
   * False when the command does not begin by taking in what the cache's
   * other processes wrote to the synced manifest (a lockfile change: it
   * saves its own row with no refresh first, a line appended to the log
   * that reads none of it), so that I30 waits for the process's next
   * command to tell a damaged line.
   */
  readonly takesIn?: false;
  /**
   * True once a run of the command ended having called nothing of the
   * library that takes in the synced manifest (its body returned
   * {@link NOTHING_TAKEN_IN}): it read no line of the log, so that I30
   * waits for the process's next command to tell a damaged line.
   */
  readonly tookNothingIn?: () => boolean;
}

/**
 * What a command's body returns when this run of it called nothing of the
 * library that takes in the synced manifest (no push, pull, resolution or
 * status): a user's edit, deletion or reshape by hand, an edit marked dirty
 * and not pushed (marking writes the dirty journal alone), or one that
 * found no file to act on (see {@link Command.tookNothingIn}).
 */
export const NOTHING_TAKEN_IN = Symbol("nothing taken in");

/** What the commands record into. */
export interface CommandEnv {
  /** The history's seed (names the run bytes). */
  readonly seed: number;
  /** Old clients push too (`oldpush` moves). */
  readonly oldClients?: boolean;
  /**
   * Every Sluice API push and resolution commits under the global lock: set
   * when old clients push too, unless `--disable global-lock`
   * ({@link GLOBAL_LOCK_COMMITS}) shows what the lock prevents.
   */
  readonly globalLockCommits?: boolean;
  readonly truth: GroundTruth;
  readonly changes: LocalChanges;
  /** Reshapes left for a walk, and the writes I15 follows (`shapes.ts`). */
  readonly shapes: ShapeWatch;
  readonly stats: ChaosStats;
  /** Counts a command outcome and traces it. */
  outcome(o: string, what?: string, error?: unknown): void;
  /** The history operation running now (for violations seen by a command). */
  opId(): number;
  /**
   * Runs `body` as a unit of clone `clone`'s process beside the command
   * that calls it (another step of a workflow: `parallel` runs).
   */
  spawn?(clone: number, label: string, body: () => Promise<void>): void;
  /**
   * Whether the remote index names `path` now (read past faults and
   * scheduling, no other unit running meanwhile) with an entry the push of
   * `holder` that reports its upload there withdrawn is answerable for (see
   * `withdrawals.ts`); absent: not checked.
   */
  withdrawnNamed?(path: string, holder: string): Promise<boolean>;
  /**
   * For an old client's push (operation `op`) stopping inside its
   * read-modify-write (an `oldpush` with `window`), or its pull between its
   * read of the index and its write-back (an `oldpull` with `window`),
   * called once it read the index: true, asked later, once a command of clone `clone` begun after
   * this call ended (or its process died) or attempted the global lock;
   * absent: it does not stop.
   */
  windowOf?(clone: number, op: number): () => boolean;
  /**
   * A push of `svc` under the global lock (`globalLockCommits`), which its
   * service's `pushChanged` does not see, succeeded with `r`: I23 settles
   * the marks it did not leave, as at the end of a plain push
   * (`named_deletions.ts`); absent: not told.
   */
  pushedUnderGlobalLock?(svc: SyncService, r: PushResult): void;
  /**
   * The versions the remote index names at `latest` markers now (read past
   * faults and scheduling); absent: I35 is not checked.
   */
  markerEntries?(): Promise<Record<string, string>>;
  /** The version of `path` the store holds now (null: none), read past faults and scheduling. */
  heldVersion?(path: string): Promise<string | null>;
  /**
   * The shared paths whose object the store holds now, written by a Sluice
   * writer (its writer id on it), that the index `entries` an old client's
   * pull just wrote back does not name (read past faults and scheduling);
   * absent: not looked at.
   */
  sluiceUnnamed?(entries: Readonly<Record<string, unknown>>): Promise<string[]>;
  /**
   * The bytes the store holds at `path` now (read past faults and
   * scheduling); absent: not looked at.
   */
  storeRead?(path: string): Promise<Uint8Array | undefined>;
  /** Whether the remote index names `path` now (read past faults and scheduling); absent: not looked at. */
  indexNames?(path: string): Promise<boolean>;
}

/**
 * How long an old client's push stops inside its read-modify-write at most
 * (an `oldpush` with `window`; an `oldpull` with `window` as long), in fake time: short of a Sluice push's wait
 * for the global lock it holds meanwhile (`CHAOS_LOCK.maxWaitMs`).
 */
export const OLD_WINDOW_MS = 50_000;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The `--disable` name that makes Sluice commit without the global lock beside old clients. */
export const GLOBAL_LOCK_COMMITS = "global-lock";

/** The global lock as a clone's Sluice takes it for a commit in a mixed fleet. */
function globalLockOf(svc: SyncService): DistributedLock {
  if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
  return svc.lockBackend.createLock(globalLockKey(), svc.identity, CHAOS_LOCK);
}

/**
 * A Sluice API push: under the global lock when old clients push too (see
 * {@link CommandEnv}). One that succeeds must account for every local
 * change it was asked to publish, and so must one that fails as unreachable
 * (I20, `accounted.ts`).
 */
export async function pushOf(
  env: CommandEnv,
  svc: SyncService,
  options: PushOptions = {},
): Promise<PushResult> {
  const before = options.dryRun ? new Map() : await pendingChanges(svc);
  // I15 as the push ends (`shapes.ts`): the clone's own puts, told by its name.
  const clone = /^c(\d+)@/.exec(svc.identity.holder)?.[1];
  const from = env.shapes.puts;
  const shapes = async () => {
    if (clone === undefined || options.dryRun) return;
    for (const v of await env.shapes.checkPush(Number(clone), from, env.opId())) {
      env.truth.violate(v);
    }
  };
  let r: PushResult;
  try {
    r = env.globalLockCommits
      ? await pushUnderGlobalLock(svc, globalLockOf(svc), options)
      : await svc.pushChanged(options);
  } catch (e) {
    if (codeOf(e) !== "unreachable") throw e;
    await shapes();
    for (const path of await unaccounted(svc, before)) {
      env.truth.violate({
        invariant: "I20",
        message:
          `a push of ${svc.identity.holder} failed as unreachable, and dropped its local change of ${path}: not published, not kept dirty, no conflict; no later push takes it`,
        afterOp: env.opId(),
      });
    }
    throw e;
  }
  await shapes();
  if (env.globalLockCommits && !options.dryRun) env.pushedUnderGlobalLock?.(svc, r);
  await withdrawnNamed(env, svc, r);
  for (const path of await unaccounted(svc, before, r)) {
    env.truth.violate({
      invariant: "I20",
      message:
        `a push of ${svc.identity.holder} succeeded, but dropped its local change of ${path}: not published, not kept dirty, not a conflict, not said to be unpublished; no later push takes it`,
      afterOp: env.opId(),
    });
  }
  return r;
}

/**
 * I32: a push that reports an upload of its cache taken back as a deleted
 * file's (`withdrawn`), with no conflict at that path, leaves no index entry
 * naming the path as it ends: one a peer committed while the withdrawal was
 * under way (naming the path again between the entry's removal and the
 * object's deletion) would bring the deleted file back at the next pull
 * with no conflict ever shown. Spared (`withdrawals.ts`): an entry committed
 * after the push's last read of the index (a later change, shown by the
 * next pull as any is), and any entry beside an upload the index never named
 * (a peer's file of its own, no entry of this cache's named again). An
 * entry naming the withdrawn upload itself, gone from the store, is never
 * spared: an index write from a read made before the withdrawal (an old
 * client's read-modify-write) put it back, naming nothing.
 */
async function withdrawnNamed(env: CommandEnv, svc: SyncService, r: PushResult): Promise<void> {
  if (!env.withdrawnNamed) return;
  for (const s of r.strandedChecks) {
    if (s.outcome !== "withdrawn" || r.conflicts.includes(s.path)) continue;
    if (!(await env.withdrawnNamed(s.path, svc.identity.holder))) continue;
    env.truth.violate({
      invariant: "I32",
      message:
        `a push of ${svc.identity.holder} reported its upload of ${s.path} withdrawn (a deleted file's) with no conflict, while the index names ${s.path}: its next pull brings the deleted file back`,
      afterOp: env.opId(),
    });
  }
}

/** The error code of `e` (or `exception:<name>`). */
export function codeOf(e: unknown): string {
  if (e instanceof SluiceError) return e.code;
  return `exception:${e instanceof Error ? e.name : typeof e}`;
}

/** The highest data version under `base` in a cache (0 when none). */
export async function highestVersion(cacheDir: string, base: string): Promise<number> {
  let max = 0;
  try {
    for await (const e of Deno.readDir(`${cacheDir}/${base}`)) {
      if (e.isDirectory && /^\d+$/.test(e.name)) max = Math.max(max, Number(e.name));
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return max;
}

/** A model run: take the model lock, write version N+1 and the marker, push under the lock. */
export function runCommand(env: CommandEnv, op: Extract<Op, { kind: "run" }>): Command {
  const model = MODELS[op.model];
  const dataName = DATA_NAMES[op.data];
  const token = `[chaos-run s${env.seed} op${op.id}]`;
  const rec: RunRecord = { ...pendingRun(op, model, token), ...(op.same ? { same: true } : {}) };
  const label = `run #${op.id} ${model}/${dataName}${op.same ? " (same output)" : ""}`;
  const who = `c${op.clone} ${label}`;
  return {
    label,
    onFreeze: freezeRun(env, rec, who),
    body: async (svc) => {
      runStarted(env, rec);
      const set = await runLock(env, svc, model, rec, who);
      if (!set) return;
      try {
        const base = `data/${model}/${dataName}`;
        const n = (await highestVersion(svc.cacheDir, base)) + 1;
        const dir = `${base}/${n}`;
        // A deterministic run's output names only what it is the output of.
        const by = op.same ? `[chaos-same s${env.seed} ${dir}]` : `${token} of c${op.clone}`;
        rec.files = runFiles(by, dir, n);
        for (const f of rec.files) await svc.cache.write(f.path, f.bytes);
        await svc.cache.write(`${base}/latest`, enc.encode(`${n}`));
        env.changes.replaced(op.clone, `${base}/latest`);
        await svc.markDirty({ relPaths: [...rec.files.map((f) => f.path), `${base}/latest`] });
        if (op.workMs > 0) await svc.clock.sleep(op.workMs);
        let failure: unknown;
        try {
          await set.push([dir], env.globalLockCommits ? { globalLock: globalLockOf(svc) } : {});
          rec.outcome = "success";
        } catch (e) {
          rec.outcome = codeOf(e);
          rec.refusedKeys = (e as { keys?: readonly string[] }).keys;
          failure = e;
        }
        env.outcome(rec.outcome, `${who} (version ${n})`, failure);
      } finally {
        await set.release();
      }
    },
  };
}

/**
 * A run's two files in version directory `dir` (number `n`), whose bytes
 * name the run (`by`).
 */
export function runFiles(
  by: string,
  dir: string,
  n: number,
): { path: string; bytes: Uint8Array }[] {
  return [
    { path: `${dir}/raw`, bytes: enc.encode(`${by} raw output\n`) },
    { path: `${dir}/metadata.yaml`, bytes: enc.encode(`token: "${by}"\nversion: ${n}\n`) },
  ];
}

/** A run's `onFreeze`: its process crashed or hung while the run was pending. */
export function freezeRun(env: CommandEnv, rec: RunRecord, who: string): (why: string) => void {
  return (why) => {
    if (rec.outcome !== "pending") return;
    rec.outcome = why;
    env.outcome(why, who);
  };
}

/** The run `rec` starts (counted; `core`: driven as the tool drives it). */
export function runStarted(env: CommandEnv, rec: RunRecord, core = false): void {
  env.truth.runs.push(rec);
  env.stats.runs++;
  if (core) env.stats.coreRuns++;
}

/** A second process that dies before its push (`die` stops it), as its run's outcome says. */
export function siblingDies(
  env: CommandEnv,
  rec: RunRecord,
  who: string,
  die: () => void,
  before: string,
): void {
  die();
  rec.outcome = "crashed";
  env.stats.siblingsDied++;
  env.outcome("crashed", `${who} (died before its ${before})`);
}

/** The model lock of a run over the library (null, its outcome told, when it could not be had). */
async function runLock(
  env: CommandEnv,
  svc: SyncService,
  model: string,
  rec: RunRecord,
  who: string,
): Promise<ModelLockSet | null> {
  try {
    return await acquireModelLocks(svc, [model], {
      lock: CHAOS_LOCK,
      globalWaitMs: 60_000,
      globalPollMs: 2_000,
    });
  } catch (e) {
    rec.outcome = codeOf(e);
    env.outcome(rec.outcome, who, e);
    return null;
  }
}

/**
 * A second process of the tool over clone `op.clone`'s cache (the `sibling`
 * move), on `svc`, a service of its own over that cache: the lock of a model
 * of its own, version 1 of its data written and marked dirty, then, after
 * `op.workMs`, its push under that lock, or its death before it (`die`
 * stops its lock's heartbeats; the lock is left to expire). Its version is
 * a run's: acknowledged, I1 holds it; marked and never pushed by it (it
 * died, or its push failed), I28 holds the next process on that cache to
 * publish it.
 */
/**
 * What a second process's run over a clone's cache records (`siblingCommand`
 * and the core-driven one): its model, the token its bytes carry, its run
 * record, its label, and its outcome when it is frozen.
 */
export function siblingRun(env: CommandEnv, op: Extract<Op, { kind: "sibling" }>, model: string) {
  const by = `[chaos-sibling s${env.seed} op${op.id}] of c${op.clone}`;
  const rec = pendingRun(op, model, by);
  const label = `second process #${op.id} ${model}/out (${op.how === "dies" ? "dies" : "pushes"})`;
  const who = `c${op.clone} ${label}`;
  return { by, rec, label, who, onFreeze: freezeRun(env, rec, who) };
}

export function siblingCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "sibling" }>,
  die: () => void,
): Command {
  const model = `chaos/sibling/op${op.id}`;
  const { by, rec, label, who, onFreeze } = siblingRun(env, op, model);
  return {
    label,
    onFreeze,
    body: async (svc) => {
      runStarted(env, rec);
      const set = await runLock(env, svc, model, rec, who);
      if (!set) return;
      let died = false;
      try {
        const base = `data/${model}/out`;
        const dir = `${base}/1`;
        rec.files = runFiles(by, dir, 1);
        for (const f of rec.files) await svc.cache.write(f.path, f.bytes);
        await svc.cache.write(`${base}/latest`, enc.encode("1"));
        await svc.markDirty({ relPaths: [...rec.files.map((f) => f.path), `${base}/latest`] });
        env.truth.marked.push(rec);
        if (op.workMs > 0) await svc.clock.sleep(op.workMs);
        if (op.how === "dies") {
          died = true;
          siblingDies(env, rec, who, die, "push");
          return;
        }
        let failure: unknown;
        try {
          await set.push([dir], env.globalLockCommits ? { globalLock: globalLockOf(svc) } : {});
          rec.outcome = "success";
        } catch (e) {
          rec.outcome = codeOf(e);
          failure = e;
        }
        env.outcome(rec.outcome, who, failure);
      } finally {
        if (!died) await set.release();
      }
    },
  };
}

/**
 * A command whose outcome is its body's: success, or the error code it
 * threw. `notSluice`: the body is another tool's (an old client's push or
 * pull on the clone's machine), which calls nothing of the library and
 * takes no line of the clone's manifest in, whatever it returns.
 */
export function plainCommand(
  env: CommandEnv,
  clone: number,
  label: string,
  body: (svc: SyncService) => Promise<void | typeof NOTHING_TAKEN_IN>,
  notSluice = false,
): Command {
  const state = { done: false, nothingTakenIn: false };
  const who = `c${clone} ${label}`;
  return {
    label,
    onFreeze: (why) => {
      if (!state.done) env.outcome(why, who);
    },
    tookNothingIn: () => state.nothingTakenIn,
    body: async (svc) => {
      try {
        state.nothingTakenIn = (await body(svc)) === NOTHING_TAKEN_IN || notSluice;
        env.outcome("success", who);
      } catch (e) {
        env.outcome(codeOf(e), who, e);
      }
      state.done = true;
    },
  };
}

/** A managed lockfile transaction (set, remove, or a retry of the pending delta). */
export function lockfileCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "lockfile" }> | { id: number; clone: number },
): Command {
  const o = op as { id: number; clone: number; set?: string; remove?: string };
  const change: LockfileChange | undefined = o.set
    ? { set: { [o.set]: { by: `c${o.clone}`, op: o.id } } }
    : o.remove
    ? { remove: [o.remove] }
    : undefined;
  if (o.remove) env.truth.removals.add(o.remove);
  let rec: TxnRecord | undefined;
  const label = `lockfile #${o.id} ${
    o.set ? `set ${o.set}` : o.remove ? `remove ${o.remove}` : "retry"
  }`;
  const who = `c${o.clone} ${label}`;
  return {
    label,
    takesIn: false,
    onFreeze: (why) => {
      if (!rec || rec.outcome !== "pending") return;
      rec.outcome = why;
      env.outcome(why, who);
    },
    body: async (svc) => {
      const pending = await pendingLockfileDelta(svc).catch(() => null);
      const merged = mergeLockfileChanges(pending ?? {}, change ?? {});
      if (Object.keys(merged.set ?? {}).length === 0 && (merged.remove ?? []).length === 0) {
        return;
      }
      for (const name of merged.remove ?? []) env.truth.removals.add(name);
      rec = {
        op: o.id,
        clone: o.clone,
        set: merged.set ?? {},
        remove: merged.remove ?? [],
        outcome: "pending",
      };
      env.truth.txns.push(rec);
      env.stats.lockfileTxns++;
      // A record naming a copy set aside stays until a resolution drops it.
      const lockfileConflict = () =>
        svc.conflicts().some((c) =>
          c.path === MANAGED_LOCKFILE_PATH && setAsideCopies(c).length === 0
        );
      if (lockfileConflict()) env.stats.lockfileTxnsOverConflict++;
      let failure: unknown;
      try {
        if (change) await updateManagedLockfile(svc, change, { lockOptions: CHAOS_LOCK });
        else await retryPendingLockfile(svc, { lockOptions: CHAOS_LOCK });
        rec.outcome = "acked";
        env.stats.lockfileAcked++;
        // I34: the transaction wrote the datastore's copy here, holding this
        // change: a conflict a pull recorded at the lockfile is over.
        if (lockfileConflict()) {
          env.truth.violate({
            invariant: "I34",
            message:
              `${who} published, and wrote the datastore's copy here, yet c${o.clone} still holds a conflict open at ${MANAGED_LOCKFILE_PATH}: every later pull and push warns conflicts_left over a path whose two sides agree`,
            afterOp: env.opId(),
          });
        }
      } catch (e) {
        rec.outcome = codeOf(e);
        failure = e;
      }
      env.outcome(rec.outcome === "acked" ? "success" : rec.outcome, who, failure);
    },
  };
}

/**
 * Writes `bytes` to a cache file as a user does, in place. Its mtime is set
 * explicitly (so outcomes never hang on the filesystem's timestamp tick):
 * with `sameTick`, to the one the file had (an edit within the tick of the
 * last write), else past it.
 */
async function handWrite(file: string, bytes: Uint8Array, sameTick: boolean): Promise<void> {
  const before = await Deno.stat(file).catch(() => null);
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(file, bytes);
  const old = before?.mtime?.getTime();
  if (old === undefined) return;
  const mtime = sameTick ? old : Math.max(old + 1_000, Date.now());
  await Deno.utime(file, new Date(mtime), new Date(mtime));
}

/** The bytes of a latest marker (a number up to `max`, as written) whose SHA-256 is `hash`. */
async function markerBytes(hash: string, max: number): Promise<Uint8Array | undefined> {
  for (let k = 1; k <= max; k++) {
    for (const text of [`${k}`, `${k}\n`]) {
      const bytes = enc.encode(text);
      if (await sha256Hex(bytes) === hash) return bytes;
    }
  }
  return undefined;
}

/** True when a directory is at `path` in the cache (a file replaced by a directory of its name). */
async function directoryAt(svc: SyncService, path: string): Promise<boolean> {
  return (await Deno.lstat(`${svc.cacheDir}/${path}`).catch(() => null))?.isDirectory === true;
}

/** True when a file (or anything but a directory) is where a directory above `path` must be. */
async function fileAbove(svc: SyncService, path: string): Promise<boolean> {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const st = await Deno.lstat(`${svc.cacheDir}/${parts.slice(0, i).join("/")}`).catch(() => null);
    if (st === null) return false;
    if (!st.isDirectory) return true;
  }
  return false;
}

/** The files under directory `rel` of the cache at `cacheDir`, at any depth (cache-relative). */
async function filesIn(cacheDir: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  let list: Deno.DirEntry[];
  try {
    list = [...Deno.readDirSync(`${cacheDir}/${rel}`)];
  } catch {
    return out;
  }
  for (const e of list) {
    if (e.isDirectory) out.push(...await filesIn(cacheDir, `${rel}/${e.name}`));
    else if (e.isFile) out.push(`${rel}/${e.name}`);
  }
  return out;
}

/** Bytes of an edit: unique (they name the op), of the old size when asked and possible. */
function editBytes(head: string, size?: number): Uint8Array {
  const text = `${head}; some settings\n`;
  if (size === undefined || size < head.length + 1) return enc.encode(text);
  return enc.encode(`${head}${".".repeat(size)}`.slice(0, size - 1) + "\n");
}

/**
 * Records an edit of `path` in clone `c`'s cache for I6, unless its bytes
 * are what the cache last synced (then it is no local change: the edit only
 * replaces any earlier one of the clone).
 */
async function recordEdit(
  env: CommandEnv,
  svc: SyncService,
  e: { op: number; clone: number; path: string; how: string },
  bytes: Uint8Array,
): Promise<void> {
  if (e.path.endsWith("/latest")) env.truth.userMarkers.add(`${e.path}\0${await sha256Hex(bytes)}`);
  if (svc.state.synced(e.path)?.hash === await sha256Hex(bytes)) {
    env.changes.replaced(e.clone, e.path);
  } else await env.changes.record(e, bytes);
}

/**
 * An old client's push on the clone's machine: under the global lock (its
 * own identity), a plain put of a new file, then an unconditional
 * read-modify-write of the index (`peerPush`). Recorded for I12 once it
 * returns.
 */
/**
 * A mark whose write never came (the `unwritten` move): only where nothing
 * is at the path here (a mark of a file here is an edit's).
 */
export function unwrittenCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "unwritten" }>,
): Command {
  return plainCommand(env, op.clone, `mark, never written #${op.id}`, async (svc) => {
    const path = SHARED_FILES[op.file];
    if (await Deno.lstat(`${svc.cacheDir}/${path}`).catch(() => null)) return NOTHING_TAKEN_IN;
    // Nor where it synced the path (a file deleted here: a mark of that is a deletion's).
    if (svc.state.synced(path)) return NOTHING_TAKEN_IN;
    // Nor where a conflict here records a deletion of the path already: a
    // user's deletion kept as a conflict with a peer's version that named
    // the path again (`delete_skipped`), not a mark's.
    if (svc.conflicts().some((c) => c.path === path && c.mine === null)) return NOTHING_TAKEN_IN;
    env.stats.unwrittenMarks++;
    env.truth.unwritten.push({
      op: op.id,
      clone: op.clone,
      path,
      touchedBefore: env.changes.touched.length,
    });
    // A mark appends to the dirty journal: it reads no line of the manifest's log.
    await svc.markDirty({ relPath: path });
    return NOTHING_TAKEN_IN;
  });
}

/**
 * An old client's pull (`peerPull`), on the clone's machine: no lock. Its
 * writes are by design (a commit it drops is named again by its writer's
 * next pull); counted, nothing recorded.
 */
export function oldPullCommand(env: CommandEnv, op: Extract<Op, { kind: "oldpull" }>): Command {
  return plainCommand(env, op.clone, `${OLD_PULL_LABEL} #${op.id}`, async (svc) => {
    env.stats.oldPulls++;
    const startedBefore = env.truth.oldStarted.length;
    // Under way as it starts: their index write may land after its read.
    const inFlight = [...env.truth.oldUnfinished.values()];
    // Stopped between its read and its write-back (`window`): what that
    // clone's command commits meanwhile, its write drops.
    const window = op.window;
    const afterRead = window === undefined || !env.windowOf ? undefined : async () => {
      const done = env.windowOf!(window, op.id);
      env.stats.oldPullWindows++;
      const until = svc.clock.now() + OLD_WINDOW_MS;
      while (!done() && svc.clock.now() < until) await svc.clock.sleep(1_000);
      if (done()) env.stats.oldPullWindowsMet++;
    };
    const dropped = await peerPull(svc.store, {
      ...(afterRead ? { afterRead } : {}),
      // An entry another old client committed since this pull's read is
      // dropped by its write, by their design, or rolled back to the entry
      // it read (an earlier write of that path, other bytes): no Sluice
      // clone names it again (I7, I8, I11 and I12 spare it: those in
      // flight, or done, since the pull began, whose entry it did not write
      // with their bytes). Sluice's own are named again by their writers.
      // Also run when its write failed: one whose answer was lost (a flaky
      // put after effect) landed all the same.
      afterWrite: async (wrote) => {
        const since = [
          ...inFlight,
          ...env.truth.oldStarted.slice(startedBefore),
          ...env.truth.oldUnfinished.values(),
        ];
        for (const o of since) {
          const p = oldPushPath(o);
          const e = wrote[p];
          const kept = e !== undefined &&
            (o.del || e.sha256 === await sha256Hex(enc.encode(oldPushText(o))));
          if (!kept) env.truth.oldPullDropped.add(p);
        }
        // An old client's write of a refused run's bytes it wrote over
        // without their entry (see `GroundTruth.oldPullMissed`).
        for (const w of env.truth.oldCommitted) {
          if (Object.hasOwn(wrote, w.path)) continue;
          env.truth.oldPullMissed.add(w.path);
          // Gone from the store as it wrote (see `GroundTruth.oldPullMetGone`).
          const held = await env.storeRead?.(w.path);
          if (env.storeRead && !sameBytes(held, w.bytes)) env.truth.oldPullMetGone.add(w.path);
        }
        // A run's version the store holds that its index leaves out (a
        // commit it dropped, or one not landed yet: see
        // `GroundTruth.oldPullRunsUnnamed`).
        for (const f of env.truth.runs.flatMap((r) => r.files)) {
          if (Object.hasOwn(wrote, f.path) || !env.storeRead) continue;
          if (sameBytes(await env.storeRead(f.path), f.bytes)) {
            env.truth.oldPullRunsUnnamed.add(f.path);
          }
        }
        // A Sluice write its index leaves out (a commit it dropped).
        const unnamed = await env.sluiceUnnamed?.(wrote) ?? [];
        for (const p of unnamed) env.truth.oldPullUnnamed.add(p);
        if (window !== undefined) env.stats.oldPullWindowUnnamed += unnamed.length;
      },
    });
    env.stats.oldPullDrops += dropped.length;
  }, true);
}

/**
 * I35: an old client's push stopped inside its read-modify-write of the
 * index (an `oldpush` with `window`), alone inside the global lock, writes
 * back no `latest` marker's entry naming a version the store no longer
 * holds: the index named another version there as the push went on to
 * write (`before`), which a Sluice writer made meanwhile outside the global
 * lock (a marker's take-back, put back and named), and the push's write
 * from its earlier read put the entry naming the version it replaced back.
 * Spared: a marker another tool wrote honouring no lock (`lockless`).
 */
async function markersPutBack(
  env: CommandEnv,
  op: Extract<Op, { kind: "oldpush" }>,
  before: Record<string, string>,
): Promise<void> {
  if (!env.markerEntries || !env.heldVersion) return;
  const after = await env.markerEntries();
  for (const [path, v] of Object.entries(after)) {
    if (before[path] === undefined || before[path] === v) continue;
    if (env.truth.lockless.some((l) => l.marker && l.path === path)) continue;
    const held = await env.heldVersion(path);
    if (held === v) continue;
    env.truth.violate({
      invariant: "I35",
      message:
        `old client push #${op.id}, stopped inside its read-modify-write of the index, wrote back the entry of ${path} naming version ${v}, which the store no longer holds (it holds ${
          held ?? "nothing"
        }): the index named ${
          before[path]
        } there as it went on to write, an index write made outside the global lock meanwhile`,
      afterOp: env.opId(),
    });
  }
}

/** The path an old client's push (an `oldpush` move) writes or deletes. */
function oldPushPath(o: { readonly id: number; readonly clone: number; readonly file?: number }) {
  return o.file === undefined ? `logs/old-c${o.clone}-op${o.id}.log` : SHARED_FILES[o.file];
}

/** The text an old client's push (an `oldpush` move) writes. */
function oldPushText(o: { readonly id: number; readonly clone: number }): string {
  return `old client of c${o.clone}, op ${o.id}\n`;
}

export function oldPushCommand(env: CommandEnv, op: Extract<Op, { kind: "oldpush" }>): Command {
  const inside = env.truth.oldInside;
  const cmd = plainCommand(env, op.clone, `${OLD_CLIENT_LABEL} #${op.id}`, async (svc) => {
    if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
    const shared = op.file === undefined ? undefined : SHARED_FILES[op.file];
    const path = oldPushPath(op);
    const text = oldPushText(op);
    const lock = svc.lockBackend.createLock(
      globalLockKey(),
      { holder: `old-client-c${op.clone}@chaos`, hostname: `old-c${op.clone}`, pid: 1 },
      CHAOS_LOCK,
    );
    env.stats.oldPushes++;
    env.truth.oldStarted.push(op);
    const again = env.truth.oldUnfinished.has(op.id);
    env.truth.oldUnfinished.set(op.id, op);
    const files = op.del ? {} : { [path]: text };
    const remove = op.del ? [path] : [];
    // Stopped between its read of the index and its write (`window`): its
    // lock held and renewed, while that clone's push runs.
    const window = op.window;
    // The markers the index named as the stopped push went on to write (I35).
    let before: Record<string, string> | undefined;
    const afterRead = window === undefined || !env.windowOf ? undefined : async () => {
      const done = env.windowOf!(window, op.id);
      env.stats.oldWindows++;
      const until = svc.clock.now() + OLD_WINDOW_MS;
      while (!done() && svc.clock.now() < until) await svc.clock.sleep(1_000);
      if (done()) env.stats.oldWindowsMet++;
      before = await env.markerEntries?.();
    };
    let skipped = false;
    await lock.withLock(async () => {
      // Two old clients inside the global lock at once (a hold taken over
      // as stale while its renewals were parked, the thief's delete of it
      // perhaps reported failed): both rewrite the index without a
      // compare-and-swap, over each other, by design.
      if (inside.size > 0) {
        for (const id of [...inside, op.id]) env.truth.oldOverlapped.add(id);
      }
      inside.add(op.id);
      try {
        // Old clients give a v2 bucket's `config/` and `notes/` files no
        // shard (they have no partition): such an edit would stay outside
        // the index by their own design. Checked under the lock, which a
        // move takes too.
        if (shared && await peerCommitSeq(svc.store) !== null) {
          skipped = true;
          return;
        }
        await peerPush(svc.store, files, {
          now: () => svc.clock.now(),
          remove,
          ...(afterRead ? { afterRead } : {}),
        });
        // Its edit of a shared file, as a committed change of a writer of
        // its own (`oldClientOf`): I9 holds Sluice's writers to have seen it
        // before they replace it, and I7 at each commit to not name a
        // version it replaced. (Recorded once its index write landed; I6
        // checks no cache for it.)
        if (shared && !op.del) {
          await env.changes.record(
            { op: op.id, clone: oldClientOf(op.clone), path, how: "old client" },
            new TextEncoder().encode(text),
          );
        }
      } finally {
        inside.delete(op.id);
      }
    });
    env.truth.oldUnfinished.delete(op.id);
    if (skipped) env.stats.oldEditsOnV2++;
    const overlapped = lock.lost === true || env.truth.oldOverlapped.has(op.id);
    if (before && !overlapped) await markersPutBack(env, op, before);
    // Its first attempt stopped after its object write, and the bucket
    // turned v2 since; or another old client was inside the lock with it:
    // its write may stand unnamed, by their design (I7, I8, I11 spare it).
    if (shared && ((skipped && again) || (overlapped && !op.del))) {
      env.truth.oldStranded.add(path);
    }
    if (shared) return; // replaced or deleted later by design: I9 and I7 check it
    if (overlapped) {
      env.stats.oldPushesLockLost++;
      return;
    }
    env.truth.oldPushes.push({ op: op.id, path, text });
  }, true);
  // A push frozen by its clone's crash is inside no lock any more.
  return {
    ...cmd,
    onFreeze: (why) => {
      inside.delete(op.id);
      cmd.onFreeze(why);
    },
  };
}

/** The label of an old client's push (its writes are not a Sluice clone's: see `lost_updates.ts`). */
export const OLD_CLIENT_LABEL = "old client push";

/** True for the label of an old client's push (a unit's label starts with its clone). */
export function isOldClientCommand(label: string): boolean {
  return label.includes(OLD_CLIENT_LABEL);
}

/** The label of an old client's pull. */
export const OLD_PULL_LABEL = "old client pull";

/** True for the label of an old client's pull (a unit's label starts with its clone). */
export function isOldPullCommand(label: string): boolean {
  return label.includes(OLD_PULL_LABEL);
}

/** The writer number an old client on clone `clone`'s machine has in the edit records. */
export function oldClientOf(clone: number): number {
  return 100 + clone;
}

/** The writer number another tool's writes (`foreign` moves) have in the edit records. */
export const FOREIGN_WRITER = 200;

/** True for the label of a move to v2 (`index migrate #…`, or core's `migrate-index #…`). */
export function isMoveCommand(label: string): boolean {
  return /migrate/.test(label);
}

/** `sluice index migrate`: the move to v2 shards under the global lock. */
export function migrateCommand(env: CommandEnv, op: Extract<Op, { kind: "migrate" }>): Command {
  return plainCommand(env, op.clone, `index migrate #${op.id}`, async (svc) => {
    if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
    env.stats.migrations++;
    const lock = svc.lockBackend.createLock(globalLockKey(), svc.identity);
    await lock.withLock(() => migrateIndex(svc, undefined, lock));
    env.stats.migrated++;
  });
}

/** A sync, bulk push, config edit, edit, deletion, marker write or resolution. */
export function moveCommand(
  env: CommandEnv,
  op: Extract<
    Op,
    {
      kind:
        | "sync"
        | "bulk"
        | "config"
        | "edit"
        | "delete"
        | "marker"
        | "resolve"
        | "adopt"
        | "reshape";
    }
  >,
): Command {
  const c = op.clone;
  const plain = (
    what: string,
    body: (svc: SyncService) => Promise<void | typeof NOTHING_TAKEN_IN>,
  ) => plainCommand(env, c, `${what} #${op.id}`, body);
  switch (op.kind) {
    case "sync":
      return plain("sync", async (svc) => {
        await svc.pullChanged();
        await pushOf(env, svc);
      });
    case "bulk":
      return plain("bulk push", async (svc) => {
        await svc.cache.write(`outputs/c${c}-op${op.id}.txt`, enc.encode(`op ${op.id}\n`));
        const from = env.shapes.puts;
        await svc.markDirty();
        await pushOf(env, svc);
        for (const v of await env.shapes.checkWalk(c, from, op.id)) env.truth.violate(v);
      });
    case "config":
      return plain("config edit", async (svc) => {
        const path = `config/settings-${op.file}.yaml`;
        const bytes = enc.encode(`edited_by: c${c}\nop: ${op.id}\n`);
        await env.changes.record({ op: op.id, clone: c, path, how: "config" }, bytes);
        await svc.cache.write(path, bytes);
        await svc.markDirty({ relPath: path });
        await pushOf(env, svc);
      });
    case "edit":
      return plain(`edit (${op.how})`, async (svc) => {
        let path = SHARED_FILES[op.file];
        const tick = op.how === "hand-tick";
        if (op.how === "under") {
          // A new file in the directory of that name, marked by the directory's name.
          if (!(await directoryAt(svc, path))) return NOTHING_TAKEN_IN;
          const part = `${path}/part-${op.id}.md`;
          const bytes = editBytes(`op ${op.id}: ${part} written by c${c}`);
          env.stats.edits++;
          env.stats.editsUnderMarkedByName++;
          await env.changes.record({ op: op.id, clone: c, path: part, how: op.how }, bytes);
          await handWrite(`${svc.cacheDir}/${part}`, bytes, false);
          await svc.markDirty({ relPath: path });
          return NOTHING_TAKEN_IN;
        }
        if (await directoryAt(svc, path)) {
          // A directory of that name is there (a reshape): the user edits the
          // first file in it instead (a revert or a same-size edit: none).
          if (op.how === "revert" || tick) return NOTHING_TAKEN_IN;
          const [inside] = (await filesIn(svc.cacheDir, path)).sort();
          if (!inside) return NOTHING_TAKEN_IN;
          path = inside;
        }
        const file = `${svc.cacheDir}/${path}`;
        env.stats.edits++;
        const synced = op.how === "revert" ? svc.state.synced(path) : undefined;
        const back = synced && env.changes.bytesOf(synced.hash);
        if (back) {
          // The bytes this cache last synced, by hand: no local change (see recordEdit).
          await recordEdit(env, svc, { op: op.id, clone: c, path, how: op.how }, back);
          await handWrite(file, back, false);
          return NOTHING_TAKEN_IN;
        }
        const size = tick ? (await Deno.stat(file).catch(() => null))?.size : undefined;
        const bytes = editBytes(`op ${op.id}: ${path} edited by c${c}`, size);
        await env.changes.record({ op: op.id, clone: c, path, how: op.how }, bytes);
        await handWrite(file, bytes, tick);
        if (op.how === "hand" || op.how === "revert" || tick) return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        if (op.how !== "push") return NOTHING_TAKEN_IN;
        if (op.dropped) {
          env.stats.droppedEdits++;
          if (env.indexNames && !await env.indexNames(path)) env.stats.droppedEditsUnnamed++;
        }
        const r = await pushOf(env, svc);
        if (op.dropped && r.conflicts.includes(path)) {
          // I37: nobody deleted the file (the move's clones only edit it).
          const theirs = svc.conflicts().find((x) => x.path === path)?.theirs;
          if (theirs === null) {
            env.truth.violate({
              invariant: "I37",
              message:
                `c${c}'s push of its edit of ${path}, over the version it synced whose entry an old client's pull dropped, met it as a deletion nobody made: its upload went, and the committed file with it`,
              afterOp: env.opId(),
            });
          }
        }
        // Left out at its commit beside a directory of its name (`path_blocked`).
        const under = `files under a directory ${path} `;
        if (r.skipped.some((s) => s.path === path && s.reason.includes(under))) {
          env.stats.editsBlocked++;
        }
      });
    case "delete":
      if (op.how === "dir") {
        // The whole notes/ directory, removed by hand, then pushed by its name.
        return plain("delete (dir notes/)", async (svc) => {
          const dir = "notes";
          // Its files at any depth (a file replaced by a directory of its name holds some).
          const held = await filesIn(svc.cacheDir, dir);
          env.stats.deletes++;
          for (const path of held) {
            const synced = svc.state.synced(path);
            if (synced) {
              await env.changes.record(
                { op: op.id, clone: c, path, how: op.how },
                null,
                synced.hash,
              );
            } else env.changes.replaced(c, path);
          }
          await Deno.remove(`${svc.cacheDir}/${dir}`, { recursive: true }).catch(() => {});
          await svc.markDirty({ relPath: dir });
          await pushOf(env, svc);
        });
      }
      if (op.run !== undefined && op.committed) {
        return plain(
          `delete (${op.how}) of run #${op.run}'s committed version`,
          (svc) => underMarkerDelete(env, op, svc),
        );
      }
      if (op.run !== undefined) {
        return plain(`delete (${op.how}) of run #${op.run}'s version`, async (svc) => {
          // Its version's files here, unless acknowledged (I1 holds those).
          const rec = env.truth.runs.find((r) => r.op === op.run && r.clone === c);
          if (!rec || rec.outcome === "success" || rec.files.length === 0) return NOTHING_TAKEN_IN;
          const dir = rec.files[0].path.slice(0, rec.files[0].path.lastIndexOf("/"));
          if (rec.outcome === "version_exists") {
            // Its version set aside here: the empty directory it left goes, by hand.
            await Deno.remove(`${svc.cacheDir}/${dir}`).catch(() => {});
            return NOTHING_TAKEN_IN;
          }
          const gone: string[] = [];
          for (const f of rec.files) {
            const here = await Deno.readFile(`${svc.cacheDir}/${f.path}`).catch(() => null);
            if (!here || !sameBytes(here, f.bytes)) continue;
            // The user's deletion of what its run wrote here, whether its push's
            // commit landed (its answer lost: its own upload, to take back) or not.
            const hash = svc.state.synced(f.path)?.hash ?? await sha256Hex(here);
            await env.changes.record(
              { op: op.id, clone: c, path: f.path, how: op.how },
              null,
              hash,
            );
            if (f.path.endsWith("/raw")) env.truth.userDeletedRaws.add(f.path);
            await Deno.remove(`${svc.cacheDir}/${f.path}`);
            gone.push(f.path);
          }
          if (gone.length === 0) return NOTHING_TAKEN_IN;
          env.stats.deletes++;
          env.stats.runOutputsDeleted++;
          if (op.how === "hand") return NOTHING_TAKEN_IN;
          await svc.markDirty({ relPaths: gone });
          await pushOf(env, svc);
        });
      }
      return plain(`delete (${op.how})`, async (svc) => {
        // The op's file, else the next shared file this cache holds.
        let path: string | undefined;
        for (let i = 0; i < SHARED_FILES.length && !path; i++) {
          const p = SHARED_FILES[(op.file + i) % SHARED_FILES.length];
          if ((await Deno.stat(`${svc.cacheDir}/${p}`).catch(() => null))?.isFile) path = p;
        }
        if (!path) return NOTHING_TAKEN_IN;
        env.stats.deletes++;
        // Deleting a copy this cache never synced goes back to what it synced
        // (nothing): not a local change, and the next pull may fetch the path.
        const synced = svc.state.synced(path);
        if (synced) {
          await env.changes.record({ op: op.id, clone: c, path, how: op.how }, null, synced.hash);
        } else env.changes.replaced(c, path);
        await Deno.remove(`${svc.cacheDir}/${path}`);
        if (op.how === "hand") return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        await pushOf(env, svc);
      });
    case "marker":
      return plain("marker write", async (svc) => {
        const base = `data/${MODELS[op.model]}/${DATA_NAMES[op.data]}`;
        const highest = await highestVersion(svc.cacheDir, base);
        const n = highest - (op.back ? 1 : 0);
        const synced = svc.state.synced(`${base}/latest`);
        // A revert writes back the number the clone last synced (found by its hash).
        const back = op.how === "revert" && synced
          ? await markerBytes(synced.hash, highest + 1)
          : undefined;
        if (op.how === "revert" && !back) return NOTHING_TAKEN_IN;
        if (!back && n < 1) return NOTHING_TAKEN_IN;
        const bytes = back ?? enc.encode(`${n}`);
        env.stats.markerWrites++;
        // A move back from the highest version here is a rollback only when
        // it moves the marker below the number it named here: one that names
        // a higher number than before moves it forward (the versions above
        // came with no marker naming them, another tool's say), and a marker
        // moved further forward may be written over it (`marker_rebase.ts`).
        const named = Number(
          dec.decode(
            await Deno.readFile(`${svc.cacheDir}/${base}/latest`).catch(() => enc.encode("")),
          ),
        );
        const forward = Number.isInteger(named) && named > 0 && named < n;
        if (op.back && !back && !forward) {
          env.truth.markerRollbacks.add(`${base}/latest\0${await sha256Hex(bytes)}`);
        }
        await recordEdit(
          env,
          svc,
          { op: op.id, clone: c, path: `${base}/latest`, how: "marker" },
          bytes,
        );
        if (op.how === "hand" || op.how === "revert") {
          await handWrite(`${svc.cacheDir}/${base}/latest`, bytes, false);
          return NOTHING_TAKEN_IN;
        }
        await svc.cache.write(`${base}/latest`, bytes);
        await svc.markDirty({ relPath: `${base}/latest` });
        await pushOf(env, svc);
      });
    case "adopt":
      return plain("push --adopt-uncommitted", async (svc) => {
        const path = SHARED_FILES[op.file];
        const bytes = editBytes(`op ${op.id}: ${path} edited by c${c}`);
        // A directory of that name is there (a reshape): no file to edit.
        if (await directoryAt(svc, path)) return NOTHING_TAKEN_IN;
        env.stats.adoptions++;
        await env.changes.record({ op: op.id, clone: c, path, how: "adopt" }, bytes);
        await svc.cache.write(path, bytes);
        await svc.markDirty({ relPath: path });
        const markers = MODELS.flatMap((m) => DATA_NAMES.map((d) => `data/${m}/${d}/latest`));
        await pushOf(env, svc, { adoptUncommitted: [...SHARED_FILES, ...markers] });
      });
    case "reshape":
      return plain(`reshape (${op.how})`, async (svc) => {
        const path = SHARED_FILES[op.file];
        const at = `${svc.cacheDir}/${path}`;
        const st = await Deno.lstat(at).catch(() => null);
        // Whatever the user removes here: a deletion when synced, else its own
        // unpublished change, replaced by choice.
        const removing = async (p: string) => {
          const synced = svc.state.synced(p);
          if (synced) {
            await env.changes.record(
              { op: op.id, clone: c, path: p, how: "reshape" },
              null,
              synced.hash,
            );
          } else env.changes.replaced(c, p);
        };
        if (st?.isDirectory) {
          // The directory goes, a plain file takes its name.
          for (const p of await filesIn(svc.cacheDir, path)) await removing(p);
          const bytes = editBytes(`op ${op.id}: ${path} made a file again by c${c}`);
          await env.changes.record({ op: op.id, clone: c, path, how: "reshape" }, bytes);
          await Deno.remove(at, { recursive: true });
          await handWrite(at, bytes, false);
        } else if (st?.isFile) {
          // The file goes, a directory of its name holding a new file takes its place.
          await removing(path);
          const part = `${path}/part-${op.id}.md`;
          const bytes = editBytes(`op ${op.id}: ${part} written by c${c}`);
          await env.changes.record({ op: op.id, clone: c, path: part, how: "reshape" }, bytes);
          await Deno.remove(at);
          await handWrite(`${svc.cacheDir}/${part}`, bytes, false);
        } else return NOTHING_TAKEN_IN;
        env.stats.reshapes++;
        env.shapes.reshaped(c, path, op.how !== "hand");
        if (op.how === "hand") return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        if (op.how === "mark") return NOTHING_TAKEN_IN;
        await pushOf(env, svc);
      });
    case "resolve":
      return plain(`resolve --${op.how}`, async (svc) => {
        // As a user does: pull to see what conflicts, then resolve one.
        if (svc.conflicts().length === 0) await svc.pullChanged();
        const list = svc.conflicts();
        if (list.length === 0) return;
        const picked = list[op.pick % list.length];
        const path = picked.path;
        // A directory of that name here (a reshape), or a file where one of
        // its directories must be, is no file to merge: mine, as it is.
        const how = path === MANAGED_LOCKFILE_PATH
          ? "theirs"
          : op.how === "merged" && (await directoryAt(svc, path) || await fileAbove(svc, path))
          ? "mine"
          : op.how;
        env.stats.resolutions++;
        if (how === "merged") {
          const marker = path.endsWith("/latest");
          const here = await Deno.readFile(`${svc.cacheDir}/${path}`).catch(() => null);
          const base = path.slice(0, path.lastIndexOf("/"));
          const bytes = marker
            ? here ?? enc.encode(`${Math.max(1, await highestVersion(svc.cacheDir, base))}`)
            : enc.encode(`op ${op.id}: ${path} merged by c${c}; ${here ? dec.decode(here) : ""}`);
          await recordEdit(env, svc, { op: op.id, clone: c, path, how: "merged" }, bytes);
          await svc.cache.write(path, bytes);
        }
        // Half the time (by the pick's high bit) a user taking theirs first
        // copies theirs into place by hand, as from a peer's checkout: the
        // resolution then finds the local copy already theirs.
        const theirsBytes = how === "theirs" && op.pick >= 4 && picked.theirs?.hash &&
            !(await directoryAt(svc, path))
          ? env.changes.bytesOf(picked.theirs.hash)
          : undefined;
        if (theirsBytes) {
          env.stats.theirsCopiedByHand++;
          // The user's own edit there is replaced by choice, not lost (I6).
          env.changes.replaced(c, path);
          await svc.cache.write(path, theirsBytes);
        }
        // A "merge" that left the file as mine is refused (not_merged); the
        // user, told so, publishes it with --mine, as the message says. A
        // --mine of a copy deleted by hand since is refused (not_found); the
        // user takes theirs, as that message says. So too a --mine or
        // --merged of a data version another writer published again with
        // other bytes (version_exists, the conflict left open): it is never
        // written over, and the refusal says --theirs settles it.
        const r = await resolveAsUser(env, svc, c, picked, how).catch(async (e) => {
          // A directory that replaced the file here (a reshape) is no file to
          // publish: theirs, as the refusal says.
          const dirHere = hasCode(e, "unsafe_path") && await directoryAt(svc, path);
          if ((hasCode(e, "not_found") || dirHere) && how === "mine") {
            return resolveAsUser(env, svc, c, picked, "theirs");
          }
          const open = svc.conflicts().find((x) => x.path === path);
          if (
            e instanceof ResolveRefusedError && hasCode(e, "version_exists") && open &&
            /--theirs` to settle it/.test(e.message)
          ) {
            return resolveAsUser(env, svc, c, open, "theirs");
          }
          if (!hasCode(e, "not_merged")) throw e;
          return resolveAsUser(env, svc, c, picked, "mine");
        });
        if (r.resolved) env.stats.resolved++;
      });
  }
}

/**
 * Resolves clone `c`'s conflict `picked` with `how` as a user does (under
 * the global lock where Sluice commits under it), keeping I6's record of
 * the choice: taking theirs, or publishing a copy a pull set aside, undoes
 * a later local change by choice.
 */
export async function resolveAsUser(
  env: CommandEnv,
  svc: SyncService,
  c: number,
  picked: ConflictRecord,
  how: Resolution,
): Promise<ResolveResult> {
  const path = picked.path;
  // Taking theirs undoes a local deletion by choice, whether or not its pull succeeds.
  if (how === "theirs") {
    env.changes.tookTheirs(c, path);
    env.truth.letGo(path); // a deletion of theirs stands there by choice (I19)
  }
  // So does publishing a copy a pull set aside (the working copy is neither side).
  if (how === "mine" && picked.mine && picked.mine.location !== path) {
    env.changes.choseSetAside(c, path);
  }
  await env.changes.asides.resolving(c, svc.cacheDir, path);
  const resolve = () => svc.resolveConflict(path, how);
  // I22: a resolution that failed part way (the datastore unreachable, say)
  // or did not take its side resolved nothing: its conflict stays open, for
  // the user to see and to resolve again, naming this cache's copy where it
  // is. A data version lost whole to another writer (`version_exists`) is
  // settled: theirs stands.
  // The copy this cache had before the resolution (none: deleted by hand since).
  const had = !!picked.mine &&
    (await svc.cache.hashFile(picked.mine.location).catch(() => null)) !== null;
  // Nor is a copy the user removed by hand while the resolution ran (a
  // deletion aimed at the look of the path, the merge's upload landed) the
  // library's to keep: the conflict rightly names it at its path, where a
  // later --mine is refused (not_found, naming this cache's own upload when
  // it holds theirs' place) and --theirs takes that upload (seed 177300182).
  const touchedBefore = env.changes.touchedIn.length;
  const removedHere = (location: string) =>
    env.changes.touchedIn.slice(touchedBefore).some((t) => t.clone === c && t.path === location);
  const stillOpen = async (what: string) => {
    const open = svc.conflicts().find((x) => x.path === path);
    const mineGone = had && open?.mine && !removedHere(open.mine.location) &&
      !(await svc.cache.hashFile(open.mine.location).catch(() => null));
    if (open && !mineGone) return;
    env.truth.violate({
      invariant: "I22",
      message: open
        ? `c${c}'s resolve --${how} of ${path} ${what}, and its conflict names this cache's copy at ${
          open.mine!.location
        }, where there is none: a later --mine would publish something else`
        : `c${c}'s resolve --${how} of ${path} ${what}, and its conflict is gone: nothing says the path is still in conflict, and the same resolution, run again, is refused`,
      afterOp: env.opId(),
    });
  };
  const r = await (env.globalLockCommits ? globalLockOf(svc).withLock(resolve) : resolve()).catch(
    async (e) => {
      if (codeOf(e) !== "version_exists" && !(e instanceof ResolveRefusedError)) {
        await stillOpen(`failed (${codeOf(e)})`);
      }
      throw e;
    },
  );
  // A --mine or --merged held back (another writer's upload in flight
  // there) keeps its choice as a change to push: the next push completes it.
  const pending = how !== "theirs" && svc.state.dirtyPaths().includes(path);
  if (!r.resolved && !pending) await stillOpen("was not resolved");
  // What was at the path set aside for theirs (a directory, whole), theirs
  // no directory (none is there after: a directory that is theirs stays or
  // comes back with its pull): a file its user wrote under it goes aside
  // with it by this choice (I33).
  if (
    r.resolved && how === "theirs" && r.setAside.some((l) => setAsideSource(l) === path) &&
    !(await directoryAt(svc, path))
  ) env.changes.tookTheirsAside(c, path);
  // I22: a resolution reported resolved took its side: a --theirs whose pull
  // left the path out (something here in the way) took nothing.
  if (r.resolved && how === "theirs" && (r.pull?.blocked ?? []).includes(path)) {
    env.truth.violate({
      invariant: "I22",
      message:
        `c${c}'s resolve --theirs of ${path} was reported resolved, but its pull left the path out (blocked by something here): theirs was not taken, and the path is neither synced nor in conflict`,
      afterOp: env.opId(),
    });
  }
  return r;
}
