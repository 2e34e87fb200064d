/**
 * `--only onefile`: what a one-file push and a zero-diff pull cost from a
 * fresh process (a new service over an existing, synced cache: no index
 * held in memory) in a large bucket, on MinIO, for both index layouts:
 *
 * - v1: the monolithic `.datastore-index.json`, with the shards and the v1
 *   meta Sluice writes beside it;
 * - v2: `_index/<partition>.json` shards (one per model here) listed by
 *   `_index/_meta.json`. A bucket is v2 once its meta says so: the seed puts
 *   a v2 meta with no partitions first (as the chaos checker's v2 buckets
 *   start), and Sluice's own index update (`updateIndex`) then writes the
 *   shards, committed 50 shards at a time.
 *
 * Buckets hold `--onefile-sizes` files (default 10 000 and 100 000),
 * `data/bench/m<k>/out<j>/1/raw` with `--onefile-per-model` (default 100)
 * per model. Seeding that many objects would take too long, so only the
 * index is seeded (entries naming objects that are not there, written by
 * `updateIndex`), and the cache's manifest records each as synced at the
 * index's version. The measured operations touch no seeded object: a
 * zero-diff pull reads only the index token, and the one-file push creates
 * a new data version (`data/bench/m0/out0/<n>/raw`, 1 KiB) and updates the
 * index. The first pull after those pushes (in a process of its own) is
 * printed too, without a goal: the seeded cache never pulled, so it holds
 * no record of the shards' versions and reads the index whole once the
 * meta has moved (a cache that pulled reads one listing of `_index/` more,
 * see the README's bucket layout).
 *
 * Each operation runs `--onefile-rounds` times (default 3), each in its own
 * process; the requests are counted on the store (by kind) and on the wire
 * (every HTTP attempt of the SDK client), with the body bytes down and up.
 * Times are medians: `openMs` opens the service (loads the cache's state),
 * `opMs` is the push or pull, `wallMs` both, `processMs` the whole child
 * process as the parent saw it (runtime start-up included).
 *
 * Prints `onefile`.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { createSluice } from "../../sluice.ts";
import { S3Store } from "../../packages/s3/store.ts";
import type { S3ClientOptions } from "../../packages/s3/client.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { PutModes } from "../../sync/ports.ts";
import { DEFAULT_RETRY } from "../../sync/retry.ts";
import { headIndex, type IndexEntry, updateIndex } from "../../sync/transfer/remote_index.ts";
import {
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  shardKey,
  shardOf,
} from "../../sync/transfer/bucket_layout.ts";
import { minioBinary, type MinioServer, startMinio } from "../servers/minio.ts";
import {
  type BenchArgs,
  type BenchSection,
  countingStore,
  identity,
  medianOf,
  runChild,
  tempDir,
  total,
} from "./helpers.ts";

const PREFIX = "ds";
const FILE_BYTES = 1024;
const GOAL_REQUESTS = 4;
const GOAL_BYTES = 64 * 1024;
const GOAL = "<= 4 requests and <= 64 KB (65,536 B) downloaded";
/** Shards per index commit when seeding a v2 bucket (see {@link byShards}). */
const SEED_SHARDS = 50;

type Layout = "v1" | "v2";

/** What the parent hands a measured child. */
interface OneFileChildArg {
  readonly op: "push" | "pull";
  readonly clientOptions: S3ClientOptions;
  readonly bucket: string;
  readonly cacheDir: string;
  /** The file the push marks dirty and pushes. */
  readonly relPath?: string;
}

/** What a child measured. */
interface Measured {
  readonly requests: Record<string, number>;
  readonly storeCalls: number;
  readonly httpRequests: number;
  readonly bytesDownloaded: number;
  readonly bytesUploaded: number;
  readonly openMs: number;
  readonly opMs: number;
  readonly unchanged?: boolean;
  readonly uploaded?: number;
  readonly fetched?: number;
}

/** Counts the HTTP attempts of the store's SDK client. */
function countHttp(client: S3Client): { readonly n: number } {
  const counter = { n: 0 };
  client.middlewareStack.add((next) => (args) => {
    counter.n++;
    return next(args);
  }, { step: "finalizeRequest", name: "sluiceBenchOneFileCount" });
  return counter;
}

/** The measured operation, in its own process. */
async function oneFileChild(a: OneFileChildArg): Promise<Measured> {
  const t0 = performance.now();
  const s3 = new S3Store({ ...a.clientOptions, bucket: a.bucket, prefix: PREFIX });
  try {
    const http = countHttp(s3.client);
    const { store, counts, traffic } = countingStore(s3);
    const svc = await createSluice({ cacheDir: a.cacheDir, store, identity });
    const t1 = performance.now();
    let detail: Partial<Measured>;
    if (a.op === "push") {
      await svc.markDirty({ relPath: a.relPath });
      const r = await svc.pushChanged();
      if (r.uploaded.length !== 1) throw new Error(`the push uploaded ${r.uploaded.length} files`);
      detail = { uploaded: r.uploaded.length };
    } else {
      const r = await svc.pullChanged();
      detail = { unchanged: r.unchanged, fetched: r.fetched.length };
    }
    const t2 = performance.now();
    return {
      requests: { ...counts },
      storeCalls: total(counts),
      httpRequests: http.n,
      bytesDownloaded: traffic.downloaded,
      bytesUploaded: traffic.uploaded,
      openMs: t1 - t0,
      opMs: t2 - t1,
      ...detail,
    };
  } finally {
    s3.close();
  }
}

/** The seeded index: `files` entries, `perModel` per model (one v2 shard each). */
function seedEntries(files: number, perModel: number): Record<string, IndexEntry> {
  const entries: Record<string, IndexEntry> = {};
  for (let i = 0; i < files; i++) {
    const path = `data/bench/m${Math.floor(i / perModel)}/out${i % perModel}/1/raw`;
    entries[path] = {
      v: i.toString(16).padStart(32, "0"),
      h: i.toString(16).padStart(64, "a"),
      s: FILE_BYTES,
    };
  }
  return entries;
}

/**
 * `entries` in groups of at most `shards` shards each. A v2 commit applies
 * the whole change to each shard it touches, so one commit of 100 000
 * entries across 1 000 shards takes minutes; commits of 50 shards do not.
 */
function byShards(
  entries: Record<string, IndexEntry>,
  shards: number,
): Record<string, IndexEntry>[] {
  const groups = new Map<string, Record<string, IndexEntry>>();
  for (const [path, e] of Object.entries(entries)) {
    const s = shardOf(path);
    let g = groups.get(s);
    if (!g) groups.set(s, g = {});
    g[path] = e;
  }
  const all = [...groups.values()];
  const out: Record<string, IndexEntry>[] = [];
  for (let i = 0; i < all.length; i += shards) {
    out.push(Object.assign({}, ...all.slice(i, i + shards)));
  }
  return out;
}

/** A bucket of the layout holding `entries` in its index, and a cache synced with it. */
async function seedBucket(
  server: MinioServer,
  layout: Layout,
  entries: Record<string, IndexEntry>,
) {
  const t = performance.now();
  const bucket = await server.createBucket();
  const store = new S3Store({ ...server.clientOptions, bucket, prefix: PREFIX });
  try {
    if (layout === "v2") {
      const empty = { version: 2, partitions: [], commitSeq: 0, raw: {} } as const;
      await store.put(META_KEY, metaBody(empty), PutModes.create);
    }
    for (const set of layout === "v2" ? byShards(entries, SEED_SHARDS) : [entries]) {
      await updateIndex(store, { set, remove: [] }, DEFAULT_RETRY, undefined, undefined, 16);
    }
    const token = await headIndex(store, DEFAULT_RETRY);
    if (!token?.startsWith(`${layout}:`)) throw new Error(`the seeded bucket is ${token}`);
    const cacheDir = await tempDir(`sluice-bench-onefile-${layout}-`);
    const svc = await createSluice({ cacheDir, store, identity });
    for (const [path, e] of Object.entries(entries)) {
      svc.state.setSynced(path, { hash: e.h, version: e.v, size: e.s });
    }
    svc.state.indexVersion = token;
    await svc.state.saveManifest();
    // A cache in use holds a fresh probe result (24 h); the measured processes read it.
    await new ConditionalWrites().probe(store, { cache: svc.cache });
    const size = async (key: string) => (await store.head(key))?.size ?? 0;
    return {
      bucket,
      cacheDir,
      seedMs: Math.round(performance.now() - t),
      indexObjects: {
        [MONOLITH_KEY]: await size(MONOLITH_KEY),
        [META_KEY]: await size(META_KEY),
        [shardKey(shardOf("data/bench/m0/out0/1/raw"))]: await size(
          shardKey(shardOf("data/bench/m0/out0/1/raw")),
        ),
      },
    };
  } finally {
    store.close();
  }
}

/** Medians of the timed rounds, the counts of the last one, and whether the goal is met. */
function summarise(runs: { m: Measured; processMs: number }[]) {
  const last = runs[runs.length - 1].m;
  const ms = (f: (r: { m: Measured; processMs: number }) => number) =>
    Math.round(medianOf(runs.map(f)));
  return {
    httpRequests: last.httpRequests,
    requests: last.requests,
    bytesDownloaded: last.bytesDownloaded,
    bytesUploaded: last.bytesUploaded,
    wallMs: ms((r) => r.m.openMs + r.m.opMs),
    openMs: ms((r) => r.m.openMs),
    opMs: ms((r) => r.m.opMs),
    processMs: ms((r) => r.processMs),
    rounds: runs.length,
    ...(last.unchanged === undefined ? {} : { unchanged: last.unchanged }),
    ...(last.fetched === undefined ? {} : { fetched: last.fetched }),
  };
}

function goalMet(s: ReturnType<typeof summarise>): boolean {
  return s.httpRequests <= GOAL_REQUESTS && total(s.requests) <= GOAL_REQUESTS &&
    s.bytesDownloaded <= GOAL_BYTES;
}

async function measureBucket(
  server: MinioServer,
  layout: Layout,
  entries: Record<string, IndexEntry>,
  rounds: number,
) {
  const seeded = await seedBucket(server, layout, entries);
  const child = async (op: "push" | "pull", relPath?: string) => {
    const arg: OneFileChildArg = {
      op,
      clientOptions: server.clientOptions,
      bucket: seeded.bucket,
      cacheDir: seeded.cacheDir,
      relPath,
    };
    const t = performance.now();
    const m = await runChild("onefile", arg) as Measured;
    return { m, processMs: performance.now() - t };
  };
  const pulls = [];
  for (let i = 0; i < rounds; i++) {
    const r = await child("pull");
    if (!r.m.unchanged) throw new Error(`the ${layout} zero-diff pull found the index changed`);
    pulls.push(r);
  }
  const pushes = [];
  for (let i = 0; i < rounds; i++) {
    const relPath = `data/bench/m0/out0/${2 + i}/raw`;
    await Deno.mkdir(`${seeded.cacheDir}/${relPath.slice(0, relPath.lastIndexOf("/"))}`, {
      recursive: true,
    });
    await Deno.writeFile(`${seeded.cacheDir}/${relPath}`, new Uint8Array(FILE_BYTES).fill(i));
    pushes.push(await child("push", relPath));
  }
  const pullAfter = summarise([await child("pull")]);
  const zeroDiffPull = summarise(pulls);
  const oneFilePush = summarise(pushes);
  return {
    seedMs: seeded.seedMs,
    indexObjectBytes: seeded.indexObjects,
    oneFilePush: { ...oneFilePush, goalMet: goalMet(oneFilePush) },
    zeroDiffPull: { ...zeroDiffPull, goalMet: goalMet(zeroDiffPull) },
    pullAfterOwnPush: pullAfter,
  };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function oneFile(sizes: readonly number[], perModel: number, rounds: number) {
  if (!minioBinary.path) return { skipped: "no MinIO binary: run .ci/install_minio.sh" };
  const server = await startMinio();
  try {
    const out: Record<string, unknown> = {};
    const summary: string[] = [];
    for (const files of sizes) {
      const entries = seedEntries(files, perModel);
      const bySize: Record<string, Awaited<ReturnType<typeof measureBucket>>> = {};
      for (const layout of ["v1", "v2"] as const) {
        const r = await measureBucket(server, layout, entries, rounds);
        bySize[layout] = r;
        const line = (name: string, s: ReturnType<typeof summarise>) =>
          `${name} ${s.httpRequests} req, ${kb(s.bytesDownloaded)} down, ${s.wallMs} ms`;
        summary.push(
          `${files} files, ${layout}: ${line("push", r.oneFilePush)} (goal ${
            r.oneFilePush.goalMet ? "met" : "NOT met"
          }); ${line("zero-diff pull", r.zeroDiffPull)} (goal ${
            r.zeroDiffPull.goalMet ? "met" : "NOT met"
          }); ${line("pull after own push", r.pullAfterOwnPush)}`,
        );
      }
      out[String(files)] = bySize;
    }
    return {
      store: "MinIO (loopback)",
      filesPerModel: perModel,
      goal: GOAL,
      summary,
      ...out,
      notes: [
        "only the index is seeded (entries naming objects that are not in the bucket) and the cache's manifest records them synced; the measured push creates one new 1 KiB data version, the zero-diff pull fetches nothing",
        "each operation in a fresh process: a new service over the existing cache (no index held in memory); the conditional-write probe result is cached in the cache, as in a cache in use",
        "httpRequests: every HTTP attempt of the SDK client; requests: store calls by kind (getStream counted as get); bytes: object bodies",
        "pullAfterOwnPush: the first pull, in a process of its own, after the one-file pushes: the seeded cache never pulled, so it has no record of the shards' versions and reads the index whole once the meta moved (a cache that pulled reads one listing more); no goal",
      ],
    };
  } finally {
    await server.stop();
  }
}

/** The section. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    const sizes = (args.get("onefile-sizes") ?? "10000,100000").split(",").map(Number);
    return {
      onefile: await oneFile(
        sizes,
        args.num("onefile-per-model", 100),
        args.num("onefile-rounds", 3),
      ),
    };
  },
  child: (arg) => oneFileChild(arg as OneFileChildArg),
};
