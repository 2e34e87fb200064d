/**
 * `--only walk`: a bulk markDirty walk over `--walk` (default 100 000)
 * unchanged files, in a fresh process; the first walk push that synced them
 * (to `InMemoryStore`, then to `FsStore`); and, in that large cache, a push
 * of one changed file (twice) and a push with nothing to do.
 *
 * Prints `bulkWalk`.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  type BenchArgs,
  type BenchSection,
  countingStore,
  identity,
  runChild,
  tempDir,
  total,
  writeFiles,
} from "./helpers.ts";

/** What the parent hands the measured child. */
interface WalkChildArg {
  readonly dir: string;
  readonly root: string;
}

/**
 * A bulk markDirty walk over `files` unchanged files. The cache is synced to
 * an FsStore here (that first walk push, which hashes and uploads every
 * file, is timed too); the walk itself runs in a fresh process so that its
 * peak RSS is the walk's own, not this process's setup. The child then times
 * a push of one changed file and a push with nothing to do in that large cache.
 */
async function walk(files: number) {
  const dir = await tempDir("sluice-bench-walk-");
  const root = await tempDir("sluice-bench-walk-store-");
  await writeFiles(dir, files, 64);
  // The first walk push hashes and uploads every file: into InMemoryStore it
  // times Sluice's own work, into FsStore mostly the store's fsyncs.
  const inMemory = await createSluice({
    cacheDir: dir,
    store: new InMemoryStore(),
    identity,
    config: { concurrency: 16 },
  });
  await inMemory.markDirty();
  const firstMem = performance.now();
  await inMemory.pushChanged();
  const firstPushToMemoryMs = Math.round(performance.now() - firstMem);
  await Deno.remove(`${dir}/.sluice`, { recursive: true });
  const svc = await createSluice({
    cacheDir: dir,
    store: new FsStore({ root }),
    identity,
    config: { concurrency: 16 },
  });
  await svc.markDirty();
  const first = performance.now();
  await svc.pushChanged();
  const firstPushMs = Math.round(performance.now() - first);
  const measured = await runChild("walk", { dir, root } satisfies WalkChildArg);
  return {
    files,
    firstPushToMemoryMs,
    firstPushToFsStoreMs: firstPushMs,
    ...(measured as Record<string, unknown>),
  };
}

/** The measured part of {@link walk}, in its own process. */
async function walkChild({ dir, root }: WalkChildArg) {
  const { store, counts } = countingStore(new FsStore({ root }));
  let peak = Deno.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 10);
  const t = performance.now();
  const svc = await createSluice({ cacheDir: dir, store, identity, config: { concurrency: 16 } });
  await svc.markDirty();
  const r = await svc.pushChanged();
  const ms = performance.now() - t;
  clearInterval(timer);
  peak = Math.max(peak, Deno.memoryUsage().rss);
  const requests = total(counts);
  // One changed file in this large cache, twice: the first push of the
  // process reads the remote index, the second reuses the one it wrote.
  const pushOne = async (text: string) => {
    await Deno.writeTextFile(`${dir}/outputs/0/f1.bin`, text);
    const t1 = performance.now();
    await svc.markDirty({ relPath: "outputs/0/f1.bin" });
    const pushed = await svc.pushChanged();
    if (pushed.uploaded.length !== 1) throw new Error("the one-file push uploaded no file");
    return performance.now() - t1;
  };
  const oneFilePushMs = await pushOne("changed once");
  const oneFilePushAgainMs = await pushOne("changed twice");
  const t2 = performance.now();
  await svc.pushChanged();
  const zeroDiffPushMs = performance.now() - t2;
  return {
    walkMs: Math.round(ms),
    peakRssMB: Math.round(peak / 1e6),
    uploads: r.uploaded.length,
    requests,
    oneFilePushMs: Math.round(oneFilePushMs),
    oneFilePushAgainMs: Math.round(oneFilePushAgainMs),
    zeroDiffPushMs: Math.round(zeroDiffPushMs),
  };
}

/** The section. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    return { bulkWalk: await walk(args.num("walk", 100_000)) };
  },
  child: (arg) => walkChild(arg as WalkChildArg),
};
