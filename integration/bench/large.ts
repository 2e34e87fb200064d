/**
 * `--only large`: one file of `--large-mb` MB (default 200) pushed to, then
 * pulled from, each store, each transfer in a fresh process, with its time
 * and peak RSS.
 *
 * Prints `largeFile`.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { S3Store } from "../../packages/s3/store.ts";
import type { S3StoreOptions } from "../../packages/s3/client.ts";
import { GcsStore } from "../../packages/gcs/store.ts";
import { minioBinary, startMinio } from "../servers/minio.ts";
import { fakeGcsBinary, startFakeGcs } from "../servers/fake_gcs.ts";
import {
  type BenchArgs,
  type BenchSection,
  copyDir,
  identity,
  runChild,
  tempDir,
} from "./helpers.ts";

/** Where the large-file children find their store (passed as JSON). */
type LargeStoreSpec =
  | { kind: "fs"; root: string }
  | { kind: "minio"; bucket: string; clientOptions: S3StoreOptions }
  | { kind: "gcs"; bucket: string; apiEndpoint: string; projectId: string };

/** What the parent hands a measured child. */
interface LargeChildArg {
  readonly op: "push" | "pull";
  readonly dir: string;
  readonly spec: LargeStoreSpec;
}

function openLargeStore(spec: LargeStoreSpec): ObjectStore {
  if (spec.kind === "fs") return new FsStore({ root: spec.root });
  if (spec.kind === "minio") return new S3Store({ ...spec.clientOptions, bucket: spec.bucket });
  return new GcsStore({
    apiEndpoint: spec.apiEndpoint,
    projectId: spec.projectId,
    bucket: spec.bucket,
    requestTimeoutMs: 60_000,
  });
}

/**
 * A large file pushed to, then pulled from, each store (FsStore, and MinIO
 * and fake-gcs-server when their binaries are installed), each transfer in a
 * fresh process so that the peak RSS is its own. A file above the streaming
 * threshold moves in 1 MiB chunks, so the growth over the process's baseline
 * does not depend on the file's size.
 */
async function largeFile(mb: number) {
  const src = await tempDir("sluice-bench-large-");
  {
    using f = await Deno.open(`${src}/big.bin`, { write: true, create: true });
    const chunk = new Uint8Array(1 << 20);
    for (let i = 0; i < mb; i++) {
      chunk.fill(i & 255);
      chunk[0] = i >> 8;
      for (let off = 0; off < chunk.length;) off += await f.write(chunk.subarray(off));
    }
  }
  const run = async (op: "push" | "pull", dir: string, spec: LargeStoreSpec) => {
    try {
      return await runChild("large", { op, dir, spec } satisfies LargeChildArg);
    } catch (e) {
      throw new Error(`the large-file ${op} child failed (${spec.kind})`, { cause: e });
    }
  };
  const measure = async (spec: LargeStoreSpec) => {
    // Each store gets a fresh copy of the cache (a pushed cache records its store).
    const cache = await copyDir(src);
    const peer = await Deno.makeTempDir({ prefix: "sluice-bench-large-peer-" });
    try {
      const push = await run("push", cache, spec);
      const pull = await run("pull", peer, spec);
      const pulledSizeMatches = (await Deno.stat(`${peer}/big.bin`)).size === mb * (1 << 20);
      return { push, pull, pulledSizeMatches };
    } finally {
      await Deno.remove(cache, { recursive: true });
      await Deno.remove(peer, { recursive: true });
    }
  };
  const out: Record<string, unknown> = { fileMB: mb };
  const root = await Deno.makeTempDir({ prefix: "sluice-bench-large-store-" });
  out.fs = await measure({ kind: "fs", root });
  await Deno.remove(root, { recursive: true });
  if (minioBinary.path) {
    const server = await startMinio();
    try {
      out.minio = await measure({
        kind: "minio",
        bucket: await server.createBucket(),
        clientOptions: { ...server.clientOptions, bucket: "" },
      });
    } finally {
      await server.stop();
    }
  } else out.minio = { skipped: "no MinIO binary: run .ci/install_minio.sh" };
  if (fakeGcsBinary.path) {
    const server = await startFakeGcs();
    try {
      out.gcs = await measure({
        kind: "gcs",
        bucket: await server.createBucket(),
        apiEndpoint: server.apiEndpoint,
        projectId: server.projectId,
      });
    } finally {
      await server.stop();
    }
  } else out.gcs = { skipped: "no fake-gcs-server binary: run .ci/install_fake_gcs.sh" };
  await Deno.remove(src, { recursive: true });
  return out;
}

/** The measured part of {@link largeFile}, in its own process. */
async function largeChild({ op, dir, spec }: LargeChildArg) {
  const store = openLargeStore(spec);
  const svc = await createSluice({ cacheDir: dir, store, identity });
  const base = Deno.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 10);
  const t = performance.now();
  if (op === "push") {
    await svc.markDirty({ relPath: "big.bin" });
    await svc.pushChanged();
  } else {
    await svc.pullChanged();
  }
  const ms = performance.now() - t;
  clearInterval(timer);
  peak = Math.max(peak, Deno.memoryUsage().rss);
  (store as { close?: () => void }).close?.();
  return {
    ms: Math.round(ms),
    baselineRssMB: Math.round(base / 1e6),
    peakRssMB: Math.round(peak / 1e6),
    growthMB: Math.round((peak - base) / 1e6),
  };
}

/** The section. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    return { largeFile: await largeFile(args.num("large-mb", 200)) };
  },
  child: (arg) => largeChild(arg as LargeChildArg),
};
