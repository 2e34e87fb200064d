/**
 * `--only minio`: the common datastore shape (1 000 files of 5 KiB across
 * 50 models) against MinIO on loopback: a cold push, a push of one changed
 * file, zero-diff push and pull, and a cold pull: times and requests.
 * The side-by-side comparison with a bare loop (alternating rounds, equal
 * concurrency, wall and CPU) is the `cold` section's.
 *
 * Prints `minio`.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { S3Store } from "../../packages/s3/store.ts";
import { minioBinary, startMinio } from "../servers/minio.ts";
import { type BenchSection, copyDir, countingStore, identity, reset, tempDir } from "./helpers.ts";

/** The common datastore benchmark shape, against MinIO on loopback. */
async function minioSection() {
  if (!minioBinary.path) return { skipped: "no MinIO binary: run .ci/install_minio.sh" };
  const server = await startMinio();
  try {
    const files: string[] = [];
    for (let m = 0; m < 50; m++) {
      for (let j = 0; j < 20; j++) files.push(`data/bench/m${m}/out${j}/1/raw`);
    }
    const body = new Uint8Array(5 * 1024).fill(120);
    const src = await tempDir("sluice-bench-minio-");
    for (const f of files) {
      await Deno.mkdir(`${src}/${f.slice(0, f.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeFile(`${src}/${f}`, body);
    }
    const makeStore = async () => {
      const bucket = await server.createBucket();
      return new S3Store({ ...server.clientOptions, bucket, prefix: "ds" });
    };
    const result: Record<string, unknown> = {};
    const measure = async (
      name: string,
      prepare: () => Promise<{ run: () => Promise<unknown>; counts: Record<string, number> }>,
    ) => {
      const times: number[] = [];
      let requests: Record<string, number> = {};
      for (let i = 0; i < 3; i++) {
        const { run, counts } = await prepare();
        reset(counts);
        const t = performance.now();
        await run();
        times.push(performance.now() - t);
        requests = { ...counts };
      }
      times.sort((a, b) => a - b);
      result[name] = { medianMs: Math.round(times[1]), requests };
    };
    const synced = async () => {
      const { store, counts } = countingStore(await makeStore());
      const svc = await createSluice({ cacheDir: await copyDir(src), store, identity });
      await svc.markDirty({ relPaths: files });
      return { svc, store, counts };
    };
    await measure("coldPush", async () => {
      const { svc, counts } = await synced();
      return { run: () => svc.pushChanged(), counts };
    });
    await measure("pushOneChangedOf1000", async () => {
      const { svc, counts } = await synced();
      await svc.pushChanged();
      const changed = "data/bench/m0/latest";
      await Deno.writeTextFile(`${svc.cacheDir}/${changed}`, "1");
      await svc.markDirty({ relPath: changed });
      return { run: () => svc.pushChanged(), counts };
    });
    await measure("zeroDiffPush", async () => {
      const { svc, counts } = await synced();
      await svc.pushChanged();
      return { run: () => svc.pushChanged(), counts };
    });
    await measure("zeroDiffPull", async () => {
      const { svc, counts } = await synced();
      await svc.pushChanged();
      await svc.pullChanged();
      return { run: () => svc.pullChanged(), counts };
    });
    await measure("coldPull", async () => {
      const { svc, store } = await synced();
      await svc.pushChanged();
      const { store: s2, counts } = countingStore(store);
      const fresh = await createSluice({
        cacheDir: await tempDir("sluice-bench-cold-"),
        store: s2,
        identity,
      });
      return { run: () => fresh.pullChanged(), counts };
    });
    result.files = files.length;
    result.fileBytes = body.length;
    result.models = 50;
    return result;
  } finally {
    await server.stop();
  }
}

/** The section. */
export const section: BenchSection = {
  async run() {
    return { minio: await minioSection() };
  },
};
