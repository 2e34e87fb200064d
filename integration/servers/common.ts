/**
 * Shared plumbing for the test servers the integration tests start on
 * loopback: free ports, temporary directories, locating cached binaries,
 * spawning and stopping processes, and waiting for readiness.
 *
 * Binaries are built or installed by `.ci/install_*.sh` into
 * `${SLUICE_CACHE:-$HOME/.cache/sluice}/bin`. When one is missing, tests that
 * need it are ignored with a message, unless `SLUICE_REQUIRE_SERVERS=1`, in
 * which case they run and fail with instructions.
 *
 * @module
 */

/** The cache folder outside the repository where test servers are installed. */
export function cacheDir(): string {
  const explicit = Deno.env.get("SLUICE_CACHE");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/tmp";
  return `${home}/.cache/sluice`;
}

/** True when `SLUICE_REQUIRE_SERVERS=1`: a missing server fails the tests instead of skipping them. */
export function requireServers(): boolean {
  return Deno.env.get("SLUICE_REQUIRE_SERVERS") === "1";
}

/** Where a server binary is, or why it is not there. */
export interface ServerBinary {
  /** Short name, e.g. `minio`. */
  readonly name: string;
  /** Absolute path of the executable, or `null` when not found. */
  readonly path: string | null;
  /** What to run to get it. */
  readonly installHint: string;
}

/**
 * Finds a server binary: the environment variable `envVar` when set, else
 * `<cache>/bin/<fileName>`. Synchronous, so that `Deno.test({ ignore })` can
 * use it at registration time.
 *
 * @example
 * ```ts
 * import { locateBinary } from "./common.ts";
 * const minio = locateBinary("minio", "SLUICE_MINIO_BIN", "minio", "bash .ci/install_minio.sh");
 * console.log(minio.path ?? "not installed");
 * ```
 */
export function locateBinary(
  name: string,
  envVar: string,
  fileName: string,
  installHint: string,
): ServerBinary {
  const candidate = Deno.env.get(envVar) || `${cacheDir()}/bin/${fileName}`;
  try {
    const st = Deno.statSync(candidate);
    if (st.isFile) return { name, path: candidate, installHint };
  } catch {
    // not there
  }
  return { name, path: null, installHint };
}

const announced = new Set<string>();

/**
 * Whether tests needing `binary` should be ignored. Prints one line the first
 * time a missing binary causes a skip. With `SLUICE_REQUIRE_SERVERS=1` it
 * never ignores: the tests then fail in their setup with the install hint.
 *
 * @example
 * ```ts
 * import { ignoreWithout, locateBinary } from "./common.ts";
 * const minio = locateBinary("minio", "SLUICE_MINIO_BIN", "minio", "bash .ci/install_minio.sh");
 * Deno.test({ name: "needs minio", ignore: ignoreWithout(minio), fn: () => {} });
 * ```
 */
export function ignoreWithout(binary: ServerBinary): boolean {
  if (binary.path) return false;
  if (requireServers()) return false;
  if (!announced.has(binary.name)) {
    announced.add(binary.name);
    console.warn(
      `[integration] ${binary.name} is not installed: its tests are ignored. Run \`${binary.installHint}\` (or set SLUICE_REQUIRE_SERVERS=1 to make this a failure).`,
    );
  }
  return true;
}

/** Throws the "missing server" error used when servers are required. */
export function missingBinaryError(binary: ServerBinary): Error {
  return new Error(
    `${binary.name} is required (SLUICE_REQUIRE_SERVERS=1) but was not found; run \`${binary.installHint}\` first.`,
  );
}

/**
 * A free TCP port on 127.0.0.1 (bound and released; a tiny race remains, so
 * servers are started with retries by their helpers).
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Temporary directories made by {@link makeTempDir}, removed on unload. */
const tempDirs = new Set<string>();

/** Makes a temporary directory that is removed when the process unloads (or by {@link removeTempDir}). */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: `sluice-${prefix}-` });
  tempDirs.add(dir);
  return dir;
}

/** Removes a directory made by {@link makeTempDir}. */
export async function removeTempDir(dir: string): Promise<void> {
  tempDirs.delete(dir);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** Processes started by {@link spawnServer} and not yet stopped. */
const live = new Set<ServerProcess>();

let unloadHooked = false;
function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const p of live) p.killNow();
    for (const d of tempDirs) {
      try {
        Deno.removeSync(d, { recursive: true });
      } catch {
        // already gone
      }
    }
  });
}

const OUTPUT_LIMIT = 16 * 1024;

/** A server child process with its recent output kept for error messages. */
export class ServerProcess {
  /** The command line, for messages. */
  readonly description: string;
  readonly #child: Deno.ChildProcess;
  readonly #pumps: Promise<void>[];
  #output = "";
  #exited: Deno.CommandStatus | null = null;
  readonly #status: Promise<Deno.CommandStatus>;

  constructor(command: string, args: readonly string[], env: Record<string, string> = {}) {
    this.description = [command, ...args].join(" ");
    this.#child = new Deno.Command(command, {
      args: [...args],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#pumps = [this.#pump(this.#child.stdout), this.#pump(this.#child.stderr)];
    this.#status = this.#child.status.then((s) => (this.#exited = s));
    live.add(this);
    hookUnload();
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** The exit status once the process has exited, else `null`. */
  get exited(): Deno.CommandStatus | null {
    return this.#exited;
  }

  /** The last ~16 KiB of stdout and stderr. */
  output(): string {
    return this.#output;
  }

  /** Stops the process: SIGTERM, then SIGKILL after `graceMs`; waits for it and its output pipes. */
  async stop(graceMs = 5_000): Promise<void> {
    live.delete(this);
    if (this.#exited === null) {
      try {
        this.#child.kill("SIGTERM");
      } catch {
        // already exited
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          try {
            this.#child.kill("SIGKILL");
          } catch {
            // already exited
          }
          resolve();
        }, graceMs);
      });
      await Promise.race([this.#status, killed]);
      clearTimeout(timer);
    }
    await this.#status;
    await Promise.all(this.#pumps);
  }

  /** Synchronous SIGKILL, for unload handlers. */
  killNow(): void {
    if (this.#exited !== null) return;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already exited
    }
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.#output += decoder.decode(chunk, { stream: true });
        if (this.#output.length > OUTPUT_LIMIT) this.#output = this.#output.slice(-OUTPUT_LIMIT);
      }
    } catch {
      // the pipe closed
    }
  }
}

/**
 * Starts a server process. Stop it with {@link ServerProcess.stop}; any left
 * running are killed when the test process unloads.
 */
export function spawnServer(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): ServerProcess {
  return new ServerProcess(command, args, env);
}

/** Options of {@link waitForHttp}. */
export interface WaitForHttpOptions {
  /** Give up after this long; default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Which statuses mean ready; default any 2xx. */
  readonly ready?: (status: number) => boolean;
  /** Fail early when this process exits. */
  readonly process?: ServerProcess;
}

/**
 * Polls `url` until it answers with a ready status. Fails with the server's
 * recent output when the process exits or the time runs out.
 */
export async function waitForHttp(url: string, options: WaitForHttpOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const ready = options.ready ?? ((s: number) => s >= 200 && s < 300);
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  for (let delay = 25;; delay = Math.min(delay * 2, 250)) {
    if (options.process?.exited) {
      throw new Error(
        `${options.process.description} exited (code ${options.process.exited.code}) before ${url} was ready:\n${options.process.output()}`,
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (ready(res.status)) return;
      last = `HTTP ${res.status}`;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${url} was not ready after ${timeoutMs} ms (last: ${last})${
          options.process ? `; server output:\n${options.process.output()}` : ""
        }`,
      );
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** A short random lower-case name, valid as an S3 bucket name part. */
export function randomName(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `${prefix}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
