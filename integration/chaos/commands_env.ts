/**
 * What a chaos command is and what it records into: the command a clone's
 * queue holds, the environment it reports to, the plain command whose
 * outcome is its body's, the lock timings, and the labels and writer
 * numbers the checks tell commands apart by (the commands themselves:
 * `commands.ts` and the files it names).
 *
 * @module
 */
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { SluiceError } from "../../sync/errors.ts";
import type { DistributedLock, LockOptions } from "../../sync/ports.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import type { GroundTruth } from "./invariants.ts";
import type { LocalChanges } from "./local_changes.ts";
import type { ShapeWatch } from "./shapes.ts";
import type { ChaosStats } from "./stats.ts";

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
  /** The remote index's entries now (read past faults and scheduling); absent: not looked at. */
  indexEntries?(): Promise<Record<string, IndexEntry>>;
}

/**
 * How long an old client's push stops inside its read-modify-write at most
 * (an `oldpush` with `window`; an `oldpull` with `window` as long), in fake time: short of a Sluice push's wait
 * for the global lock it holds meanwhile (`CHAOS_LOCK.maxWaitMs`).
 */
export const OLD_WINDOW_MS = 50_000;

/** The `--disable` name that makes Sluice commit without the global lock beside old clients. */
export const GLOBAL_LOCK_COMMITS = "global-lock";

/** The global lock as a clone's Sluice takes it for a commit in a mixed fleet. */
export function globalLockOf(svc: SyncService): DistributedLock {
  if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
  return svc.lockBackend.createLock(globalLockKey(), svc.identity, CHAOS_LOCK);
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
