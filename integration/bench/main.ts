/**
 * `deno task bench`: prints JSON figures. Speed and memory goals are checked
 * here, never by timed assertions in tests.
 *
 *   deno task bench [--files 10000] [--walk 100000] [--large-mb 200]
 *                   [--only core|walk|large|budget|minio|extension]
 *
 * @module
 */
import pMap from "p-map";
import { createSluice } from "../../sluice.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { type ObjectStore, PutModes } from "../../sync/ports.ts";
import { ConditionalWrites } from "../../sync/conditional.ts";
import { S3Store } from "../../packages/s3/store.ts";
import type { S3StoreOptions } from "../../packages/s3/client.ts";
import { GcsStore } from "../../packages/gcs/store.ts";
import { minioBinary, startMinio } from "../servers/minio.ts";
import { fakeGcsBinary, startFakeGcs } from "../servers/fake_gcs.ts";
import { benchExtension } from "./extension.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) {
  args.set(Deno.args[i].replace(/^--/, ""), Deno.args[i + 1]);
}
const FILES = Number(args.get("files") ?? 10_000);
const WALK = Number(args.get("walk") ?? 100_000);
const ONLY = args.get("only");
const LARGE_MB = Number(args.get("large-mb") ?? 200);
const CONCURRENCY = 8;
/** Timed rounds per side in the core comparison. */
const ROUNDS = Number(args.get("rounds") ?? 5);
const identity = { holder: "bench@host", hostname: "host", pid: 1 };

function countingStore<T extends ObjectStore>(
  store: T,
): { store: T; counts: Record<string, number> } {
  const counts: Record<string, number> = { get: 0, head: 0, put: 0, delete: 0, list: 0 };
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v === "function" && prop in counts) {
        return (...a: unknown[]) => {
          counts[prop as string]++;
          return v.apply(target, a);
        };
      }
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { store: wrapped, counts };
}

function total(c: Record<string, number>): number {
  return Object.values(c).reduce((a, b) => a + b, 0);
}

function reset(c: Record<string, number>) {
  for (const k of Object.keys(c)) c[k] = 0;
}

async function writeFiles(dir: string, n: number, size: number, prefix = "outputs") {
  const body = new Uint8Array(size).fill(97);
  for (let i = 0; i < n; i++) {
    const d = `${dir}/${prefix}/${Math.floor(i / 1000)}`;
    if (i % 1000 === 0) await Deno.mkdir(d, { recursive: true });
    body[0] = i % 256;
    await Deno.writeFile(`${d}/f${i}.bin`, body);
  }
}

function medianOf(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Temp directories made by the benchmark, removed before it exits. */
const temps: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  temps.push(dir);
  return dir;
}

async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await fn());
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

async function corePush(kind: "memory" | "fs") {
  const makeStore = async (): Promise<ObjectStore> =>
    kind === "memory"
      ? new InMemoryStore()
      : new FsStore({ root: await tempDir("sluice-bench-store-") });
  const src = await tempDir("sluice-bench-");
  await writeFiles(src, FILES, 1024);
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) paths.push(`outputs/${Math.floor(i / 1000)}/f${i}.bin`);
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
  for (let i = 0; i < ROUNDS; i++) {
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
    files: FILES,
    fileBytes: 1024,
    concurrency: CONCURRENCY,
    pipelineMs: Math.round(pipelineMs),
    bareLoopMs: Math.round(bareMs),
    ratio: Number((pipelineMs / bareMs).toFixed(3)),
    rounds: ROUNDS,
    requestsPerPush,
    zeroDiffPushRequests: zeroPush,
    zeroDiffPullRequests: zeroPull,
  };
}

async function copyDir(src: string): Promise<string> {
  const dst = await tempDir("sluice-bench-clone-");
  const cmd = new Deno.Command("cp", { args: ["-a", `${src}/.`, dst] });
  const { success } = await cmd.output();
  if (!success) throw new Error("cp failed");
  // Flush the copy's dirty pages now, so that their writeback does not land
  // inside a timed run.
  await new Deno.Command("sync").output();
  return dst;
}

/**
 * A bulk markDirty walk over WALK unchanged files. The cache is synced to an
 * FsStore here (that first walk push, which hashes and uploads every file, is
 * timed too); the walk itself runs in a fresh process so that its peak RSS
 * is the walk's own, not this process's setup. The child then times a push
 * of one changed file and a push with nothing to do in that large cache.
 */
async function walk() {
  const dir = await tempDir("sluice-bench-walk-");
  const root = await tempDir("sluice-bench-walk-store-");
  await writeFiles(dir, WALK, 64);
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
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--walk-child", `${dir}|${root}`],
    stdout: "piped",
    stderr: "inherit",
  });
  const { stdout, success } = await child.output();
  if (!success) throw new Error("the walk child failed");
  return {
    files: WALK,
    firstPushToMemoryMs,
    firstPushToFsStoreMs: firstPushMs,
    ...JSON.parse(new TextDecoder().decode(stdout)),
  };
}

/** The measured part of {@link walk}, in its own process. */
async function walkChild(dir: string, root: string) {
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
  console.log(JSON.stringify({
    walkMs: Math.round(ms),
    peakRssMB: Math.round(peak / 1e6),
    uploads: r.uploaded.length,
    requests,
    oneFilePushMs: Math.round(oneFilePushMs),
    oneFilePushAgainMs: Math.round(oneFilePushAgainMs),
    zeroDiffPushMs: Math.round(zeroDiffPushMs),
  }));
}

/** Where the large-file children find their store (passed as JSON). */
type LargeStoreSpec =
  | { kind: "fs"; root: string }
  | { kind: "minio"; bucket: string; clientOptions: S3StoreOptions }
  | { kind: "gcs"; bucket: string; apiEndpoint: string; projectId: string };

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
async function largeFile() {
  const mb = LARGE_MB;
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
    const arg = JSON.stringify({ op, dir, spec });
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--large-child", arg],
      stdout: "piped",
      stderr: "inherit",
    });
    const { stdout, success } = await child.output();
    if (!success) throw new Error(`the large-file ${op} child failed (${spec.kind})`);
    return JSON.parse(new TextDecoder().decode(stdout));
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
async function largeChild(op: string, dir: string, spec: LargeStoreSpec) {
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
  console.log(JSON.stringify({
    ms: Math.round(ms),
    baselineRssMB: Math.round(base / 1e6),
    peakRssMB: Math.round(peak / 1e6),
    growthMB: Math.round((peak - base) / 1e6),
  }));
  (store as { close?: () => void }).close?.();
}

/** Incident 000's budget: one write per new version, and the probe at most once per endpoint. */
async function createOnlyBudget() {
  const conditional = new ConditionalWrites();
  const store = new InMemoryStore();
  const svc = await createSluice({
    cacheDir: await tempDir("sluice-bench-budget-"),
    store,
    identity,
    conditional,
  });
  const requestsPerVersion: number[] = [];
  for (let n = 1; n <= 5; n++) {
    const path = `data/t/m/d/${n}/raw`;
    await Deno.mkdir(`${svc.cacheDir}/data/t/m/d/${n}`, { recursive: true });
    await Deno.writeTextFile(`${svc.cacheDir}/${path}`, `v${n}`);
    await svc.markDirty({ relPath: path });
    store.resetLog();
    await svc.pushChanged();
    requestsPerVersion.push(store.log.filter((r) => r.key === path).length);
  }
  const probesFirstProcess = conditional.stats.probeRuns;
  // A second "process" (a new registry) on the same cache dir: the cached probe result is fresh.
  const second = new ConditionalWrites();
  const svc2 = await createSluice({ cacheDir: svc.cacheDir, store, identity, conditional: second });
  await Deno.mkdir(`${svc2.cacheDir}/data/t/m/d/6`, { recursive: true });
  await Deno.writeTextFile(`${svc2.cacheDir}/data/t/m/d/6/raw`, "v6");
  await svc2.markDirty({ relPath: "data/t/m/d/6/raw" });
  await svc2.pushChanged();
  return {
    requestsPerNewVersion: requestsPerVersion,
    probeRunsFirstProcess: probesFirstProcess,
    probeRunsSecondProcessWithFreshCache: second.stats.probeRuns,
    goal:
      "1 request per new version; probe <= 1 per endpoint per process, 0 with a fresh cached result",
  };
}

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
    const bare = await median(3, async () => {
      const store = await makeStore();
      const t = performance.now();
      await pMap(files, (f) => store.put(f, body, PutModes.overwrite), {
        concurrency: CONCURRENCY,
      });
      return performance.now() - t;
    });
    result.bareLoopOfPutsMs = Math.round(bare);
    const cold = result.coldPush as { medianMs: number };
    result.coldPushVsBareLoop = Number((cold.medianMs / bare).toFixed(3));
    result.files = files.length;
    result.fileBytes = body.length;
    result.models = 50;
    return result;
  } finally {
    await server.stop();
  }
}

const out: Record<string, unknown> = {};
const walkChildArgs = args.get("walk-child");
const largeChildArgs = args.get("large-child");
if (largeChildArgs) {
  const { op, dir, spec } = JSON.parse(largeChildArgs);
  await largeChild(op, dir, spec);
  Deno.exit(0);
}
if (walkChildArgs) {
  const [dir, root] = walkChildArgs.split("|");
  await walkChild(dir, root);
  Deno.exit(0);
}
if (!ONLY || ONLY === "core") {
  out.pushMemory = await corePush("memory");
  out.pushFs = await corePush("fs");
}
if (!ONLY || ONLY === "walk") out.bulkWalk = await walk();
if (!ONLY || ONLY === "large") out.largeFile = await largeFile();
if (!ONLY || ONLY === "budget") out.createOnlyBudget = await createOnlyBudget();
if (!ONLY || ONLY === "minio") out.minio = await minioSection();
if (!ONLY || ONLY === "extension") {
  out.extension = await benchExtension({
    files: Number(args.get("ext-files") ?? 1_000),
    rounds: ROUNDS,
  });
}
out.goals = {
  pipelineVsBareLoop: "ratio <= 1.05",
  extension: "no added requests; push and pull ratios <= 1.05",
  zeroDiff: "<= 1 request each",
  walk: "<= 3000 ms and <= 300 MB, 0 uploads",
  largeFile: "RSS growth independent of the file's size (1 MiB chunks)",
};
console.log(JSON.stringify(out, null, 2));
for (const dir of temps) await Deno.remove(dir, { recursive: true }).catch(() => {});
