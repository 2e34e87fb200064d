/**
 * Shared plumbing of the benchmarks against real servers (`cold.ts`,
 * `writers.ts`, `concurrency.ts`): starting MinIO or fake-gcs-server and
 * making stores on fresh buckets, a request-counting store proxy that also
 * counts refused conditional writes, the file tree the benchmarks move, CPU
 * time of this process and of a server process, and medians.
 *
 * @module
 */
import process from "node:process";
import { AlreadyExistsError, PreconditionFailedError } from "../../sync/errors.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { S3Store } from "../../packages/s3/store.ts";
import type { S3ClientOptions } from "../../packages/s3/client.ts";
import { minioBinary, startMinio } from "../servers/minio.ts";
import { fakeGcsBinary, startFakeGcs } from "../servers/fake_gcs.ts";
import { medianOf } from "./helpers.ts";

/** The servers a benchmark can run against. */
export type BackendName = "minio" | "gcs";

/** A running server and how to make stores on it. */
export interface Backend {
  readonly name: BackendName;
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A fresh bucket's name. */
  newBucket(): Promise<string>;
  /** A store on `bucket` (a fresh bucket when omitted). */
  newStore(bucket?: string): Promise<ObjectStore>;
  /** The server's process id, when it could be found. */
  readonly pid: number | undefined;
  /** MinIO's client options (endpoint, region, credentials), for processes of their own. */
  readonly s3ClientOptions?: S3ClientOptions;
  stop(): Promise<void>;
}

/** Starts a backend; `null` when its binary is not installed. */
export async function startBackend(name: BackendName): Promise<Backend | null> {
  if (name === "minio") {
    if (!minioBinary.path) return null;
    const server = await startMinio();
    return {
      name,
      endpoint: server.endpoint,
      newBucket: () => server.createBucket(),
      newStore: async (bucket) =>
        new S3Store({ ...server.clientOptions, bucket: bucket ?? await server.createBucket() }),
      pid: await childPidListeningOn(server.endpoint),
      s3ClientOptions: server.clientOptions,
      stop: () => server.stop(),
    };
  }
  if (!fakeGcsBinary.path) return null;
  const server = await startFakeGcs();
  return {
    name,
    endpoint: server.apiEndpoint,
    newBucket: () => server.createBucket(),
    newStore: (bucket) =>
      server.createStore({ requestTimeoutMs: 60_000, retries: 3, ...(bucket ? { bucket } : {}) }),
    pid: await childPidListeningOn(server.apiEndpoint),
    stop: () => server.stop(),
  };
}

/** How to skip a backend whose binary is missing. */
export function skipNotice(name: BackendName): { skipped: string } {
  return name === "minio"
    ? { skipped: "no MinIO binary: run .ci/install_minio.sh" }
    : { skipped: "no fake-gcs-server binary: run .ci/install_fake_gcs.sh" };
}

/** Releases a store's sockets (S3Store has a client to destroy). */
export function closeStore(store: ObjectStore): void {
  (store as { close?: () => void }).close?.();
}

/** Request counts by store method, and refused conditional writes by key. */
export interface Counts {
  readonly calls: Record<string, number>;
  /** Keys whose put or delete was refused (PreconditionFailed or AlreadyExists), with how often. */
  readonly refused: Map<string, number>;
}

const METHODS = ["get", "head", "put", "delete", "list", "getStream"];

/**
 * Wraps `store` so that each call is counted by method, and each put or
 * delete refused by a precondition (`PreconditionFailedError`,
 * `AlreadyExistsError`) by key.
 */
export function countingStore<T extends ObjectStore>(store: T): { store: T; counts: Counts } {
  const counts: Counts = { calls: {}, refused: new Map() };
  for (const m of METHODS) counts.calls[m] = 0;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      if (typeof prop !== "string" || !METHODS.includes(prop)) return v.bind(target);
      return (...a: unknown[]) => {
        counts.calls[prop]++;
        const out = v.apply(target, a);
        if (!(out instanceof Promise) || (prop !== "put" && prop !== "delete")) return out;
        return out.catch((e: unknown) => {
          if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) {
            const key = String(a[0]);
            counts.refused.set(key, (counts.refused.get(key) ?? 0) + 1);
          }
          throw e;
        });
      };
    },
  });
  return { store: wrapped, counts };
}

/** The counts as a plain object, zero methods left out, with a total. */
export function requestFigures(counts: Counts): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [k, n] of Object.entries(counts.calls)) {
    if (n > 0) out[k] = n;
    total += n;
  }
  out.total = total;
  let refused = 0;
  for (const n of counts.refused.values()) refused += n;
  if (refused > 0) out.refused = refused;
  return out;
}

/** This process's CPU time so far (user + system), in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The median (see `medianOf`). */
export const median: (xs: readonly number[]) => number = medianOf;

/** The `q` quantile (0..1) by nearest rank. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** Rounds to `digits` decimals. */
export function round(x: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** `files` paths `data/bench/m<k>/out<j>/1/raw` spread evenly over `models` models. */
export function benchPaths(files: number, models: number): string[] {
  const perModel = Math.ceil(files / models);
  return Array.from(
    { length: files },
    (_, i) => `data/bench/m${Math.floor(i / perModel)}/out${i % perModel}/1/raw`,
  );
}

/** Writes `bytes`-byte files at `paths` under `dir` (each with its own first bytes). */
export async function writeTree(dir: string, paths: readonly string[], bytes: number) {
  const body = new Uint8Array(bytes).fill(120);
  const made = new Set<string>();
  for (let i = 0; i < paths.length; i++) {
    const parent = `${dir}/${paths[i].slice(0, paths[i].lastIndexOf("/"))}`;
    if (!made.has(parent)) {
      await Deno.mkdir(parent, { recursive: true });
      made.add(parent);
    }
    new DataView(body.buffer).setUint32(0, i);
    await Deno.writeFile(`${dir}/${paths[i]}`, body);
  }
}

/** Temporary directories of one benchmark, removed together. */
export class Temps {
  readonly #dirs: string[] = [];

  /** A new temporary directory. */
  async make(prefix: string): Promise<string> {
    const d = await Deno.makeTempDir({ prefix: `sluice-bench-${prefix}-` });
    this.#dirs.push(d);
    return d;
  }

  /** A copy of `src` (`cp -a`), its dirty pages flushed so that no timed run pays for them. */
  async copy(src: string, prefix: string): Promise<string> {
    const dst = await this.make(prefix);
    const { success } = await new Deno.Command("cp", { args: ["-a", `${src}/.`, dst] }).output();
    if (!success) throw new Error(`cp -a ${src} failed`);
    await new Deno.Command("sync").output();
    return dst;
  }

  /**
   * Done with `dir` (one of these temporaries): it stays until
   * {@link removeAll}, at the section's end. Deleting thousands of files
   * between timed rounds made the next round's creations costlier on the
   * machine's ext4 disk (mounted with `discard`): the same 3,000 directories
   * and 5 KiB files cost 0.34 s of kernel CPU to make, then 1.3 s and 1.9 s
   * in the next rounds, each after the last one's tree was deleted, and
   * 0.41 to 0.56 s in every round when nothing was deleted in between; a
   * minute of rest brought it back. Timed rounds after such deletions pay
   * for them, whichever side deleted.
   */
  retire(dir: string): void {
    if (!this.#dirs.includes(dir)) this.#dirs.push(dir);
  }

  /** Removes every directory made (and retired). */
  async removeAll(): Promise<void> {
    for (const d of this.#dirs.splice(0)) {
      await Deno.remove(d, { recursive: true }).catch(() => {});
    }
  }
}

/** `--key value` pairs of a command line (a bare `--flag` is `"true"`). */
export function parseArgs(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, "");
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) out.set(k, "true");
    else out.set(k, argv[++i]);
  }
  return out;
}

/** A comma-separated list of numbers, or `fallback`. */
export function numberList(v: string | undefined, fallback: number[]): number[] {
  return v ? v.split(",").map(Number) : fallback;
}

/** `--backends minio,gcs` (default both); an unknown name is refused. */
export function backendList(v: string | undefined): BackendName[] {
  if (!v) return ["minio", "gcs"];
  return v.split(",").map((name) => {
    if (name === "minio" || name === "gcs") return name;
    throw new Error(`No bench backend "${name}"; known: minio, gcs.`);
  });
}

let clockTicks: number | undefined;

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, else 100). */
async function ticksPerSecond(): Promise<number> {
  if (clockTicks !== undefined) return clockTicks;
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"] }).output();
    clockTicks = Number(new TextDecoder().decode(out.stdout).trim()) || 100;
  } catch {
    clockTicks = 100;
  }
  return clockTicks;
}

/** A process's CPU time (user + system) in ms from `/proc/<pid>/stat`; `undefined` if unreadable. */
export async function processCpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces) start at state (field 3).
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / await ticksPerSecond();
  } catch {
    return undefined;
  }
}

/** The child of this process whose command line names `endpoint`'s port (a server it started). */
async function childPidListeningOn(endpoint: string): Promise<number | undefined> {
  const port = new URL(endpoint).port;
  try {
    for await (const e of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      try {
        const stat = await Deno.readTextFile(`/proc/${e.name}/stat`);
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid !== Deno.pid) continue;
        const cmd = (await Deno.readTextFile(`/proc/${e.name}/cmdline`)).split("\0");
        if (cmd.some((a) => a === port || a.endsWith(`:${port}`))) return Number(e.name);
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return undefined;
}

/**
 * Runs `fn` on each backend in turn (started, then stopped with its temporary
 * directories removed); a backend whose server is not installed is reported
 * as skipped. Returns the figures by backend name.
 */
export async function onEachBackend(
  names: readonly BackendName[],
  fn: (backend: Backend, temps: Temps) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const backend = await startBackend(name);
    if (!backend) {
      out[name] = skipNotice(name);
      continue;
    }
    const temps = new Temps();
    try {
      out[name] = await fn(backend, temps);
    } finally {
      await backend.stop();
      await temps.removeAll();
    }
  }
  return out;
}
