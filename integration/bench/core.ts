/**
 * `--only core`: a push of `--files` (default 10 000) files of 1 KiB through
 * the full pipeline against a bare loop of puts, on `InMemoryStore` and
 * `FsStore`, in alternating rounds; the requests per push, and those of a
 * zero-diff push and pull.
 *
 * Prints `pushMemory` and `pushFs`.
 *
 * @module
 */
import pMap from "p-map";
import { createSluice } from "../../sluice.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { type ObjectStore, PutModes } from "../../sync/ports.ts";
import {
  type BenchArgs,
  type BenchSection,
  CONCURRENCY,
  copyDir,
  countingStore,
  identity,
  medianOf,
  reset,
  tempDir,
  total,
  writeFiles,
} from "./helpers.ts";

async function corePush(kind: "memory" | "fs", files: number, rounds: number) {
  const makeStore = async (): Promise<ObjectStore> =>
    kind === "memory"
      ? new InMemoryStore()
      : new FsStore({ root: await tempDir("sluice-bench-store-") });
  const src = await tempDir("sluice-bench-");
  await writeFiles(src, files, 1024);
  const paths: string[] = [];
  for (let i = 0; i < files; i++) paths.push(`outputs/${Math.floor(i / 1000)}/f${i}.bin`);
  // Timed runs use the bare store on both sides; requests are counted in a
  // separate run (the counting wrapper has a cost of its own per call).
  const pushOnce = async (store: ObjectStore): Promise<number> => {
    const svc = await createSluice({
      cacheDir: await copyDir(src),
      store,
      identity,
      config: { concurrency: CONCURRENCY },
    });
    await svc.markDirty({ relPaths: paths });
    const t = performance.now();
    await svc.pushChanged();
    return performance.now() - t;
  };
  const bareOnce = async (store: ObjectStore): Promise<number> => {
    const t = performance.now();
    await pMap(paths, async (p) => {
      const body = await Deno.readFile(`${src}/${p}`);
      await store.put(p, body, PutModes.overwrite);
    }, { concurrency: CONCURRENCY });
    return performance.now() - t;
  };
  // Alternating rounds, so that both sides see the same machine state.
  const pipelineRuns: number[] = [];
  const bareRuns: number[] = [];
  for (let i = 0; i < rounds; i++) {
    pipelineRuns.push(await pushOnce(await makeStore()));
    bareRuns.push(await bareOnce(await makeStore()));
  }
  const pipelineMs = medianOf(pipelineRuns);
  const bareMs = medianOf(bareRuns);
  const counted = countingStore(await makeStore());
  await pushOnce(counted.store);
  const requestsPerPush = total(counted.counts);
  // Zero-diff push and pull on a synced clone.
  const { store, counts } = countingStore(await makeStore());
  const svc = await createSluice({ cacheDir: await copyDir(src), store, identity });
  await svc.markDirty();
  await svc.pushChanged();
  await svc.pullChanged();
  reset(counts);
  await svc.pushChanged();
  const zeroPush = total(counts);
  reset(counts);
  await svc.pullChanged();
  const zeroPull = total(counts);
  return {
    store: kind,
    files,
    fileBytes: 1024,
    concurrency: CONCURRENCY,
    pipelineMs: Math.round(pipelineMs),
    bareLoopMs: Math.round(bareMs),
    ratio: Number((pipelineMs / bareMs).toFixed(3)),
    rounds,
    requestsPerPush,
    zeroDiffPushRequests: zeroPush,
    zeroDiffPullRequests: zeroPull,
  };
}

/** The section. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    const files = args.num("files", 10_000);
    return {
      pushMemory: await corePush("memory", files, args.rounds),
      pushFs: await corePush("fs", files, args.rounds),
    };
  },
};
