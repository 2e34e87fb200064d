/**
 * `deno task bench --only extension`: the cost of the swamp extension adapter
 * on MinIO. The same work, a push and a pull of `files` small files, once
 * through the S3 extension (`createProvider`, `createSyncService`,
 * `markDirty` of each path, `pushChanged`; a fresh cache's `pullChanged`) and
 * once through Sluice's own API (`createS3Provider` with the same keys,
 * `createSyncService`, the same calls). After one untimed push and pull of
 * each side, every round times the two pushes back to back and then the two
 * pulls, the first side alternating, each on a fresh bucket and cache; the
 * medians are printed, and the ratios are the medians of the per-round ratios
 * of those adjacent pairs, with the HTTP requests each side sent (counted in
 * the SDK client's middleware, every attempt included).
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { createSluice } from "../../sluice.ts";
import { createS3Provider } from "../../packages/s3/provider.ts";
import { S3Store } from "../../packages/s3/store.ts";
import { createSluiceS3Datastore } from "../../extensions/s3/extensions/datastores/sluice_s3.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { minioBinary, type MinioServer, startMinio } from "../servers/minio.ts";

/** Options of {@link benchExtension}. */
export interface ExtensionBenchOptions {
  /** Files per push and pull; default 1 000. */
  readonly files?: number;
  /** Bytes per file; default 512. */
  readonly fileBytes?: number;
  /** Timed rounds per side; default 5. */
  readonly rounds?: number;
}

/** One side's push and pull, timed, with the requests they sent. */
interface Side {
  push(): Promise<{ ms: number; requests: number }>;
  pull(): Promise<{ ms: number; requests: number; fetched: number }>;
}

const identity = { holder: "bench@host", hostname: "host", pid: 1 };

/** Counts the HTTP attempts of `store`'s SDK client. */
function countRequests(store: ObjectStore): { readonly n: number } {
  if (!(store instanceof S3Store)) throw new Error("the bench expects an S3 store");
  const counter = { n: 0 };
  const client: S3Client = store.client;
  client.middlewareStack.add((next) => (args) => {
    counter.n++;
    return next(args);
  }, { step: "finalizeRequest", name: "sluiceBenchCount" });
  return counter;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs the comparison; a skip notice when MinIO is not installed. */
export async function benchExtension(
  options: ExtensionBenchOptions = {},
): Promise<Record<string, unknown>> {
  if (!minioBinary.path) return { skipped: "no MinIO binary: run .ci/install_minio.sh" };
  const files = options.files ?? 1_000;
  const fileBytes = options.fileBytes ?? 512;
  const rounds = options.rounds ?? 5;
  const server = await startMinio();
  const temps: string[] = [];
  const temp = async (p: string) => {
    const d = await Deno.makeTempDir({ prefix: `sluice-bench-ext-${p}-` });
    temps.push(d);
    return d;
  };
  try {
    const paths = Array.from(
      { length: files },
      (_, i) => `outputs/bench/m${Math.floor(i / 100)}/run-${i}.yaml`,
    );
    const body = new Uint8Array(fileBytes).fill(121);
    const fill = async (cache: string) => {
      for (const p of paths) {
        await Deno.mkdir(`${cache}/${p.slice(0, p.lastIndexOf("/"))}`, { recursive: true });
        await Deno.writeFile(`${cache}/${p}`, body);
      }
    };
    // A bucket holding the files, for the pulls (pushed once by Sluice's own API).
    const pullBucket = await server.createBucket();
    const credentials = { accessKeyId: server.accessKey, secretAccessKey: server.secretKey };
    const keys = (bucket: string) => ({
      bucket,
      region: server.region,
      endpoint: server.endpoint,
      forcePathStyle: true,
      prefix: "datastore",
    });

    const direct: Side = {
      async push() {
        const provider = createS3Provider(keys(await server.createBucket()), {
          credentials,
          identity,
          conditional: new ConditionalWrites(),
          createService: createSluice,
        });
        try {
          const repo = await temp("direct");
          await fill(`${repo}/cache`);
          const counter = countRequests(provider.store);
          const t = performance.now();
          const svc = await provider.createSyncService(repo, `${repo}/cache`);
          for (const p of paths) await svc.markDirty({ relPath: p });
          await svc.pushChanged();
          return { ms: performance.now() - t, requests: counter.n };
        } finally {
          provider.close();
        }
      },
      async pull() {
        const provider = createS3Provider(keys(pullBucket), {
          credentials,
          identity,
          conditional: new ConditionalWrites(),
          createService: createSluice,
        });
        try {
          const repo = await temp("direct");
          const counter = countRequests(provider.store);
          const t = performance.now();
          const svc = await provider.createSyncService(repo, `${repo}/cache`);
          const r = await svc.pullChanged();
          return { ms: performance.now() - t, requests: counter.n, fetched: r.fetched.length };
        } finally {
          provider.close();
        }
      },
    };

    const extension: Side = {
      async push() {
        const ds = createSluiceS3Datastore({
          credentials,
          identity,
          conditional: new ConditionalWrites(),
          env: () => undefined,
        });
        const config = keys(await server.createBucket());
        const rt = ds.createProvider(config).runtime;
        try {
          const repo = await temp("ext");
          const cache = `${repo}/home/repos/r1`;
          await fill(cache);
          const counter = countRequests(rt.provider.store);
          const t = performance.now();
          const svc = ds.createProvider(config).createSyncService(repo, cache);
          for (const p of paths) await svc.markDirty({ relPath: p });
          await svc.pushChanged();
          return { ms: performance.now() - t, requests: counter.n };
        } finally {
          rt.provider.close();
        }
      },
      async pull() {
        const ds = createSluiceS3Datastore({
          credentials,
          identity,
          conditional: new ConditionalWrites(),
          env: () => undefined,
        });
        const config = keys(pullBucket);
        const rt = ds.createProvider(config).runtime;
        try {
          const repo = await temp("ext");
          const counter = countRequests(rt.provider.store);
          const t = performance.now();
          const svc = ds.createProvider(config).createSyncService(repo, `${repo}/home/repos/r1`);
          const fetched = await svc.pullChanged();
          return { ms: performance.now() - t, requests: counter.n, fetched };
        } finally {
          rt.provider.close();
        }
      },
    };

    await seedPullBucket(server, pullBucket, fill, paths, temp);
    // One untimed push and pull of each side first: without it the first timed
    // run was always the direct side's, and cold (the process's first per-path
    // marks and first pull, on a MinIO just busy with the seed).
    for (const s of [direct, extension]) {
      await s.push();
      await s.pull();
    }
    const sides = { direct, extension };
    const runs = {
      directPush: [] as number[],
      extensionPush: [] as number[],
      directPull: [] as number[],
      extensionPull: [] as number[],
    };
    const ratios = { push: [] as number[], pull: [] as number[] };
    const requests = { directPush: 0, extensionPush: 0, directPull: 0, extensionPull: 0 };
    const fetched = { direct: 0, extension: 0 };
    // Each round times the two pushes back to back, then the two pulls in the
    // other order (D E E D, then E D D E), and keeps the ratio of each adjacent
    // pair, so that load drifting over the run cancels out. Timing a side's push
    // and pull together (D D E E) put both under one burst of load: on a loaded
    // machine the ratio of unpaired medians of 5 ranged from 0.81 to 1.34 between
    // two sides running the very same code. Short bursts still move single pairs
    // (see `roundRatios`); a 5% difference needs a quiet machine or more rounds.
    for (let i = 0; i < rounds; i++) {
      const order: ("direct" | "extension")[] = i % 2 === 0
        ? ["direct", "extension"]
        : ["extension", "direct"];
      const push = { direct: 0, extension: 0 };
      for (const side of order) {
        const r = await sides[side].push();
        push[side] = r.ms;
        runs[`${side}Push`].push(r.ms);
        requests[`${side}Push`] = r.requests;
      }
      const pull = { direct: 0, extension: 0 };
      for (const side of [...order].reverse()) {
        const r = await sides[side].pull();
        pull[side] = r.ms;
        runs[`${side}Pull`].push(r.ms);
        requests[`${side}Pull`] = r.requests;
        fetched[side] = r.fetched;
      }
      ratios.push.push(push.extension / push.direct);
      ratios.pull.push(pull.extension / pull.direct);
    }
    const ms = Object.fromEntries(
      Object.entries(runs).map(([k, v]) => [k, Math.round(median(v))]),
    ) as Record<keyof typeof runs, number>;
    const pushRatio = median(ratios.push);
    const pullRatio = median(ratios.pull);
    const rounded = (xs: number[]) => xs.map((x) => Number(x.toFixed(3)));
    return {
      files,
      fileBytes,
      rounds,
      medianMs: ms,
      requests,
      filesPulled: fetched,
      roundRatios: { push: rounded(ratios.push), pull: rounded(ratios.pull) },
      pushRatio: Number(pushRatio.toFixed(3)),
      pullRatio: Number(pullRatio.toFixed(3)),
      adapterAddsNoRequests: requests.extensionPush <= requests.directPush &&
        requests.extensionPull <= requests.directPull,
      withinFivePercent: pushRatio <= 1.05 && pullRatio <= 1.05,
    };
  } finally {
    await server.stop();
    for (const d of temps) await Deno.remove(d, { recursive: true }).catch(() => {});
  }
}

/** Pushes the files into `bucket` once, through Sluice's own API. */
async function seedPullBucket(
  server: MinioServer,
  bucket: string,
  fill: (cache: string) => Promise<void>,
  paths: readonly string[],
  temp: (p: string) => Promise<string>,
): Promise<void> {
  const provider = createS3Provider({
    bucket,
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    prefix: "datastore",
  }, {
    credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
    createService: createSluice,
  });
  try {
    const repo = await temp("seed");
    const svc = await provider.createSyncService(repo, `${repo}/cache`);
    await fill(svc.cacheDir);
    await svc.markDirty({ relPaths: paths });
    await svc.pushChanged();
  } finally {
    provider.close();
  }
}
