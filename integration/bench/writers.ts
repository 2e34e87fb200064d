/**
 * Concurrent writers on one MinIO bucket: N separate processes (N = 1, 4,
 * 16, 32 by default), each pushing new versions of its own model through
 * Sluice for a fixed time.
 *
 * Writer `i` has a cache directory of its own and, per commit, writes
 * `data/bench/w<i>/m0/out/<version>/raw` (5 KiB) and the latest marker
 * `data/bench/w<i>/m0/out/latest`, marks both dirty and pushes. Every commit
 * ends with a compare-and-swap of the shared remote index (the v1 index
 * object of a fresh bucket, or with `--layout v2` the shards and the meta),
 * which is where writers meet. A CAS retry is a refused conditional write
 * (`PreconditionFailedError` or `AlreadyExistsError`) on an index key,
 * counted by a proxy around the writer's store: each one makes
 * `updateIndex` read and write again.
 *
 * Each writer first makes one untimed commit (probe, connections, the
 * index's creation), reports ready, and starts when all are ready. It prints
 * one JSON line per commit; the parent prints, per N: commits per second,
 * p50 and p99 commit latency (markDirty + pushChanged), CAS retries per
 * commit, requests per commit, the writers' CPU and MinIO's (from
 * `/proc/<pid>/stat`), beside the goals.
 *
 *   deno task bench --only writers [--writers 1,4,16,32]
 *     [--writer-ms 10000] [--layout v1|v2] (default: both layouts)
 *   deno run -A integration/bench/writers.ts [--writers 1,4,16,32]
 *     [--duration-ms 10000] [--layout v1|v2] (one layout, default v1)
 *
 * @module
 */
import type { BenchArgs, BenchSection } from "./helpers.ts";
import { createSluice } from "../../sluice.ts";
import { META_KEY, MONOLITH_KEY } from "../../sync/transfer/bucket_layout.ts";
import { PutModes } from "../../sync/ports.ts";
import { S3Store } from "../../packages/s3/store.ts";
import type { S3StoreOptions } from "../../packages/s3/client.ts";
import {
  closeStore,
  countingStore,
  cpuMs,
  median,
  numberList,
  parseArgs,
  processCpuMs,
  quantile,
  requestFigures,
  round,
  skipNotice,
  startBackend,
} from "./remote_support.ts";

/** Options of {@link benchWriters}. */
export interface WritersBenchOptions {
  /** Writer counts; default 1, 4, 16, 32. */
  readonly writers?: readonly number[];
  /** How long the writers commit, per count; default 10 000 ms. */
  readonly durationMs?: number;
  /** Index layout of the bucket: `v1` (a fresh bucket's) or `v2` (seeded meta); default v1. */
  readonly layout?: "v1" | "v2";
  /** Bytes per data version; default 5 KiB. */
  readonly fileBytes?: number;
  /** Longest wait for the writers to get ready; default 300 000 ms. */
  readonly readyTimeoutMs?: number;
}

/** What a writer process is given (as JSON on its command line). */
interface WriterSpec {
  readonly index: number;
  readonly bucket: string;
  readonly clientOptions: S3StoreOptions;
  readonly fileBytes: number;
}

/** A writer's last line. */
interface WriterDone {
  readonly done: true;
  readonly commits: number;
  readonly cpuMs: number;
  readonly requests: Record<string, number>;
  /** Refused conditional writes by key class. */
  readonly refused: Record<string, number>;
  /** Pushes that failed (e.g. `push_failed`: the index kept changing), by error code. */
  readonly failed: Record<string, number>;
}

const GOALS = {
  throughput: "commits/s grow with N until MinIO's CPU saturates",
  latency: "p99 at 32 ≤ 3× p99 at 1",
  retries: "CAS retries per commit ≤ 1 at 32",
};

function keyClass(key: string): string {
  if (key === MONOLITH_KEY) return "indexObject";
  if (key === META_KEY) return "indexMeta";
  if (key.startsWith("_index/")) return "indexShard";
  return "other";
}

/** Busy and total CPU ticks of the whole machine (`/proc/stat`); null where unknown. */
async function machineTicks(): Promise<{ busy: number; total: number } | null> {
  try {
    const line = (await Deno.readTextFile("/proc/stat")).split("\n")[0];
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - f[4], total }; // less idle and iowait
  } catch {
    return null;
  }
}

/** The writer process: one untimed commit, "ready", then commits until its deadline. */
async function writerChild(spec: WriterSpec): Promise<void> {
  const raw = new S3Store({ ...spec.clientOptions, bucket: spec.bucket });
  const { store, counts } = countingStore(raw);
  const cacheDir = await Deno.makeTempDir({ prefix: `sluice-bench-writer${spec.index}-` });
  const identity = { holder: `w${spec.index}@host`, hostname: "host", pid: Deno.pid };
  const svc = await createSluice({ cacheDir, store, identity });
  const body = new Uint8Array(spec.fileBytes).fill(119);
  const model = `data/bench/w${spec.index}/m0/out`;
  const say = (o: unknown) => console.log(JSON.stringify(o));
  let version = 0;
  const commit = async () => {
    version++;
    const data = `${model}/${version}/raw`;
    await Deno.mkdir(`${cacheDir}/${model}/${version}`, { recursive: true });
    new DataView(body.buffer).setUint32(0, version);
    await Deno.writeFile(`${cacheDir}/${data}`, body);
    await Deno.writeTextFile(`${cacheDir}/${model}/latest`, String(version));
    const t = performance.now();
    await svc.markDirty({ relPaths: [data, `${model}/latest`] });
    const r = await svc.pushChanged();
    // A failed push's files stay dirty and go with the next one.
    if (r.uploaded.length < 2) throw new Error(`commit ${version} uploaded ${r.uploaded}`);
    return performance.now() - t;
  };
  const refusedIndex = () => {
    let n = 0;
    for (const [k, c] of counts.refused) if (keyClass(k) !== "other") n += c;
    return n;
  };
  try {
    await commit();
    for (const k of Object.keys(counts.calls)) counts.calls[k] = 0;
    counts.refused.clear();
    say({ ready: true });
    const line = await readLine(Deno.stdin.readable);
    const deadline = Number(line?.split(" ")[1]);
    if (!Number.isFinite(deadline)) return; // the parent went away
    const c0 = cpuMs();
    let commits = 0;
    const failed: Record<string, number> = {};
    while (Date.now() < deadline) {
      const before = refusedIndex();
      let latencyMs: number;
      try {
        latencyMs = await commit();
      } catch (e) {
        // A push that gives up (its index kept changing) is a figure, not the end of the run.
        const code = (e as { code?: string }).code ?? "error";
        failed[code] = (failed[code] ?? 0) + 1;
        continue;
      }
      commits++;
      say({ commit: version, latencyMs: round(latencyMs, 1), casRetries: refusedIndex() - before });
    }
    const refused: Record<string, number> = {};
    for (const [k, c] of counts.refused) refused[keyClass(k)] = (refused[keyClass(k)] ?? 0) + c;
    const done: WriterDone = {
      done: true,
      commits,
      cpuMs: round(cpuMs() - c0),
      requests: requestFigures(counts),
      refused,
      failed,
    };
    say(done);
  } finally {
    closeStore(raw);
    await Deno.remove(cacheDir, { recursive: true }).catch(() => {});
  }
}

/** The first line of a stream (without its newline); `null` at its end. */
async function readLine(stream: ReadableStream<Uint8Array>): Promise<string | null> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text || null;
      text += dec.decode(value, { stream: true });
      const nl = text.indexOf("\n");
      if (nl >= 0) return text.slice(0, nl);
    }
  } finally {
    reader.releaseLock();
  }
}

/** A writer process seen from the parent: its JSON lines as they come. */
class Writer {
  readonly lines: Record<string, unknown>[] = [];
  readonly #child: Deno.ChildProcess;
  readonly #pump: Promise<void>;
  #onLine?: () => void;

  constructor(spec: WriterSpec) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--child", JSON.stringify(spec)],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#pump = this.#read();
  }

  async #read() {
    const dec = new TextDecoder();
    let text = "";
    for await (const chunk of this.#child.stdout) {
      text += dec.decode(chunk, { stream: true });
      let nl;
      while ((nl = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, nl).trim();
        text = text.slice(nl + 1);
        if (line.startsWith("{")) this.lines.push(JSON.parse(line));
        this.#onLine?.();
      }
    }
  }

  /** Resolves once the writer reported ready; rejects if it exits first. */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.lines.some((l) => l.ready)) resolve();
      };
      this.#onLine = check;
      check();
      this.#child.status.then((s) => reject(new Error(`a writer exited (${s.code}) before ready`)));
    });
  }

  /** Tells the writer to commit until `deadline` (epoch ms). */
  async go(deadline: number): Promise<void> {
    const w = this.#child.stdin.getWriter();
    await w.write(new TextEncoder().encode(`go ${deadline}\n`));
    await w.close();
  }

  /** Waits for the writer's end; its commits and its last line. */
  async finish(): Promise<{ latencies: number[]; retries: number[]; done: WriterDone }> {
    const status = await this.#child.status;
    await this.#pump;
    const done = this.lines.find((l) => l.done) as WriterDone | undefined;
    if (!status.success || !done) throw new Error(`a writer failed (exit ${status.code})`);
    const commits = this.lines.filter((l) => typeof l.commit === "number");
    return {
      latencies: commits.map((l) => l.latencyMs as number),
      retries: commits.map((l) => l.casRetries as number),
      done,
    };
  }

  /** Stops the writer now (after a failure elsewhere). */
  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already exited
    }
  }
}

/**
 * Runs the writers at each count, each count on a fresh bucket of one MinIO
 * server; a skip notice when MinIO is not installed.
 */
export async function benchWriters(
  options: WritersBenchOptions = {},
): Promise<Record<string, unknown>> {
  const counts = options.writers ?? [1, 4, 16, 32];
  const durationMs = options.durationMs ?? 10_000;
  const layout = options.layout ?? "v1";
  const fileBytes = options.fileBytes ?? 5 * 1024;
  const backend = await startBackend("minio");
  if (!backend) return skipNotice("minio");
  const out: Record<string, unknown> = { durationMs, layout, fileBytes, goals: GOALS };
  const byN: Record<string, Record<string, number | null>> = {};
  try {
    const clientOptions: S3StoreOptions = { ...backend.s3ClientOptions, bucket: "" };
    for (const n of counts) {
      const bucket = await backend.newBucket();
      if (layout === "v2") {
        const s = new S3Store({ ...clientOptions, bucket });
        const meta = { version: 2, partitions: [], commitSeq: 0 };
        await s.put(META_KEY, new TextEncoder().encode(JSON.stringify(meta)), PutModes.create);
        closeStore(s);
      }
      const writers = Array.from(
        { length: n },
        (_, index) => new Writer({ index, bucket, clientOptions, fileBytes }),
      );
      try {
        const timeout = options.readyTimeoutMs ?? 300_000;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.all(writers.map((w) => w.ready())),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("writers not ready in time")), timeout);
          }),
        ]).finally(() => clearTimeout(timer));
        const serverCpu0 = await processCpuMs(backend.pid);
        const machine0 = await machineTicks();
        const start = Date.now() + 100;
        const t0 = performance.now() + 100;
        await Promise.all(writers.map((w) => w.go(start + durationMs)));
        const results = await Promise.all(writers.map((w) => w.finish()));
        const wallMs = performance.now() - t0;
        const serverCpu1 = await processCpuMs(backend.pid);
        const machine1 = await machineTicks();
        const latencies = results.flatMap((r) => r.latencies);
        const commits = latencies.length;
        const retries = results.reduce((a, r) => a + r.retries.reduce((x, y) => x + y, 0), 0);
        const requests = results.reduce((a, r) => a + r.done.requests.total, 0);
        const minioCpuMs = serverCpu0 !== undefined && serverCpu1 !== undefined
          ? serverCpu1 - serverCpu0
          : null;
        byN[n] = {
          writers: n,
          commits,
          wallMs: round(wallMs),
          commitsPerSecond: round(commits / (wallMs / 1000), 2),
          meanLatencyMs: round(latencies.reduce((a, b) => a + b, 0) / commits, 1),
          // Each writer commits again as soon as its last commit ends (a closed
          // loop), so by Little's law the mean latency is N over the commit rate.
          littleMeanLatencyMs: round((n * wallMs) / commits, 1),
          p50LatencyMs: round(quantile(latencies, 0.5), 1),
          p99LatencyMs: round(quantile(latencies, 0.99), 1),
          maxLatencyMs: round(Math.max(...latencies), 1),
          casRetriesPerCommit: round(retries / commits, 3),
          maxCasRetriesInOneCommit: Math.max(...results.flatMap((r) => r.retries)),
          requestsPerCommit: round(requests / commits, 2),
          writersCpuMsPerCommit: round(
            results.reduce((a, r) => a + r.done.cpuMs, 0) / commits,
            1,
          ),
          minioCpuMs: minioCpuMs === null ? null : round(minioCpuMs),
          minioCpuCores: minioCpuMs === null ? null : round(minioCpuMs / wallMs, 2),
          minioCpuMsPerCommit: minioCpuMs === null ? null : round(minioCpuMs / commits, 1),
          medianCommitsPerWriter: median(results.map((r) => r.done.commits)),
          writersCpuCores: round(results.reduce((a, r) => a + r.done.cpuMs, 0) / wallMs, 2),
          // How busy the whole machine was (every process): near its core count, it, not
          // MinIO or the layout, bounds the commits per second.
          machineBusyCores: machine0 && machine1
            ? round(
              ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) *
                navigator.hardwareConcurrency,
              2,
            )
            : null,
          machineCores: navigator.hardwareConcurrency,
        };
        const refused: Record<string, number> = {};
        for (const r of results) {
          for (const [k, c] of Object.entries(r.done.refused)) refused[k] = (refused[k] ?? 0) + c;
        }
        (byN[n] as Record<string, unknown>).refusedByKey = refused;
        const failed: Record<string, number> = {};
        for (const r of results) {
          for (const [k, c] of Object.entries(r.done.failed)) failed[k] = (failed[k] ?? 0) + c;
        }
        (byN[n] as Record<string, unknown>).failedPushesByCode = failed;
      } catch (e) {
        for (const w of writers) w.kill();
        throw e;
      }
    }
  } finally {
    await backend.stop();
  }
  out.byWriters = byN;
  const one = byN[1];
  const top = byN[32] ?? byN[Math.max(...counts)];
  if (one && top && one.p99LatencyMs && top.p99LatencyMs) {
    out.verdicts = {
      p99RatioTopVsOne: round(top.p99LatencyMs / one.p99LatencyMs, 2),
      // The p99 goal needs at least this many commits/s at the top count: the
      // mean latency (N over the rate) can be no higher than the p99.
      commitsPerSecondTheP99GoalNeeds: round(
        ((top.writers ?? 0) * 1000) / (3 * one.p99LatencyMs),
        1,
      ),
      casRetriesPerCommitAtTop: top.casRetriesPerCommit,
      commitsPerSecond: counts.map((n) => byN[n].commitsPerSecond),
    };
  }
  out.minioPid = backend.pid ?? null;
  return out;
}

/**
 * `deno task bench --only writers` (`--writers 1,4,16,32`, `--writer-ms`,
 * `--layout v1|v2`; default both, v1 first): prints `writers` (v1) and
 * `writersV2`.
 */
export const section: BenchSection = {
  run: async (args: BenchArgs) => {
    const given = args.get("layout");
    const layouts: ("v1" | "v2")[] = given === "v1" || given === "v2" ? [given] : ["v1", "v2"];
    const out: Record<string, unknown> = {};
    for (const layout of layouts) {
      out[layout === "v1" ? "writers" : "writersV2"] = await benchWriters({
        writers: numberList(args.get("writers"), [1, 4, 16, 32]),
        durationMs: args.num("writer-ms", 10_000),
        layout,
      });
    }
    return out;
  },
};

if (import.meta.main) {
  const args = parseArgs(Deno.args);
  const child = args.get("child");
  if (child) {
    await writerChild(JSON.parse(child));
  } else {
    const duration = args.get("duration-ms");
    const out = await benchWriters({
      writers: numberList(args.get("writers"), [1, 4, 16, 32]),
      durationMs: duration ? Number(duration) : undefined,
      layout: args.get("layout") === "v2" ? "v2" : "v1",
    });
    console.log(JSON.stringify(out, null, 2));
  }
}
