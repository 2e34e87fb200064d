/**
 * What the benchmark sections share: the section contract, the command-line
 * arguments, a store proxy that counts requests and bytes, medians,
 * temporary directories, cache writers, and fresh child processes.
 *
 * @module
 */
import type { GetStreamResult, ObjectStore, PutBody } from "../../sync/ports.ts";

/** Every flag `deno task bench` takes (`main.ts`'s usage); `child` and `arg` start a section's child. */
export const BENCH_FLAGS: readonly string[] = [
  "only",
  "rounds",
  "files",
  "walk",
  "large-mb",
  "ext-files",
  "pipeline-files",
  "pipeline-small",
  "onefile-sizes",
  "onefile-per-model",
  "onefile-rounds",
  "cold-files",
  "cold-rounds",
  "cold-large-rounds",
  "cold-large-backends",
  "bare-concurrency",
  "backends",
  "writers",
  "writer-ms",
  "layout",
  "settings",
  "sweep-files",
  "sweep-rounds",
  "child",
  "arg",
];

/** The arguments of `deno task bench`, as `--name value` pairs. */
export class BenchArgs {
  readonly #values = new Map<string, string>();

  /**
   * Refuses a flag not in {@link BENCH_FLAGS} (a mistyped `--round 3` would
   * otherwise run every section at its defaults, a quarter of an hour) and a
   * flag without its value.
   */
  constructor(argv: readonly string[]) {
    for (let i = 0; i < argv.length; i += 2) {
      const name = argv[i].replace(/^--/, "");
      if (!argv[i].startsWith("--") || !BENCH_FLAGS.includes(name)) {
        throw new Error(
          `No bench flag ${JSON.stringify(argv[i])}; known: ${
            BENCH_FLAGS.map((f) => `--${f}`).join(", ")
          }.`,
        );
      }
      if (argv[i + 1] === undefined) throw new Error(`--${name} wants a value.`);
      this.#values.set(name, argv[i + 1]);
    }
  }

  /** The raw value of `--name`, if given. */
  get(name: string): string | undefined {
    return this.#values.get(name);
  }

  /** The number given as `--name`, else `fallback`. */
  num(name: string, fallback: number): number {
    const v = this.#values.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`--${name} wants a number, got ${JSON.stringify(v)}`);
    return n;
  }

  /** Timed rounds per side in the alternating comparisons (`--rounds`, default 5). */
  get rounds(): number {
    return this.num("rounds", 5);
  }
}

/**
 * One benchmark section, a module `<name>.ts` exporting `section`, listed in
 * `main.ts`'s `SECTIONS`.
 */
export interface BenchSection {
  /** Measures; the keys returned are merged into the printed JSON. */
  run(args: BenchArgs): Promise<Record<string, unknown>>;
  /**
   * The part measured in a fresh process ({@link runChild}): gets the JSON
   * argument it was started with and returns what the parent receives.
   */
  child?(arg: unknown): Promise<unknown>;
}

/** Goals printed with every run (each section may print its own beside its figures). */
export const GOALS: Readonly<Record<string, string>> = {
  pipelineVsBareLoop: "ratio <= 1.05",
  extension: "no added requests; push and pull ratios <= 1.05",
  zeroDiff: "<= 1 request each",
  walk: "<= 3000 ms and <= 300 MB, 0 uploads",
  largeFile: "RSS growth independent of the file's size (1 MiB chunks)",
  pipelineOwnCost: "<= 20 µs per file (Sluice push minus a bare loop of create puts)",
  oneFile: "one-file push and zero-diff pull from a fresh process: <= 4 requests, <= 64 KB down",
};

/** Parallel writes of the bare loops and of the pushes they are compared with. */
export const CONCURRENCY = 8;

/** The writer identity of every bench service. */
export const identity = { holder: "bench@host", hostname: "host", pid: 1 };

/** Request counts by kind (`get` includes `getStream`), plus bytes moved. */
export interface StoreTraffic {
  /** Calls by kind: get, head, put, delete, list. */
  readonly counts: Record<string, number>;
  /** Body bytes of gets (streams counted as they are read). */
  downloaded: number;
  /** Body bytes of puts. */
  uploaded: number;
}

const COUNTED = ["get", "head", "put", "delete", "list"] as const;

/**
 * `store` behind a proxy that counts its calls by kind (a `getStream` counts
 * as a `get`) and the body bytes it downloads and uploads.
 */
export function countingStore<T extends ObjectStore>(
  store: T,
): { store: T; counts: Record<string, number>; traffic: StoreTraffic } {
  const counts: Record<string, number> = Object.fromEntries(COUNTED.map((k) => [k, 0]));
  const traffic: StoreTraffic = { counts, downloaded: 0, uploaded: 0 };
  const countStream = (got: GetStreamResult): GetStreamResult => ({
    ...got,
    body: got.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          traffic.downloaded += chunk.length;
          out.enqueue(chunk);
        },
      }),
    ),
  });
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      switch (prop) {
        case "get":
          return async (...a: unknown[]) => {
            counts.get++;
            const got = await v.apply(target, a);
            traffic.downloaded += got.body.length;
            return got;
          };
        case "getStream":
          return async (...a: unknown[]) => {
            counts.get++;
            return countStream(await v.apply(target, a));
          };
        case "put":
          return (...a: unknown[]) => {
            counts.put++;
            const body = a[1] as PutBody;
            traffic.uploaded += body instanceof Uint8Array ? body.length : body.size;
            return v.apply(target, a);
          };
        case "head":
        case "delete":
        case "list":
          return (...a: unknown[]) => {
            counts[prop]++;
            return v.apply(target, a);
          };
        default:
          return v.bind(target);
      }
    },
  });
  return { store: wrapped, counts, traffic };
}

/** The sum of the counts. */
export function total(c: Record<string, number>): number {
  return Object.values(c).reduce((a, b) => a + b, 0);
}

/** Sets every count back to 0. */
export function reset(c: Record<string, number>): void {
  for (const k of Object.keys(c)) c[k] = 0;
}

/** Writes `n` files of `size` bytes as `<prefix>/<i / 1000>/f<i>.bin` under `dir`. */
export async function writeFiles(
  dir: string,
  n: number,
  size: number,
  prefix = "outputs",
): Promise<void> {
  const body = new Uint8Array(size).fill(97);
  for (let i = 0; i < n; i++) {
    const d = `${dir}/${prefix}/${Math.floor(i / 1000)}`;
    if (i % 1000 === 0) await Deno.mkdir(d, { recursive: true });
    body[0] = i % 256;
    await Deno.writeFile(`${d}/f${i}.bin`, body);
  }
}

/** Writes `body` at each of `paths` (relative to `dir`), creating directories. */
export async function writeAt(
  dir: string,
  paths: readonly string[],
  body: (i: number) => Uint8Array,
): Promise<void> {
  const made = new Set<string>();
  for (let i = 0; i < paths.length; i++) {
    const d = `${dir}/${paths[i].slice(0, paths[i].lastIndexOf("/"))}`;
    if (!made.has(d)) {
      await Deno.mkdir(d, { recursive: true });
      made.add(d);
    }
    await Deno.writeFile(`${dir}/${paths[i]}`, body(i));
  }
}

/** The median: for an even count, the mean of the two middle values (so two rounds give their mean, not the slower). */
export function medianOf(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median of `runs` results of `fn`. */
export async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await fn());
  return medianOf(xs);
}

/** Temporary directories made by the benchmark, removed before it exits. */
const temps: string[] = [];

/** A temporary directory, removed by {@link removeTemps}. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  temps.push(dir);
  return dir;
}

/** Removes every directory made by {@link tempDir}. */
export async function removeTemps(): Promise<void> {
  for (const dir of temps.splice(0)) await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** A copy of `src` in a new temporary directory, flushed to disk. */
export async function copyDir(src: string): Promise<string> {
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
 * Runs `section`'s `child` in a fresh process (`main.ts --child <section>
 * --arg <json>`) and returns what it returned.
 */
export async function runChild(section: string, arg: unknown): Promise<unknown> {
  const { text, code } = await runMain(["--child", section, "--arg", JSON.stringify(arg)]);
  if (code !== 0) throw new Error(`the ${section} child process failed`);
  const lines = text.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

/** Runs `main.ts` with `args` in a fresh process: its standard output and exit code (its errors pass through). */
export async function runMain(args: readonly string[]): Promise<{ text: string; code: number }> {
  const main = new URL("./main.ts", import.meta.url).pathname;
  const { stdout, code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return { text: new TextDecoder().decode(stdout), code };
}
