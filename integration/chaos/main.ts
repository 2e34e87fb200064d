/**
 * `deno task chaos`: runs seeded chaos histories and checks the invariants.
 *
 *   deno task chaos [--seeds N] [--from S | --seed S] [--store memory|minio|gcs] [--jobs J]
 *                   [--workers W] [--tmp DIR] [--disable gate,gate] [--replay JSON|@file]
 *                   [--trace] [--report K] [--no-shrink] [--json]
 *
 * `--seed S` runs the one history of seed S; `--replay` runs a printed
 * history; `--trace` prints every operation, command end and fault; `--report
 * K` shrinks and prints the first K failing seeds (default 3).
 *
 * `--jobs` histories run concurrently in each of `--workers` threads (each
 * history has its own scheduler, so concurrency never changes an outcome).
 *
 * Prints a summary (histories, operations, breakglasses, outages, crashes,
 * lockfile transactions, violations, elapsed time) and exits 1 when any
 * invariant was broken. A failing seed is shrunk to a short history, printed
 * with its seed and a JSON line that `--replay` runs again.
 *
 * @module
 */
import pMap from "p-map";
import {
  type DrawnKind,
  formatHistory,
  generateHistory,
  type GenerateOptions,
  type History,
  parseHistory,
  WEIGHTS,
} from "./history.ts";
import { shrinkHistory } from "./shrink.ts";
import { DEFAULT_GATES } from "../../sluice.ts";
import { GLOBAL_LOCK_COMMITS } from "./commands.ts";
import { chaosTarget, ServerMissingError, type ServerTarget } from "./servers.ts";
import {
  addStats,
  type ChaosStats,
  emptyStats,
  type HistoryResult,
  runHistory,
  type WorkloadOptions,
} from "./workload.ts";
import type { WorkerMessage, WorkerRequest } from "./worker.ts";

/** Parsed command line. */
export interface ChaosArgs {
  readonly seeds: number;
  readonly from: number;
  readonly store: string;
  readonly jobs: number;
  /** Worker threads (0: as many as useful for the seed count). */
  readonly workers: number;
  /** Parent dir of the histories' temp dirs; default a tmpfs (`/dev/shm`) when present. */
  readonly tmp?: string;
  readonly disable: readonly string[];
  readonly replay?: string;
  readonly shrink: boolean;
  readonly json: boolean;
  /** Print every command's end and every fault (only with one history). */
  readonly trace: boolean;
  /** Failing seeds to shrink and print in full. */
  readonly report: number;
  /** How histories are drawn: `--weights kind=n,…`, `--stall-share x`, `--old-share x`, `--reshape-share x`, `--skew-share x`, `--index-first-share x`, `--foreign-share x`, `--vanish-share x`, `--rewrite-share x`, `--blind-share x`, `--unwritten-share x`, `--streamed-share x`, `--parallel-share x`, `--structural-share x`, `--shared-cache-share x`, `--copy-share x`, `--etag-share x`, `--checked-delete-share x`, `--own-lost-share x`, `--lockless-share x`, `--torn-log-share x`, `--damaged-log-share x`, `--damaged-open-share x`, `--save-crash-share x`, `--log-fail-share x`, `--reused-lock-share x`, `--own-withdrawn-share x`, `--set-aside-flaky-share x`, `--old-window-share x`, `--blip-share x`, `--theirs-shape-share x`, `--dropped-deletion-share x`, `--theirs-blocked-share x`, `--theirs-under-share x` `--put-back-lost-share x` `--lockfile-race-share x` `--lost-marker-window-share x`, `--under-marker-share x`, `--take-back-blip-share x`, `--put-back-answer-share x`, `--save-gap-share x`, `--dropped-edit-share x`, `--rollback-past-share x`, `--lost-race-share x`, `--shard-cut-share x`, `--checked-window-share x` and `--republished-share x` (default: the defaults). */
  readonly generate: GenerateOptions;
}

const USAGE =
  "usage: deno task chaos [--seeds N] [--from S | --seed S] [--store memory|minio|gcs] [--jobs J] [--workers W] [--tmp DIR] [--disable gate,gate] [--replay JSON|@file] [--trace] [--report K] [--no-shrink] [--json] [--weights kind=n,…] [--stall-share 0..1] [--old-share 0..1] [--reshape-share 0..1] [--skew-share 0..1] [--index-first-share 0..1] [--foreign-share 0..1] [--vanish-share 0..1] [--rewrite-share 0..1] [--blind-share 0..1] [--unwritten-share 0..1] [--streamed-share 0..1] [--parallel-share 0..1] [--structural-share 0..1] [--shared-cache-share 0..1] [--copy-share 0..1] [--etag-share 0..1] [--checked-delete-share 0..1] [--own-lost-share 0..1] [--lockless-share 0..1] [--torn-log-share 0..1] [--damaged-log-share 0..1] [--damaged-open-share 0..1] [--save-crash-share 0..1] [--log-fail-share 0..1] [--reused-lock-share 0..1] [--own-withdrawn-share 0..1] [--set-aside-flaky-share 0..1] [--old-window-share 0..1] [--blip-share 0..1] [--theirs-shape-share 0..1] [--dropped-deletion-share 0..1] [--theirs-blocked-share 0..1] [--theirs-under-share 0..1] [--put-back-lost-share 0..1] [--lockfile-race-share 0..1] [--lost-marker-window-share 0..1] [--under-marker-share 0..1] [--take-back-blip-share 0..1] [--put-back-answer-share 0..1] [--save-gap-share 0..1] [--dropped-edit-share 0..1] [--rollback-past-share 0..1] [--lost-race-share 0..1] [--shard-cut-share 0..1] [--checked-window-share 0..1] [--republished-share 0..1]";

/** Parses `deno task chaos` arguments; throws a plain Error with the usage on a bad one. */
export function parseChaosArgs(argv: readonly string[]): ChaosArgs {
  const out = {
    seeds: 100,
    from: 1,
    store: "memory",
    jobs: 6,
    workers: 0,
    tmp: undefined as string | undefined,
    disable: [] as string[],
    replay: undefined as string | undefined,
    shrink: true,
    json: false,
    trace: false,
    report: 3,
    generate: {} as GenerateOptions,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes("=")
      ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]
      : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const count = (min: number) => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) {
        throw new Error(`${flag} takes an integer >= ${min}, got ${v}\n${USAGE}`);
      }
      return n;
    };
    switch (flag) {
      case "--seeds":
        out.seeds = count(1);
        break;
      case "--from":
      case "--seed":
        out.from = count(0);
        if (flag === "--seed" && !argv.includes("--seeds")) out.seeds = 1;
        break;
      case "--store":
        out.store = value();
        break;
      case "--jobs":
        out.jobs = count(1);
        break;
      case "--workers":
        out.workers = count(1);
        break;
      case "--tmp":
        out.tmp = value();
        break;
      case "--disable": {
        out.disable = value().split(",").map((s) => s.trim()).filter(Boolean);
        // A mistyped gate must not pass for a gate that prevents nothing.
        const known = disableable();
        const unknown = out.disable.filter((g) => !known.includes(g));
        if (unknown.length) {
          throw new Error(
            `--disable takes gate names (${known.join(", ")}), got ${unknown.join(", ")}\n${USAGE}`,
          );
        }
        break;
      }
      case "--replay":
        out.replay = value();
        break;
      case "--report":
        out.report = count(0);
        break;
      case "--no-shrink":
        out.shrink = false;
        break;
      case "--json":
        out.json = true;
        break;
      case "--trace":
        out.trace = true;
        break;
      case "--weights": {
        const weights: Partial<Record<DrawnKind, number>> = {};
        for (const pair of value().split(",").filter(Boolean)) {
          const [k, v] = pair.split("=");
          const n = Number(v);
          if (!Object.hasOwn(WEIGHTS, k) || !Number.isFinite(n) || n < 0) {
            throw new Error(
              `--weights takes kind=n pairs, n >= 0, kinds ${
                Object.keys(WEIGHTS).join(", ")
              }; got ${pair}\n${USAGE}`,
            );
          }
          weights[k as DrawnKind] = n;
        }
        out.generate = { ...out.generate, weights };
        break;
      }
      case "--stall-share":
      case "--old-share":
      case "--reshape-share":
      case "--skew-share":
      case "--index-first-share":
      case "--foreign-share":
      case "--vanish-share":
      case "--rewrite-share":
      case "--blind-share":
      case "--unwritten-share":
      case "--streamed-share":
      case "--parallel-share":
      case "--structural-share":
      case "--shared-cache-share":
      case "--copy-share":
      case "--etag-share":
      case "--own-lost-share":
      case "--lockless-share":
      case "--torn-log-share":
      case "--damaged-log-share":
      case "--damaged-open-share":
      case "--save-crash-share":
      case "--log-fail-share":
      case "--reused-lock-share":
      case "--own-withdrawn-share":
      case "--set-aside-flaky-share":
      case "--old-window-share":
      case "--blip-share":
      case "--theirs-shape-share":
      case "--dropped-deletion-share":
      case "--theirs-blocked-share":
      case "--theirs-under-share":
      case "--put-back-lost-share":
      case "--lockfile-race-share":
      case "--lost-marker-window-share":
      case "--under-marker-share":
      case "--take-back-blip-share":
      case "--put-back-answer-share":
      case "--save-gap-share":
      case "--dropped-edit-share":
      case "--rollback-past-share":
      case "--lost-race-share":
      case "--shard-cut-share":
      case "--checked-window-share":
      case "--republished-share":
      case "--checked-delete-share": {
        const v = value();
        const n = Number(v);
        if (!Number.isFinite(n) || n < 0 || n > 1) {
          throw new Error(`${flag} takes a number from 0 to 1, got ${v}\n${USAGE}`);
        }
        const key = flag === "--stall-share"
          ? "stallShare"
          : flag === "--old-share"
          ? "oldShare"
          : flag === "--skew-share"
          ? "skewShare"
          : flag === "--index-first-share"
          ? "indexFirstShare"
          : flag === "--foreign-share"
          ? "foreignShare"
          : flag === "--vanish-share"
          ? "vanishShare"
          : flag === "--streamed-share"
          ? "streamedShare"
          : flag === "--parallel-share"
          ? "parallelShare"
          : flag === "--structural-share"
          ? "structuralShare"
          : flag === "--rewrite-share"
          ? "rewriteShare"
          : flag === "--blind-share"
          ? "blindShare"
          : flag === "--unwritten-share"
          ? "unwrittenShare"
          : flag === "--shared-cache-share"
          ? "sharedCacheShare"
          : flag === "--copy-share"
          ? "copyShare"
          : flag === "--etag-share"
          ? "etagShare"
          : flag === "--checked-delete-share"
          ? "checkedDeleteShare"
          : flag === "--own-lost-share"
          ? "ownLostShare"
          : flag === "--lockless-share"
          ? "locklessShare"
          : flag === "--torn-log-share"
          ? "tornLogShare"
          : flag === "--damaged-log-share"
          ? "damagedLogShare"
          : flag === "--damaged-open-share"
          ? "damagedOpenShare"
          : flag === "--save-crash-share"
          ? "saveCrashShare"
          : flag === "--log-fail-share"
          ? "logFailShare"
          : flag === "--reused-lock-share"
          ? "reusedLockShare"
          : flag === "--own-withdrawn-share"
          ? "ownWithdrawnShare"
          : flag === "--set-aside-flaky-share"
          ? "setAsideFlakyShare"
          : flag === "--old-window-share"
          ? "oldWindowShare"
          : flag === "--blip-share"
          ? "blipShare"
          : flag === "--theirs-shape-share"
          ? "theirsShapeShare"
          : flag === "--dropped-deletion-share"
          ? "droppedDeletionShare"
          : flag === "--theirs-blocked-share"
          ? "theirsBlockedShare"
          : flag === "--theirs-under-share"
          ? "theirsUnderShare"
          : flag === "--put-back-lost-share"
          ? "putBackLostShare"
          : flag === "--lockfile-race-share"
          ? "lockfileRaceShare"
          : flag === "--lost-marker-window-share"
          ? "lostMarkerWindowShare"
          : flag === "--under-marker-share"
          ? "underMarkerShare"
          : flag === "--take-back-blip-share"
          ? "takeBackBlipShare"
          : flag === "--put-back-answer-share"
          ? "putBackAnswerShare"
          : flag === "--save-gap-share"
          ? "saveGapShare"
          : flag === "--dropped-edit-share"
          ? "droppedEditShare"
          : flag === "--rollback-past-share"
          ? "rollbackPastShare"
          : flag === "--lost-race-share"
          ? "lostRaceShare"
          : flag === "--shard-cut-share"
          ? "shardCutShare"
          : flag === "--checked-window-share"
          ? "checkedWindowShare"
          : flag === "--republished-share"
          ? "republishedShare"
          : "reshapeShare";
        out.generate = { ...out.generate, [key]: n };
        break;
      }
      case "--help":
      case "-h":
        throw new Error(USAGE);
      default:
        throw new Error(`unknown argument ${a}\n${USAGE}`);
    }
  }
  return out;
}

/** The summary lines of a run. */
export function formatSummary(stats: ChaosStats, store: string, elapsedMs: number): string {
  const s = stats;
  const secs = (elapsedMs / 1000).toFixed(1);
  const codes = (r: Record<string, number>) =>
    Object.entries(r).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ") || "none";
  return [
    `chaos over ${store}: ${s.histories} histories in ${secs} s (${
      (s.histories / Math.max(elapsedMs / 1000, 0.001)).toFixed(1)
    }/s)`,
    `  operations ${s.operations}, commands ${s.commands}, store calls ${s.storeCalls}, scheduling decisions ${s.decisions} (${s.chaosDecisions} before healing)`,
    `  model runs ${s.runs}: acknowledged ${s.acknowledged}, refused (model_lock_lost) ${s.refused}, frozen by a crash ${s.crashedRuns}`,
    `  of them through the swamp extension, driven as core drives it: ${s.coreRuns} (acknowledged ${s.coreAcknowledged}, refused ${s.coreRefused}; output streamed ${s.streamedRuns}; with a parallel step ${s.parallelRuns}, saving as the tool's save does ${s.saveGapRuns} (its step's flush inside the save ${s.saveGapHits}), and a structural command beside ${s.structuralCommands}; on a lock object a run before took, in ${s.reusedLockHistories} histories: ${s.reusedLockRuns}, after a refused one ${s.reusedAfterRefusal})`,
    `  breakglasses ${s.breakglasses} (locks broken ${s.locksBroken}), outages ${s.outages}, stalls ${s.stalls} (after a v1 index write ${s.companionStalls}, in a move ${s.moveStalls}, before a push's delete ${s.withdrawStalls}, after a run's uploads, before its commit ${s.commitStalls}), crashes ${s.crashes}`,
    `  lockfile transactions ${s.lockfileTxns} (acknowledged ${s.lockfileAcked}; begun with a conflict open at the lockfile: ${s.lockfileTxnsOverConflict})`,
    `  edits ${s.edits}, deletes ${s.deletes} (by hand during the clone's own sync, at a download or look of the file: ${s.editsDuring}), marker writes ${s.markerWrites}, files and directories of one name replaced by each other ${s.reshapes}, resolutions ${s.resolutions} (resolved ${s.resolved}; theirs copied by hand first ${s.theirsCopiedByHand}), edits pushed and left out beside a directory of their name ${s.editsBlocked}, files written under a directory and marked by its name ${s.editsUnderMarkedByName}, run outputs deleted here by their user ${s.runOutputsDeleted}, committed versions deleted here by their user while the marker named them ${s.underMarkerDeletes} (no index naming their raw output as they were deleted here or right after their push: ${s.underMarkerUnnamed}), edits pushed over a synced version whose entry an old client dropped, before a pull saw it ${s.droppedEdits} (no index naming the file as pushed: ${s.droppedEditsUnnamed}), pulls right after a marker's push raced by a peer's ${s.racedPulls} (its marker still unpublished: ${s.racedPullsHeld}), syncs after a commit into a shard a peer's cut-off commit wrote ${s.listedChecks}, edits between a sync's pull and its push ${s.editsAfterPull} (checked after the take-back they raced: ${s.namedChecks}), adoptions ${s.adoptions}, crashes between a commit write and the index ${s.commitCrashes}, as an index write landed (its answer lost) ${s.answerCrashes}`,
    `  index moves to v2 ${s.migrations} (finished ${s.migrated})`,
    `  histories with a clone's clock off the store's ${s.skewedClocks}`,
    `  histories whose first pushes make the index first ${s.indexFirst}`,
    `  histories whose index reads fail right after a lost version's set-aside ${s.setAsideFlakyHistories} (reads failed so: ${s.setAsideFlakyLooks})`,
    `  brief outages met (a push's write or deletion failed as unreachable once, the store answering before and after) ${s.blips} (at a latest marker, aimed at a take-back: ${s.markerBlips})`,
    `  histories that start with another tool's objects in the bucket ${s.foreignHistories} (objects ${s.foreignWrites})`,
    `  histories where another tool deletes a shared file's or a run's object ${s.vanishHistories} (deletions ${s.vanishes}: of a run's raw output ${s.vanishedOutputs}; checked by I19, held by a clone and no unpushed deletion there ${s.vanishesChecked}); a run's raw output published again with other bytes ${s.rewrites}, deleted by an older client's blind push ${s.blindDeletes}`,
    `  histories where another tool publishes a version at a run's number, honouring no lock ${s.locklessHistories} (published while the run held its lock, its version written and not flushed: ${s.locklessWrites}; with their index entries ${s.locklessIndexed})`,
    `  marks whose writes never came ${s.unwrittenMarks}`,
    `  second processes over a clone's cache ${s.siblings} (died before their push: ${s.siblingsDied})`,
    `  lines another process wrote ahead to a clone's manifest log cut off part way ${s.tornLogs} (while the clone's pull downloaded: ${s.tornLogsAimed}; processes started on such a cache after one: ${s.tornLogsReopened})`,
    `  lines in the middle of a clone's manifest log damaged on disk ${s.damagedLogs} (holding a path's latest record: ${s.damagedLogsLost}; its process restarted on the cache after one: ${s.damagedLogsReopened}; logs with no line before their last to damage: ${s.damagedLogsShort}; its process left open, another's line written ahead after it: ${s.damagedOpen}, told at that process's next command: ${s.damagedOpenTold}, that command a lockfile change: ${s.damagedOpenLockfile}; its restarted process armed to die inside the save of its next base, after the rename: ${s.saveCrashesArmed}, so dead: ${s.saveCrashes}, another's line written ahead meanwhile to a log it created: ${s.saveCrashesNoLog}, its record checked after: ${s.saveCrashesChecked}; its restarted process armed for its replacement of the log after its next base to fail: ${s.logFailsArmed}, so failed, another's line of a path the save recorded written ahead since its take-in: ${s.logFails}, its record checked after the final sync: ${s.logFailsChecked})`,
    `  clones' caches replaced by a copy of another's ${s.copies} (a refused run's uploads left on the store with one, their erasure pending there: ${s.refusedLeftByCopy})`,
    `  histories whose deletes check the version, then delete ${s.checkedDeleteHistories} (deletes that removed a write landed in between: ${s.checkedDeleteRaces})`,
    `  histories with old clients pushing too ${s.mixedFleets}: old-client pushes ${s.oldPushes} (inside the global lock with another old client: ${s.oldPushesLockLost}; stopped and pushed again: ${s.oldPushesRetried}; stopped inside their read-modify-write for a clone's push: ${s.oldWindows}, met by it: ${s.oldWindowsMet}; a core-driven run's version lost while one stood inside the global lock: ${s.coreLostBesideOld}; edits of shared files not made on v2 buckets: ${s.oldEditsOnV2}); old-client pulls ${s.oldPulls} (entries dropped for a missing object, the index they read written back: ${s.oldPullDrops}; stopped between their read and their write-back for a clone's commands: ${s.oldPullWindows}, met by them: ${s.oldPullWindowsMet}, Sluice writes of shared files left unnamed so: ${s.oldPullWindowUnnamed}); on a store whose versions are ETags ${s.etagHistories} (a refused run's bytes written by an old client as its erasure deletes them: ${s.oldSameWrites})`,
    `  command outcomes: ${codes(s.outcomes)}`,
    `  library warnings: ${codes(s.warnings)}`,
    `  conflicts left open after the final sync, resolved --mine (I13): ${s.finalResolutions}`,
    `  final syncs given a third round (a held-back path's way found clear by the second's pull): ${s.finalRoundsAfterRelease}`,
    `  out-of-turn store calls: ${s.strays}`,
    `  violations ${s.violations}`,
  ].join("\n");
}

/** A failing history and what it broke. */
type Failure = Pick<HistoryResult, "history" | "violations">;

async function runInWorkers(
  seeds: readonly number[],
  count: number,
  args: ChaosArgs,
  options: WorkloadOptions,
  total: ChaosStats,
  failures: Failure[],
  progress: (done: number) => void,
): Promise<void> {
  let done = 0;
  const runs = Array.from({ length: count }, (_, w) => {
    const worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
    return new Promise<void>((resolve, reject) => {
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        reject(new Error(`chaos worker ${w} failed: ${e.message}`));
      };
      worker.onmessage = (e: MessageEvent<WorkerMessage>) => {
        if (e.data.kind === "progress") {
          if (e.data.failed) failures.push(e.data.failed);
          progress(++done);
        } else {
          addStats(total, e.data.stats);
          resolve();
        }
      };
      const request: WorkerRequest = {
        seeds: seeds.filter((_, i) => i % count === w),
        jobs: args.jobs,
        disable: options.disable ?? [],
        tempDir: options.tempDir,
        generate: args.generate,
      };
      worker.postMessage(request);
    });
  });
  await Promise.all(runs);
}

/** `/dev/shm` when it is a writable directory (fsync is free there), else the system temp dir. */
function defaultTempDir(): string | undefined {
  try {
    const probe = Deno.makeTempDirSync({ dir: "/dev/shm", prefix: "sluice-chaos-probe-" });
    Deno.removeSync(probe);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

async function readReplay(arg: string): Promise<History> {
  const text = arg.startsWith("@") ? await Deno.readTextFile(arg.slice(1)) : arg;
  return parseHistory(text);
}

async function explain(
  result: Failure,
  options: WorkloadOptions,
  shrink: boolean,
  store: string,
) {
  const first = result.violations[0];
  console.log(`\nVIOLATION in seed ${result.history.seed}:`);
  for (const v of result.violations) {
    console.log(
      `  ${v.invariant}${v.afterOp >= 0 ? ` (after op #${v.afterOp})` : ""}: ${v.message}`,
    );
  }
  let history = result.history;
  if (shrink) {
    const shrunk = await shrinkHistory(
      history,
      first.invariant,
      async (h) => (await runHistory(h, options)).violations.map((v) => v.invariant),
    );
    history = shrunk.history;
    const again = await runHistory(history, options);
    console.log(
      `shrunk from ${result.history.ops.length} to ${history.ops.length} operations in ${shrunk.runs} runs; it reports:`,
    );
    for (const v of again.violations) {
      console.log(
        `  ${v.invariant}${v.afterOp >= 0 ? ` (after op #${v.afterOp})` : ""}: ${v.message}`,
      );
    }
  }
  console.log(formatHistory(history));
  console.log(
    `replay: deno task chaos --replay '${JSON.stringify(history)}'${
      store !== "memory" ? ` --store ${store}` : ""
    }${options.disable?.length ? ` --disable ${options.disable.join(",")}` : ""}`,
  );
}

/** What `--disable` takes: the default gates' names, and the checker's own global-lock commits. */
function disableable(): string[] {
  return [...DEFAULT_GATES.push, ...DEFAULT_GATES.write, GLOBAL_LOCK_COMMITS];
}

/** Runs the command line; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let args: ChaosArgs;
  let options: WorkloadOptions;
  let target: ServerTarget;
  try {
    args = parseChaosArgs(argv);
    target = chaosTarget(args.store);
    options = {
      target: target.factory,
      disable: args.disable,
      tempDir: args.tmp ?? defaultTempDir(),
      trace: args.trace ? (line) => console.log(line) : undefined,
    };
  } catch (e) {
    console.error((e as Error).message);
    return e instanceof ServerMissingError ? 69 : 64;
  }
  try {
    return await run(args, options, target);
  } finally {
    await target.stop();
  }
}

async function run(
  args: ChaosArgs,
  options: WorkloadOptions,
  target: ServerTarget,
): Promise<number> {
  const started = performance.now();
  const total = emptyStats();
  const failures: Failure[] = [];
  if (args.replay) {
    let history: History;
    try {
      history = await readReplay(args.replay);
    } catch (e) {
      console.error(
        `--replay takes a history as printed by a failing run (JSON, or @file holding it): ${
          (e as Error).message
        }\n${USAGE}`,
      );
      return 64;
    }
    const r = await runHistory(history, options);
    addStats(total, r.stats);
    if (r.violations.length > 0) failures.push(r);
  } else {
    const seeds = Array.from({ length: args.seeds }, (_, i) => args.from + i);
    // One server per process: real-server runs stay in this thread.
    const workers = target.kind !== "memory"
      ? 1
      : args.workers || (seeds.length >= 200 ? Math.min(navigator.hardwareConcurrency, 4) : 1);
    const progress = (done: number) => {
      if (!args.json && done % 500 === 0) {
        console.error(`… ${done}/${seeds.length} histories, ${failures.length} failing`);
      }
    };
    if (workers <= 1) {
      let done = 0;
      await pMap(seeds, async (seed) => {
        const r = await runHistory(generateHistory(seed, args.generate), options);
        addStats(total, r.stats);
        if (r.violations.length > 0) failures.push(r);
        progress(++done);
      }, { concurrency: args.jobs });
    } else {
      await runInWorkers(seeds, workers, args, options, total, failures, progress);
    }
  }
  const elapsed = performance.now() - started;
  if (args.json) {
    console.log(JSON.stringify({
      store: args.store,
      elapsedMs: Math.round(elapsed),
      ...total,
      failingSeeds: failures.map((f) => f.history.seed),
    }));
  } else {
    console.log(formatSummary(total, args.store, elapsed));
    if (args.disable.length) console.log(`  gates disabled: ${args.disable.join(", ")}`);
  }
  failures.sort((a, b) => a.history.seed - b.history.seed);
  if (failures.length > 0) {
    console.log(`failing seeds: ${failures.map((f) => f.history.seed).join(", ")}`);
    for (const f of failures.slice(0, args.report)) {
      await explain(f, options, args.shrink && !args.replay, args.store);
    }
  }
  return failures.length > 0 ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
