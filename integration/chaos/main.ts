/**
 * `deno task chaos`: runs seeded chaos histories and checks the invariants.
 *
 *   deno task chaos [--seeds N] [--from S | --seed S] [--store memory|minio|gcs] [--jobs J]
 *                   [--workers W] [--tmp DIR] [--disable gate,gate] [--replay JSON|@file]
 *                   [--trace] [--report K] [--no-shrink] [--json] [--twice]
 *
 * `--seed S` runs the one history of seed S; `--replay` runs a printed
 * history; `--trace` prints every operation, command end and fault; `--report
 * K` shrinks and prints the first K failing seeds (default 3); `--twice` runs
 * every history a second time and names the seeds whose runs differed.
 *
 * `--jobs` histories run concurrently in each of `--workers` threads (each
 * history has its own scheduler, so concurrency never changes an outcome).
 *
 * Prints a summary (histories, operations, breakglasses, outages, crashes,
 * lockfile transactions, violations, elapsed time; with `--json`, each seed's
 * digest too, `digest.ts`, to compare two runs seed by seed) and exits 1 when any
 * invariant was broken. A failing seed is shrunk to a short history, printed
 * with its seed and a JSON line that `--replay` runs again.
 *
 * @module
 */
import pMap from "p-map";
import { generateHistory, type History, parseHistory } from "./history.ts";
import { chaosTarget, ServerMissingError, type ServerTarget } from "./servers.ts";
import { addStats, type ChaosStats, emptyStats, type WorkloadOptions } from "./workload.ts";
import type { WorkerMessage, WorkerRequest } from "./worker.ts";
import { type ChaosArgs, parseChaosArgs, USAGE } from "./main_args.ts";
import { explain, type Failure, formatSummary } from "./main_report.ts";
import { runSeed, type SeedDigest } from "./digest.ts";

export { type ChaosArgs, parseChaosArgs } from "./main_args.ts";
export { formatSummary } from "./main_report.ts";

async function runInWorkers(
  seeds: readonly number[],
  count: number,
  args: ChaosArgs,
  options: WorkloadOptions,
  total: ChaosStats,
  failures: Failure[],
  digests: SeedDigest[],
  unstable: number[],
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
          digests.push(e.data.digest);
          if (e.data.unstable) unstable.push(e.data.digest.seed);
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
        twice: args.twice,
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
  const digests: SeedDigest[] = [];
  /** Seeds whose second run (`--twice`) differed from their first. */
  const unstable: number[] = [];
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
    const run1 = await runSeed(history, options, args.twice);
    const r = run1.result;
    addStats(total, r.stats);
    digests.push(run1.digest);
    if (run1.unstable) unstable.push(history.seed);
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
        const run1 = await runSeed(generateHistory(seed, args.generate), options, args.twice);
        const r = run1.result;
        addStats(total, r.stats);
        digests.push(run1.digest);
        if (run1.unstable) unstable.push(seed);
        if (r.violations.length > 0) failures.push(r);
        progress(++done);
      }, { concurrency: args.jobs });
    } else {
      await runInWorkers(
        seeds,
        workers,
        args,
        options,
        total,
        failures,
        digests,
        unstable,
        progress,
      );
    }
  }
  const elapsed = performance.now() - started;
  if (args.json) {
    console.log(JSON.stringify({
      store: args.store,
      elapsedMs: Math.round(elapsed),
      ...total,
      failingSeeds: failures.map((f) => f.history.seed).sort((a, b) => a - b),
      digests: digests.sort((a, b) => a.seed - b.seed),
      ...(args.twice ? { unstableSeeds: unstable.sort((a, b) => a - b) } : {}),
    }));
  } else {
    console.log(formatSummary(total, args.store, elapsed));
    if (args.disable.length) console.log(`  gates disabled: ${args.disable.join(", ")}`);
    if (args.twice) {
      console.log(
        `  histories that ran differently when run again: ${unstable.length}${
          unstable.length ? ` (seeds ${unstable.sort((a, b) => a - b).join(", ")})` : ""
        }`,
      );
    }
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
