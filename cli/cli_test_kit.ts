/**
 * Helpers of the command line's tests: {@link sluice} runs the command line
 * in-process and captures its output; {@link world} makes a temporary store
 * directory and cache directories.
 *
 * @module
 */
import { STATE_DIR } from "../sync/transfer/cache.ts";
import { type CliIo, run } from "./commands.ts";

/** One in-process run of the command line. */
export interface Ran {
  /** The exit code. */
  code: number;
  /** Everything written to stdout. */
  out: string;
  /** Everything written to stderr. */
  err: string;
  /** Stdout parsed as JSON. */
  json(): Record<string, unknown>;
}

/**
 * Runs `sluice <args>` in-process.
 *
 * @example
 * ```ts
 * import { sluice } from "./cli_test_kit.ts";
 * const r = await sluice(["--help"]);
 * console.log(r.code); // 0
 * ```
 */
export async function sluice(
  args: string[],
  opts: Pick<CliIo, "isTTY" | "cwd" | "signal" | "openStore"> & { env?: Record<string, string> } =
    {},
): Promise<Ran> {
  let out = "";
  let err = "";
  const code = await run(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    env: opts.env ?? {},
    isTTY: opts.isTTY,
    cwd: opts.cwd,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.openStore ? { openStore: opts.openStore } : {}),
  });
  return { code, out, err, json: () => JSON.parse(out) };
}

/** A temporary folder with a store directory and room for caches. */
export interface World {
  /** The temporary folder. */
  base: string;
  /** The store's directory (created). */
  root: string;
  /** `file://<root>`. */
  url: string;
  /** The directory of the cache `name`, made a cache (its state directory created, as by `--init`). */
  cache(name: string): string;
  /** Writes a file into a cache, creating its directories. */
  write(cache: string, path: string, text: string): Promise<void>;
  /** Removes the folder. */
  cleanup(): Promise<void>;
}

/** Makes a {@link World}; its store and caches exist, as after `--init`. */
export async function world(): Promise<World> {
  const base = await Deno.makeTempDir({ prefix: "sluice-cli-" });
  const root = `${base}/store`;
  await Deno.mkdir(root);
  return {
    base,
    root,
    url: `file://${root}`,
    cache: (name) => {
      const dir = `${base}/${name}`;
      Deno.mkdirSync(`${dir}/${STATE_DIR}`, { recursive: true });
      return dir;
    },
    async write(cache, path, text) {
      const file = `${cache}/${path}`;
      await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(file, text);
    },
    cleanup: () => Deno.remove(base, { recursive: true }),
  };
}
