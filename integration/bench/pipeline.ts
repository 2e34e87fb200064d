/**
 * `--only pipeline`: the pipeline's own cost per file, on `InMemoryStore`
 * (so that no store or network time hides it). `--pipeline-files` data
 * version files (default 2 000, `data/bench/m<k>/out<j>/1/raw`, 20 per model,
 * 1 KiB each) are written once; then, in alternating rounds (the first side
 * alternating too, after one untimed warm-up round of each):
 *
 * - bare: a loop that reads each file and puts its bytes create-only
 *   (`PutModes.create`), `CONCURRENCY` at a time, into a fresh store;
 * - sluice: a push (`createSluice`, default gates, the same concurrency) of
 *   the same files from a fresh copy of the cache into a fresh store, after
 *   `markDirty` of every path (timed apart, not in the push's figures).
 *
 * - cache layer: the same files through `LocalCache` alone, with the checks a
 *   push keeps and pays once each (the plan's lstat of each path and of its
 *   parent directories, the read's lstat just before reading, the SHA-256),
 *   then the same create puts: `cacheLayer - bare` is what those checks cost,
 *   and `sluice - cacheLayer` what the pipeline adds beyond them (the gates,
 *   the plan, the commit of the index and the local state).
 *
 * All sides also run with the first `--pipeline-small` files (default 200):
 * the slope between the two sizes is the cost of one more file, without the
 * push's fixed cost (state files and their fsyncs, the index commit). After
 * each Sluice push every file it pushed is deleted here and pushed again
 * (`deletePush`), and the cost per file at both sizes is compared, for the
 * pushes and the deletions: a cost per file that grows with the push shows.
 *
 * Each side is timed in wall time (`performance.now()`), in CPU time
 * (`process.cpuUsage()`, user + system, every thread of the process) and in
 * the main thread's CPU time (Linux: `/proc/self/task/<pid>/schedstat`).
 * The pipeline's own cost per file is the median over rounds of the
 * per-round difference, sluice minus bare. It all runs in a fresh process
 * (`runChild`, all permissions: Deno reads `/proc/self/task` only then).
 *
 * Prints `pipeline`.
 *
 * @module
 */
import pMap from "p-map";
import process from "node:process";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import { LocalCache } from "../../sync/transfer/cache.ts";
import { DEFAULT_CONFIG } from "../../sync/service/service_options.ts";
import {
  type BenchArgs,
  type BenchSection,
  CONCURRENCY,
  copyDir,
  identity,
  medianOf,
  runChild,
  tempDir,
  writeAt,
} from "./helpers.ts";

const FILE_BYTES = 1024;
/** One endpoint name for every store, so the conditional-write probe runs once per process. */
const ENDPOINT = "memory://bench-pipeline";

/** Wall, process CPU and main-thread CPU time of one timed run, in µs. */
interface Cost {
  readonly wallUs: number;
  readonly cpuUs: number;
  /** `NaN` where the thread's run time cannot be read (not Linux). */
  readonly mainUs: number;
}

/** CPU time of the main thread (its task id is the process id), in µs; `NaN` when unknown. */
function mainThreadUs(): number {
  try {
    const ns = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/schedstat`).split(" ")[0];
    return Number(ns) / 1000;
  } catch {
    return NaN;
  }
}

async function timed(fn: () => Promise<unknown>): Promise<Cost> {
  const cpu = process.cpuUsage();
  const main = mainThreadUs();
  const t = performance.now();
  await fn();
  const wallUs = (performance.now() - t) * 1000;
  const mainUs = mainThreadUs() - main;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: used.user + used.system, mainUs };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Per-file figures of the runs of one size, in µs. */
function perFile(runs: readonly Cost[], files: number, k: keyof Cost): number {
  return medianOf(runs.map((r) => r[k] / files));
}

async function pipelineCost(files: number, small: number, rounds: number) {
  const paths = Array.from(
    { length: files },
    (_, i) => `data/bench/m${Math.floor(i / 20)}/out${i % 20}/1/raw`,
  );
  const src = await tempDir("sluice-bench-pipeline-");
  await writeAt(src, paths, (i) => {
    const body = new Uint8Array(FILE_BYTES).fill(98);
    new DataView(body.buffer).setUint32(0, i);
    return body;
  });

  const bare = async (n: number): Promise<Cost> => {
    const store = new InMemoryStore({ endpoint: ENDPOINT });
    return await timed(() =>
      pMap(paths.slice(0, n), async (p) => {
        const body = await Deno.readFile(`${src}/${p}`);
        await store.put(p, body, PutModes.create);
      }, { concurrency: CONCURRENCY })
    );
  };
  const cacheLayer = async (n: number): Promise<Cost> => {
    const cache = new LocalCache(await copyDir(src));
    const store = new InMemoryStore({ endpoint: ENDPOINT });
    const some = paths.slice(0, n);
    return await timed(async () => {
      // As a push does: the plan checks every path first, then the reads run.
      for (const p of some) if (!await cache.stat(p)) throw new Error(`${p} is missing`);
      await pMap(some, async (p) => {
        const read = await cache.readForPush(p, DEFAULT_CONFIG.streamThresholdBytes);
        if (!read) throw new Error(`${p} vanished`);
        await store.put(p, read.body, PutModes.create);
      }, { concurrency: CONCURRENCY });
    });
  };
  const sluice = async (n: number): Promise<{ push: Cost; markDirty: Cost; del: Cost }> => {
    const cacheDir = await copyDir(src);
    const svc = await createSluice({
      cacheDir,
      store: new InMemoryStore({ endpoint: ENDPOINT }),
      identity,
      config: { concurrency: CONCURRENCY },
    });
    const markDirty = await timed(() => svc.markDirty({ relPaths: paths.slice(0, n) }));
    let uploaded = 0;
    const push = await timed(async () => {
      uploaded = (await svc.pushChanged()).uploaded.length;
    });
    if (uploaded !== n) throw new Error(`the push uploaded ${uploaded} of ${n} files`);
    // Then every one of them deleted here and pushed (removal and mark untimed).
    for (const p of paths.slice(0, n)) Deno.removeSync(`${cacheDir}/${p}`);
    await svc.markDirty({ relPaths: paths.slice(0, n) });
    let deleted = 0;
    const del = await timed(async () => {
      deleted = (await svc.pushChanged()).deleted.length;
    });
    if (deleted !== n) throw new Error(`the push deleted ${deleted} of ${n} files`);
    return { push, markDirty, del };
  };

  // Warm-up (JIT, the probe), untimed.
  await bare(files);
  await cacheLayer(files);
  await sluice(files);
  const runs = {
    bare: [] as Cost[],
    cache: [] as Cost[],
    push: [] as Cost[],
    mark: [] as Cost[],
    bareSmall: [] as Cost[],
    pushSmall: [] as Cost[],
    del: [] as Cost[],
    delSmall: [] as Cost[],
  };
  const steps = [
    async () => runs.bare.push(await bare(files)),
    async () => runs.cache.push(await cacheLayer(files)),
    async () => {
      const r = await sluice(files);
      runs.push.push(r.push);
      runs.mark.push(r.markDirty);
      runs.del.push(r.del);
    },
    async () => runs.bareSmall.push(await bare(small)),
    async () => {
      const r = await sluice(small);
      runs.pushSmall.push(r.push);
      runs.delSmall.push(r.del);
    },
  ];
  for (let i = 0; i < rounds; i++) {
    // Each side goes first in every other round.
    for (const step of i % 2 === 0 ? steps : [...steps].reverse()) await step();
  }
  const diff = (k: keyof Cost) =>
    round1(medianOf(runs.push.map((r, i) => (r[k] - runs.bare[i][k]) / files)));
  const own = { wall: diff("wallUs"), cpu: diff("cpuUs"), mainThreadCpu: diff("mainUs") };
  // The own cost in two parts: the cache layer's checks and reads, and the rest.
  const between = (a: Cost[], b: Cost[], k: keyof Cost) =>
    round1(medianOf(a.map((r, i) => (r[k] - b[i][k]) / files)));
  const part = (a: Cost[], b: Cost[]) => ({
    wall: between(a, b, "wallUs"),
    cpu: between(a, b, "cpuUs"),
    mainThreadCpu: between(a, b, "mainUs"),
  });
  const side = (list: Cost[]) => ({
    usPerFile: round1(perFile(list, files, "wallUs")),
    cpuUsPerFile: round1(perFile(list, files, "cpuUs")),
    mainThreadCpuUsPerFile: round1(perFile(list, files, "mainUs")),
  });
  // The slope between the two sizes: the cost of one more file, without the
  // push's fixed cost (its state files and their fsyncs, the index commit).
  const slope = (big: Cost[], little: Cost[], k: keyof Cost) =>
    medianOf(big.map((r, i) => (r[k] - little[i][k]) / (files - small)));
  const marginal = (k: keyof Cost) => {
    const push = slope(runs.push, runs.pushSmall, k);
    const bareLoop = slope(runs.bare, runs.bareSmall, k);
    const fixedMs = medianOf(runs.push.map((r) => r[k] - push * files)) / 1000;
    return {
      bareLoopUsPerFile: round1(bareLoop),
      sluicePushUsPerFile: round1(push),
      ownUsPerFile: round1(push - bareLoop),
      sluicePushFixedMs: round1(fixedMs),
    };
  };
  const ratio = (k: keyof Cost) =>
    Number((perFile(runs.push, files, k) / perFile(runs.bare, files, k)).toFixed(3));
  return {
    store: "InMemoryStore",
    files,
    fileBytes: FILE_BYTES,
    concurrency: CONCURRENCY,
    rounds,
    paths: "data/bench/m<k>/out<j>/1/raw: data versions, create-only puts on both sides",
    bareLoop: side(runs.bare),
    cacheLayer: side(runs.cache),
    sluicePush: side(runs.push),
    markDirtyBeforePush: side(runs.mark),
    deletePush: {
      usPerFile: round1(perFile(runs.del, files, "wallUs")),
      usPerFileAtSmall: round1(perFile(runs.delSmall, small, "wallUs")),
      growth: Number(
        (perFile(runs.del, files, "wallUs") / perFile(runs.delSmall, small, "wallUs")).toFixed(2),
      ),
    },
    pushGrowth: Number(
      (perFile(runs.push, files, "wallUs") / perFile(runs.pushSmall, small, "wallUs")).toFixed(2),
    ),
    pipelineOwnCostUsPerFile: own,
    ownCostParts: {
      cacheChecksAndReads: part(runs.cache, runs.bare),
      beyondTheCacheLayer: part(runs.push, runs.cache),
    },
    goal: "<= 20 µs per file",
    goalMet: {
      wall: own.wall <= 20,
      cpu: own.cpu <= 20,
      mainThreadCpu: own.mainThreadCpu <= 20,
    },
    ratio: { wall: ratio("wallUs"), cpu: ratio("cpuUs"), mainThreadCpu: ratio("mainUs") },
    marginal: {
      smallFiles: small,
      wall: marginal("wallUs"),
      cpu: marginal("cpuUs"),
      mainThreadCpu: marginal("mainUs"),
    },
    notes: [
      "µs per file: the median over rounds; the own cost is the median of per-round differences",
      "cpu: process.cpuUsage() user + system, every thread of the process (async fs ops run off the main thread); mainThreadCpu: the main thread's run time (/proc/self/task/<pid>/schedstat)",
      "wall exceeds CPU when the machine is busy: the main thread waits for a core",
      "markDirtyBeforePush is timed apart and not in sluicePush",
      "ownCostParts: cacheLayer - bareLoop (the checks a push keeps: lstats of each path and its parent directories, the read's lstat, the hash) and sluicePush - cacheLayer (gates, plan, index and state commit), medians of per-round differences",
      "marginal: the slope between pushes of `files` and `smallFiles` files (the cost of one more file), and the push's fixed cost it leaves",
      "deletePush: after each Sluice push, every file it pushed is deleted here, marked and pushed again (wall µs per file at both sizes); growth and pushGrowth: µs per file at `files` over µs per file at `smallFiles` (below 1 while the push's fixed cost spread over more files outweighs the rest; above 1 when its cost per file grows with the number of paths, as a pass over every path for each path makes it)",
    ],
  };
}

/** What the parent hands the measuring child. */
interface PipelineChildArg {
  readonly files: number;
  readonly small: number;
  readonly rounds: number;
}

/** The section: measured in a fresh process, which may read its threads' run times. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    const arg: PipelineChildArg = {
      files: args.num("pipeline-files", 2_000),
      small: args.num("pipeline-small", 200),
      rounds: args.rounds,
    };
    return { pipeline: await runChild("pipeline", arg) };
  },
  child: (arg) => {
    const { files, small, rounds } = arg as PipelineChildArg;
    return pipelineCost(files, small, rounds);
  },
};
