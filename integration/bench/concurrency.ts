/**
 * A sweep of Sluice's `config.concurrency` (parallel transfers of a push or
 * a pull; default 32, see `DEFAULT_CONFIG` in `sync/service/service_options.ts`) for
 * a cold push and a cold pull of 1 000 files of 5 KiB (50 models, at
 * `data/bench/m<k>/out<j>/1/raw`) on MinIO and on fake-gcs-server.
 *
 * After one untimed push and pull (the JIT warms up), each round runs every
 * setting once, in an order rotated by one per round (so that no setting
 * always runs first after a pause): a push of a fresh
 * copy of the tree (marked dirty beforehand, untimed) into a fresh bucket,
 * and a pull into an empty cache from one bucket seeded once. Printed per
 * backend: median wall ms (and client CPU ms) per setting, and the setting
 * with the lowest median for each operation.
 *
 *   deno task bench --only concurrency [--settings 1,4,8,16,32,64]
 *     [--sweep-files 1000] [--sweep-rounds 3] [--backends minio,gcs]
 *
 * @module
 */
import type { BenchArgs, BenchSection } from "./helpers.ts";
import { createSluice } from "../../sluice.ts";
import { DEFAULT_CONFIG } from "../../sync/service/service_options.ts";
import {
  type Backend,
  backendList,
  type BackendName,
  benchPaths,
  closeStore,
  cpuMs,
  median,
  numberList,
  onEachBackend,
  round,
  type Temps,
  writeTree,
} from "./remote_support.ts";

/** Options of {@link benchConcurrency}. */
export interface ConcurrencyBenchOptions {
  /** `config.concurrency` values; default 1, 4, 8, 16, 32, 64. */
  readonly settings?: readonly number[];
  /** Files per push and pull; default 1 000 (over 50 models). */
  readonly files?: number;
  /** Bytes per file; default 5 KiB. */
  readonly fileBytes?: number;
  /** Runs per setting and operation (the median is printed); default 3. */
  readonly rounds?: number;
  /** Backends; default MinIO and fake-gcs-server. */
  readonly backends?: readonly BackendName[];
}

const identity = { holder: "bench@host", hostname: "host", pid: 1 };

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function timed(fn: () => Promise<void>): Promise<Run> {
  const c0 = cpuMs();
  const t0 = performance.now();
  await fn();
  return { wallMs: performance.now() - t0, cpuMs: cpuMs() - c0 };
}

/** The sweep on one backend. */
async function sweep(
  backend: Backend,
  settings: readonly number[],
  files: number,
  fileBytes: number,
  rounds: number,
  temps: Temps,
) {
  const paths = benchPaths(files, 50);
  const src = await temps.make("conc-src");
  await writeTree(src, paths, fileBytes);
  const pullBucket = await backend.newBucket();
  {
    const store = await backend.newStore(pullBucket);
    const cacheDir = await temps.copy(src, "conc-seed");
    const svc = await createSluice({ cacheDir, store, identity });
    await svc.markDirty({ relPaths: paths });
    await svc.pushChanged();
    closeStore(store);
    temps.retire(cacheDir);
  }
  const push = async (concurrency: number): Promise<Run> => {
    const store = await backend.newStore();
    const cacheDir = await temps.copy(src, "conc-push");
    try {
      const svc = await createSluice({ cacheDir, store, identity, config: { concurrency } });
      await svc.markDirty({ relPaths: paths });
      let uploaded = 0;
      const run = await timed(async () => {
        uploaded = (await svc.pushChanged()).uploaded.length;
      });
      if (uploaded !== files) throw new Error(`pushed ${uploaded} of ${files} files`);
      return run;
    } finally {
      closeStore(store);
      temps.retire(cacheDir);
    }
  };
  const pull = async (concurrency: number): Promise<Run> => {
    const store = await backend.newStore(pullBucket);
    const cacheDir = await temps.make("conc-pull");
    try {
      const svc = await createSluice({ cacheDir, store, identity, config: { concurrency } });
      let fetched = 0;
      const run = await timed(async () => {
        fetched = (await svc.pullChanged()).fetched.length;
      });
      if (fetched !== files) throw new Error(`pulled ${fetched} of ${files} files`);
      return run;
    } finally {
      closeStore(store);
      temps.retire(cacheDir);
    }
  };
  // Warm-up, untimed: the first runs of a process pay for the JIT.
  await push(DEFAULT_CONFIG.concurrency);
  await pull(DEFAULT_CONFIG.concurrency);
  const runs = new Map(settings.map((c) => [c, { push: [] as Run[], pull: [] as Run[] }]));
  for (let r = 0; r < rounds; r++) {
    const order = settings.map((_, i) => settings[(i + r) % settings.length]);
    for (const c of order) {
      runs.get(c)!.push.push(await push(c));
      runs.get(c)!.pull.push(await pull(c));
    }
  }
  temps.retire(src);
  const table = (op: "push" | "pull") =>
    Object.fromEntries(settings.map((c) => {
      const rs = runs.get(c)![op];
      return [c, {
        medianWallMs: round(median(rs.map((x) => x.wallMs))),
        medianCpuMs: round(median(rs.map((x) => x.cpuMs))),
        wallRuns: rs.map((x) => round(x.wallMs)),
      }];
    }));
  const best = (op: "push" | "pull") =>
    settings.reduce((a, c) =>
      median(runs.get(c)![op].map((x) => x.wallMs)) <
          median(runs.get(a)![op].map((x) => x.wallMs))
        ? c
        : a
    );
  return {
    coldPush: table("push"),
    coldPull: table("pull"),
    bestPushConcurrency: best("push"),
    bestPullConcurrency: best("pull"),
  };
}

/**
 * Runs the sweep on each backend; a backend whose server binary is missing
 * is reported as skipped.
 */
export async function benchConcurrency(
  options: ConcurrencyBenchOptions = {},
): Promise<Record<string, unknown>> {
  const settings = options.settings ?? [1, 4, 8, 16, 32, 64];
  const files = options.files ?? 1_000;
  const fileBytes = options.fileBytes ?? 5 * 1024;
  const rounds = options.rounds ?? 3;
  const out: Record<string, unknown> = {
    files,
    fileBytes,
    rounds,
    defaultConcurrency: DEFAULT_CONFIG.concurrency,
  };
  const byBackend = await onEachBackend(
    options.backends ?? ["minio", "gcs"],
    (backend, temps) => sweep(backend, settings, files, fileBytes, rounds, temps),
  );
  Object.assign(out, byBackend);
  return out;
}

/** `deno task bench --only concurrency` (`--settings 1,4,8,16,32,64`, `--sweep-files`, `--sweep-rounds`). */
export const section: BenchSection = {
  run: async (args: BenchArgs) => ({
    concurrency: await benchConcurrency({
      settings: numberList(args.get("settings"), [1, 4, 8, 16, 32, 64]),
      files: args.num("sweep-files", 1_000),
      rounds: args.num("sweep-rounds", 3),
      backends: backendList(args.get("backends")),
    }),
  }),
};
