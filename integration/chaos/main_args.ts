/**
 * The command line of `deno task chaos` (`main.ts`): its flags
 * ({@link ChaosArgs}), the usage line, and {@link parseChaosArgs}.
 *
 * @module
 */
import { type DrawnKind, type GenerateOptions, WEIGHTS } from "./history.ts";
import { DEFAULT_GATES } from "../../sluice.ts";
import { GLOBAL_LOCK_COMMITS } from "./commands.ts";

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
  /**
   * Run every history twice and name the seeds whose two runs differed (their
   * digests, `digest.ts`): a seed that does is not replayed as it ran.
   */
  readonly twice: boolean;
  /** Print every command's end and every fault (only with one history). */
  readonly trace: boolean;
  /** Failing seeds to shrink and print in full. */
  readonly report: number;
  /** How histories are drawn: `--weights kind=n,…`, `--stall-share x`, `--old-share x`, `--reshape-share x`, `--skew-share x`, `--index-first-share x`, `--foreign-share x`, `--vanish-share x`, `--rewrite-share x`, `--blind-share x`, `--unwritten-share x`, `--streamed-share x`, `--parallel-share x`, `--structural-share x`, `--shared-cache-share x`, `--copy-share x`, `--etag-share x`, `--checked-delete-share x`, `--own-lost-share x`, `--lockless-share x`, `--torn-log-share x`, `--damaged-log-share x`, `--damaged-open-share x`, `--save-crash-share x`, `--log-fail-share x`, `--reused-lock-share x`, `--own-withdrawn-share x`, `--set-aside-flaky-share x`, `--old-window-share x`, `--blip-share x`, `--theirs-shape-share x`, `--dropped-deletion-share x`, `--theirs-blocked-share x`, `--theirs-under-share x` `--put-back-lost-share x` `--lockfile-race-share x` `--lost-marker-window-share x`, `--under-marker-share x`, `--take-back-blip-share x`, `--put-back-answer-share x`, `--save-gap-share x`, `--dropped-edit-share x`, `--rollback-past-share x`, `--lost-race-share x`, `--shard-cut-share x`, `--checked-window-share x`, `--republished-share x`, `--marker-taken-back-share x`, `--cut-take-back-share x`, `--marker-gap-share x`, `--cut-push-share x`, `--marker-race-share x`, `--core-share x` `--shared-conflict-share x`, `--committed-deleted-share x`, `--old-take-back-share x`, `--same-bytes-look-share x` and `--theirs-reopen-share x` (default: the defaults). */
  readonly generate: GenerateOptions;
}

export const USAGE =
  "usage: deno task chaos [--seeds N] [--from S | --seed S] [--store memory|minio|gcs] [--jobs J] [--workers W] [--tmp DIR] [--disable gate,gate] [--replay JSON|@file] [--trace] [--report K] [--no-shrink] [--json] [--twice] [--weights kind=n,…] [--stall-share 0..1] [--old-share 0..1] [--reshape-share 0..1] [--skew-share 0..1] [--index-first-share 0..1] [--foreign-share 0..1] [--vanish-share 0..1] [--rewrite-share 0..1] [--blind-share 0..1] [--unwritten-share 0..1] [--streamed-share 0..1] [--parallel-share 0..1] [--structural-share 0..1] [--shared-cache-share 0..1] [--copy-share 0..1] [--etag-share 0..1] [--checked-delete-share 0..1] [--own-lost-share 0..1] [--lockless-share 0..1] [--torn-log-share 0..1] [--damaged-log-share 0..1] [--damaged-open-share 0..1] [--save-crash-share 0..1] [--log-fail-share 0..1] [--reused-lock-share 0..1] [--own-withdrawn-share 0..1] [--set-aside-flaky-share 0..1] [--old-window-share 0..1] [--blip-share 0..1] [--theirs-shape-share 0..1] [--dropped-deletion-share 0..1] [--theirs-blocked-share 0..1] [--theirs-under-share 0..1] [--put-back-lost-share 0..1] [--lockfile-race-share 0..1] [--lost-marker-window-share 0..1] [--under-marker-share 0..1] [--take-back-blip-share 0..1] [--put-back-answer-share 0..1] [--save-gap-share 0..1] [--dropped-edit-share 0..1] [--rollback-past-share 0..1] [--lost-race-share 0..1] [--shard-cut-share 0..1] [--checked-window-share 0..1] [--republished-share 0..1] [--marker-taken-back-share 0..1] [--cut-take-back-share 0..1] [--marker-gap-share 0..1] [--cut-push-share 0..1] [--marker-race-share 0..1] [--core-share 0..1] [--shared-conflict-share 0..1] [--committed-deleted-share 0..1] [--old-take-back-share 0..1] [--same-bytes-look-share 0..1] [--theirs-reopen-share 0..1]";

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
    twice: false,
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
      case "--twice":
        out.twice = true;
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
      case "--marker-taken-back-share":
      case "--cut-take-back-share":
      case "--marker-gap-share":
      case "--cut-push-share":
      case "--marker-race-share":
      case "--core-share":
      case "--shared-conflict-share":
      case "--committed-deleted-share":
      case "--old-take-back-share":
      case "--same-bytes-look-share":
      case "--theirs-reopen-share":
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
          : flag === "--marker-taken-back-share"
          ? "markerTakenBackShare"
          : flag === "--cut-take-back-share"
          ? "cutTakeBackShare"
          : flag === "--marker-gap-share"
          ? "markerGapShare"
          : flag === "--cut-push-share"
          ? "cutPushShare"
          : flag === "--marker-race-share"
          ? "markerRaceShare"
          : flag === "--core-share"
          ? "coreShare"
          : flag === "--shared-conflict-share"
          ? "sharedConflictShare"
          : flag === "--committed-deleted-share"
          ? "committedDeletedShare"
          : flag === "--old-take-back-share"
          ? "oldTakeBackShare"
          : flag === "--same-bytes-look-share"
          ? "sameBytesLookShare"
          : flag === "--theirs-reopen-share"
          ? "theirsReopenShare"
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

/** What `--disable` takes: the default gates' names, and the checker's own global-lock commits. */
function disableable(): string[] {
  return [...DEFAULT_GATES.push, ...DEFAULT_GATES.write, GLOBAL_LOCK_COMMITS];
}
