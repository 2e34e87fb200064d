/**
 * Cold pull and cold push on MinIO and fake-gcs-server: Sluice (default
 * gates) against a bare loop over the same store at equal concurrency.
 *
 * For each backend and size (default 1 000 files over 50 models and 10 000
 * over 100, 5 KiB each, at `data/bench/m<k>/out<j>/1/raw`):
 *
 * - cold push: the bare loop reads every file and puts it with
 *   `PutModes.create`; Sluice pushes a fresh copy of the same tree (marked
 *   dirty beforehand, untimed) into a fresh bucket;
 * - cold pull: from one bucket seeded once by Sluice, the bare loop GETs
 *   every key and writes the bytes to files; Sluice pulls into an empty cache.
 *
 * Sluice runs at its default concurrency, and at the bare loop's when that
 * differs (`--bare-concurrency`, default Sluice's default). One untimed round
 * of every side warms up the JIT and the server; then rounds alternate
 * (bare, Sluice default, Sluice equal; then the reverse order), each side
 * with a fresh store (a cold client). Printed: median wall ms and
 * client CPU ms (`process.cpuUsage`, user + system) per side, how each
 * Sluice pull ended up making its files (`writeCallsRuns`: synchronous or
 * asynchronous calls, see `sync/transfer/metadata_pace.ts`), the ratios
 * Sluice/bare beside their goals (of the medians, and the median of each
 * round's own ratio), and the requests each side sent.
 *
 *   deno task bench --only cold [--cold-files 1000,10000] [--cold-rounds 3] [--backends minio,gcs]
 *     [--cold-large-backends minio]
 *     [--cold-large-rounds 1] [--bare-concurrency 32]
 *
 * @module
 */
import type { BenchArgs, BenchSection } from "./helpers.ts";
import pMap from "p-map";
import { createSluice } from "../../sluice.ts";
import { type ObjectStore, PutModes } from "../../sync/ports.ts";
import { DEFAULT_CONFIG } from "../../sync/service/service_options.ts";
import {
  type Backend,
  backendList,
  type BackendName,
  benchPaths,
  closeStore,
  countingStore,
  cpuMs,
  median,
  numberList,
  onEachBackend,
  requestFigures,
  round,
  type Temps,
  writeTree,
} from "./remote_support.ts";

/** Options of {@link benchCold}. */
export interface ColdBenchOptions {
  /** File counts to run; default 1 000 and 10 000. */
  readonly files?: readonly number[];
  /** Bytes per file; default 5 KiB. */
  readonly fileBytes?: number;
  /** Timed rounds per side; default 3. */
  readonly rounds?: number;
  /** Rounds at 10 000 files or more; default {@link ColdBenchOptions.rounds}. */
  readonly largeRounds?: number;
  /** Concurrency of the bare loop, and of Sluice's "equal" side; default Sluice's default. */
  readonly bareConcurrency?: number;
  /** Backends; default MinIO and fake-gcs-server. */
  readonly backends?: readonly BackendName[];
  /**
   * Backends of the sizes of 10 000 files or more; default
   * {@link ColdBenchOptions.backends}. (fake-gcs-server keeps its objects in
   * memory and slows down with their number.)
   */
  readonly largeBackends?: readonly BackendName[];
}

const identity = { holder: "bench@host", hostname: "host", pid: 1 };
const GOALS = "≤ 1.05× wall, ≤ 1.15× CPU";

/** A bound on Sluice/bare: wall and client CPU. */
interface Goal {
  readonly wall: number;
  readonly cpu: number;
}

/** Cold push and pull against a bare loop, at every size. */
const COLD_GOAL: Goal = { wall: 1.05, cpu: 1.15 };
/** The pipeline's own cost on a real endpoint, at 1 000 files: ≤ 5 % wall, ≤ 10 % client CPU. */
const PIPELINE_GOAL: Goal = { wall: 1.05, cpu: 1.10 };
/** The size the pipeline goal is stated at. */
const PIPELINE_GOAL_FILES = 1_000;

/**
 * Whether ratios meet a goal, by the ratio of medians and by the paired
 * median, judged on the ratios as printed (three decimals).
 */
export function goalVerdict(
  goal: Goal,
  r: { wall: number; cpu: number; pairedWall: number; pairedCpu: number },
): { goal: string; met: boolean; metPaired: boolean } {
  const within = (wall: number, cpu: number) =>
    round(wall, 3) <= goal.wall && round(cpu, 3) <= goal.cpu;
  return {
    goal: `≤ ${goal.wall}× wall, ≤ ${goal.cpu}× CPU`,
    met: within(r.wall, r.cpu),
    metPaired: within(r.pairedWall, r.pairedCpu),
  };
}

/** One timed run: wall and client CPU, and the requests sent. */
interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly requests: Record<string, number>;
  /**
   * A Sluice pull's: how its cache made directories and small files by the
   * end ("sync" or "async" calls, see `sync/transfer/metadata_pace.ts`).
   */
  writeCalls?: "sync" | "async";
}

type Side = "bare" | "sluiceDefault" | "sluiceEqual";
const SIDES: readonly Side[] = ["bare", "sluiceDefault", "sluiceEqual"];

async function timed(
  counts: Parameters<typeof requestFigures>[0],
  fn: () => Promise<void>,
): Promise<Run> {
  const c0 = cpuMs();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  return { wallMs, cpuMs: cpuMs() - c0, requests: requestFigures(counts) };
}

/** Parent directories made once each, also under concurrent writers. */
function dirMaker(root: string): (rel: string) => Promise<void> {
  const made = new Map<string, Promise<void>>();
  return (rel) => {
    const parent = rel.slice(0, rel.lastIndexOf("/"));
    let p = made.get(parent);
    if (!p) made.set(parent, p = Deno.mkdir(`${root}/${parent}`, { recursive: true }));
    return p;
  };
}

/**
 * Requests a side sent over those of the bare loop (`total` each): where
 * every request costs about the same, as small objects' do, a wall ratio
 * cannot go below it. Undefined when either count is missing.
 */
export function requestRatio(
  side: Record<string, number> | undefined,
  bare: Record<string, number> | undefined,
): number | undefined {
  if (!side?.total || !bare?.total) return undefined;
  return round(side.total / bare.total, 3);
}

/** Medians per side and the Sluice/bare ratios. */
function summarise(
  runs: Record<Side, Run[]>,
  concurrency: Record<Side, number>,
  sides: readonly Side[],
  files: number,
) {
  const out: Record<string, unknown> = {};
  const med = (s: Side) => ({
    wallMs: median(runs[s].map((r) => r.wallMs)),
    cpuMs: median(runs[s].map((r) => r.cpuMs)),
  });
  const bare = med("bare");
  for (const s of sides) {
    const m = med(s);
    const ratios = {
      wall: m.wallMs / bare.wallMs,
      cpu: m.cpuMs / bare.cpuMs,
      // The median of each round's own ratio: steadier where the server's
      // speed drifts from round to round.
      pairedWall: median(runs[s].map((r, i) => r.wallMs / runs.bare[i].wallMs)),
      pairedCpu: median(runs[s].map((r, i) => r.cpuMs / runs.bare[i].cpuMs)),
    };
    out[s] = {
      concurrency: concurrency[s],
      medianWallMs: round(m.wallMs),
      medianCpuMs: round(m.cpuMs),
      wallRuns: runs[s].map((r) => round(r.wallMs)),
      cpuRuns: runs[s].map((r) => round(r.cpuMs)),
      ...(runs[s].some((r) => r.writeCalls)
        ? { writeCallsRuns: runs[s].map((r) => r.writeCalls) }
        : {}),
      requests: runs[s].at(-1)?.requests,
      ...(s === "bare" ? {} : {
        wallRatio: round(ratios.wall, 3),
        cpuRatio: round(ratios.cpu, 3),
        pairedWallRatio: round(ratios.pairedWall, 3),
        pairedCpuRatio: round(ratios.pairedCpu, 3),
        requestRatio: requestRatio(runs[s].at(-1)?.requests, runs.bare.at(-1)?.requests),
        goal: GOALS,
        coldGoal: goalVerdict(COLD_GOAL, ratios),
        // At equal concurrency, at 1 000 files: the pipeline's own cost on the endpoint.
        ...(files === PIPELINE_GOAL_FILES && concurrency[s] === concurrency.bare
          ? { pipelineGoal: goalVerdict(PIPELINE_GOAL, ratios) }
          : {}),
      }),
    };
  }
  return out;
}

/** One backend at one size: push and pull, alternating rounds. */
async function sizeSection(
  backend: Backend,
  files: number,
  fileBytes: number,
  rounds: number,
  bareConcurrency: number,
  temps: Temps,
) {
  const models = files >= 10_000 ? 100 : 50;
  const paths = benchPaths(files, models);
  const src = await temps.make("cold-src");
  await writeTree(src, paths, fileBytes);
  const concurrency: Record<Side, number> = {
    bare: bareConcurrency,
    sluiceDefault: DEFAULT_CONFIG.concurrency,
    sluiceEqual: bareConcurrency,
  };
  const config = (s: Side) => s === "sluiceEqual" ? { concurrency: bareConcurrency } : undefined;

  const push = async (side: Side): Promise<Run> => {
    const raw = await backend.newStore();
    const { store, counts } = countingStore(raw);
    try {
      if (side === "bare") {
        return await timed(counts, async () => {
          await pMap(paths, async (p) => {
            await store.put(p, await Deno.readFile(`${src}/${p}`), PutModes.create);
          }, { concurrency: bareConcurrency });
        });
      }
      const cacheDir = await temps.copy(src, "cold-push");
      const svc = await createSluice({ cacheDir, store, identity, config: config(side) });
      await svc.markDirty({ relPaths: paths });
      try {
        let uploaded = 0;
        const run = await timed(counts, async () => {
          uploaded = (await svc.pushChanged()).uploaded.length;
        });
        if (uploaded !== files) throw new Error(`pushed ${uploaded} of ${files} files`);
        return run;
      } finally {
        temps.retire(cacheDir);
      }
    } finally {
      closeStore(raw);
    }
  };

  // The pull bucket, seeded once by Sluice (so that it has an index).
  const pullBucket = await backend.newBucket();
  {
    const seedStore = await backend.newStore(pullBucket);
    const cacheDir = await temps.copy(src, "cold-seed");
    const svc = await createSluice({ cacheDir, store: seedStore, identity });
    await svc.markDirty({ relPaths: paths });
    await svc.pushChanged();
    closeStore(seedStore);
    temps.retire(cacheDir);
  }
  const pull = async (side: Side): Promise<Run> => {
    const raw: ObjectStore = await backend.newStore(pullBucket);
    const { store, counts } = countingStore(raw);
    const dir = await temps.make("cold-pull");
    try {
      if (side === "bare") {
        const mkdir = dirMaker(dir);
        return await timed(counts, async () => {
          await pMap(paths, async (p) => {
            const got = await store.get(p);
            await mkdir(p);
            await Deno.writeFile(`${dir}/${p}`, got.body);
          }, { concurrency: bareConcurrency });
        });
      }
      const svc = await createSluice({ cacheDir: dir, store, identity, config: config(side) });
      let fetched = 0;
      const run = await timed(counts, async () => {
        fetched = (await svc.pullChanged()).fetched.length;
      });
      if (fetched !== files) throw new Error(`pulled ${fetched} of ${files} files`);
      run.writeCalls = svc.cache.writeCalls;
      return run;
    } finally {
      closeStore(raw);
      temps.retire(dir);
    }
  };

  const sides = SIDES.filter((s) =>
    s !== "sluiceEqual" || bareConcurrency !== DEFAULT_CONFIG.concurrency
  );
  // Warm-up, untimed: the first runs of a process pay for the JIT.
  for (const s of sides) await push(s);
  for (const s of sides) await pull(s);
  const pushRuns: Record<Side, Run[]> = { bare: [], sluiceDefault: [], sluiceEqual: [] };
  const pullRuns: Record<Side, Run[]> = { bare: [], sluiceDefault: [], sluiceEqual: [] };
  for (let i = 0; i < rounds; i++) {
    // Each side goes first in every other round, so a server that slows down
    // as the run goes on (fake-gcs-server keeps every object in memory) does
    // not always fall on the same side.
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) pushRuns[s].push(await push(s));
    for (const s of order) pullRuns[s].push(await pull(s));
  }
  temps.retire(src);
  return {
    files,
    models,
    fileBytes,
    rounds,
    coldPush: summarise(pushRuns, concurrency, sides, files),
    coldPull: summarise(pullRuns, concurrency, sides, files),
  };
}

/**
 * Runs the cold push and pull comparison on each backend; a backend whose
 * server binary is missing is reported as skipped.
 */
export async function benchCold(options: ColdBenchOptions = {}): Promise<Record<string, unknown>> {
  const sizes = options.files ?? [1_000, 10_000];
  const fileBytes = options.fileBytes ?? 5 * 1024;
  const rounds = options.rounds ?? 3;
  const largeRounds = options.largeRounds ?? rounds;
  const bareConcurrency = options.bareConcurrency ?? DEFAULT_CONFIG.concurrency;
  const out: Record<string, unknown> = {
    goals: {
      sluiceVsBare: GOALS,
      pipelineOnEndpoint:
        `at ${PIPELINE_GOAL_FILES} files and equal concurrency: ≤ ${PIPELINE_GOAL.wall}× wall, ≤ ${PIPELINE_GOAL.cpu}× CPU`,
    },
    note:
      "push times pushChanged only (markDirty beforehand); pull times pullChanged into an empty cache; requestRatio: Sluice's requests over the bare loop's, the floor of the wall ratio where every request costs about the same (a first push writes the index, its shards and meta beside the files)",
  };
  const byBackend = await onEachBackend(options.backends ?? ["minio", "gcs"], async (b, temps) => {
    const section: Record<string, unknown> = {};
    for (const files of sizes) {
      if (files >= 10_000 && options.largeBackends && !options.largeBackends.includes(b.name)) {
        section[`files${files}`] = { skipped: "not in --cold-large-backends" };
        continue;
      }
      const n = files >= 10_000 ? largeRounds : rounds;
      section[`files${files}`] = await sizeSection(b, files, fileBytes, n, bareConcurrency, temps);
    }
    return section;
  });
  Object.assign(out, byBackend);
  return out;
}

/** `deno task bench --only cold` (`--cold-files 1000,10000`, `--bare-concurrency`, `--cold-rounds`). */
export const section: BenchSection = {
  run: async (args: BenchArgs) => ({
    cold: await benchCold({
      files: numberList(args.get("cold-files"), [1_000]),
      rounds: args.num("cold-rounds", 3),
      largeRounds: args.num("cold-large-rounds", 1),
      bareConcurrency: args.num("bare-concurrency", DEFAULT_CONFIG.concurrency),
      backends: backendList(args.get("backends")),
      largeBackends: args.get("cold-large-backends") === undefined
        ? undefined
        : backendList(args.get("cold-large-backends")),
    }),
  }),
};
