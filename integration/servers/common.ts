/**
 * Shared plumbing for the test servers the integration tests start on
 * loopback: free ports, temporary directories, locating cached binaries,
 * spawning and stopping processes, waiting for readiness, starting a server
 * with retries, sharing one server between a file's tests, and the handle of
 * an S3-compatible server (MinIO, s3rver).
 *
 * Binaries are built or installed by `.ci/install_*.sh` into
 * `${SLUICE_SERVER_CACHE:-$HOME/.cache/sluice}/bin`. When one is missing, tests that
 * need it are ignored with a message, unless `SLUICE_REQUIRE_SERVERS=1`, in
 * which case they run and fail with instructions.
 *
 * @module
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createS3Client, type S3ClientOptions } from "../../packages/s3/client.ts";
import { missingBinaryError, type ServerBinary } from "./binaries.ts";

export {
  announceOnce,
  type AnnounceOptions,
  cacheDir,
  ignoreWithout,
  locateBinary,
  missingBinaryError,
  missingBinaryNotice,
  requireServers,
  type ServerBinary,
} from "./binaries.ts";

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

/** What one try of {@link startServer} runs: the arguments and environment of the binary. */
export interface ServerCommand {
  /** Command-line arguments. */
  readonly args: readonly string[];
  /** Environment variables. */
  readonly env?: Record<string, string>;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** The binary to run; a missing one throws {@link missingBinaryError}. */
  readonly binary: ServerBinary;
  /**
   * The command of one try: `port` is a free loopback port, `dir` a fresh
   * temporary directory (removed when the server stops or the try fails).
   */
  readonly command: (place: { readonly port: number; readonly dir: string }) => ServerCommand;
  /** Resolves once the server at `endpoint` is ready; throws when it is not. */
  readonly waitUntilReady: (endpoint: string, process: ServerProcess) => Promise<void>;
  /** How many tries, each on a new port and directory; default 3. */
  readonly tries?: number;
}

/** A server process started by {@link startServer}, ready for requests. */
export interface StartedServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The process. */
  readonly process: ServerProcess;
  /** Stops the process and removes its temporary directory. */
  stop(): Promise<void>;
}

/**
 * Starts a server binary on a free loopback port with a temporary directory
 * and waits until it is ready. A try that does not get ready (another
 * process took the port, say) is stopped and cleaned up, and the next one
 * runs on new ones.
 *
 * @example
 * ```ts
 * import { locateBinary, startServer, waitForHttp } from "./common.ts";
 * const binary = locateBinary("s3rver", "SLUICE_S3RVER_BIN", "s3rver", "bash .ci/install_s3rver.sh");
 * const server = await startServer({
 *   binary,
 *   command: ({ port, dir }) => ({ args: ["--directory", dir, "--port", String(port)] }),
 *   waitUntilReady: (endpoint, process) => waitForHttp(endpoint, { process, ready: (s) => s < 500 }),
 * });
 * await server.stop();
 * ```
 */
export async function startServer(options: StartServerOptions): Promise<StartedServer> {
  const bin = options.binary.path;
  if (!bin) throw missingBinaryError(options.binary);
  const tries = options.tries ?? 3;
  let lastError: unknown;
  for (let attempt = 0; attempt < tries; attempt++) {
    const dir = await makeTempDir(options.binary.name);
    const port = freePort();
    const { args, env } = options.command({ port, dir });
    const process = spawnServer(bin, args, env);
    const endpoint = `http://127.0.0.1:${port}`;
    const stop = async (graceMs?: number) => {
      await process.stop(graceMs);
      await removeTempDir(dir);
    };
    try {
      await options.waitUntilReady(endpoint, process);
    } catch (e) {
      lastError = e;
      await stop(1_000);
      continue;
    }
    return { endpoint, process, stop: () => stop() };
  }
  throw new Error(
    `${options.binary.name} did not start after ${tries} attempts: ${String(lastError)}`,
  );
}

/** A server a test file starts on first use and shares between its tests; see {@link sharedServer}. */
export interface SharedServer<T> {
  /** The server; the first call starts it. */
  get(): Promise<T>;
  /** Stops the server if it was started (and did start); the next {@link get} starts a new one. */
  stop(): Promise<void>;
}

/**
 * One server for a test file, started by the first test that needs it. Stop
 * it from the file's last test ({@link stopSharedServers}); a server left
 * running because a filter skipped that test is killed on unload.
 *
 * @example
 * ```ts
 * import { sharedServer, stopSharedServers } from "./common.ts";
 * import { startMinio } from "./minio.ts";
 * const minio = sharedServer(startMinio);
 * Deno.test("uses minio", async () => console.log((await minio.get()).endpoint));
 * stopSharedServers("stop the shared MinIO", minio);
 * ```
 */
export function sharedServer<T extends { stop(): Promise<void> }>(
  start: () => Promise<T>,
): SharedServer<T> {
  let started: Promise<T> | undefined;
  return {
    get: () => (started ??= start()),
    async stop() {
      const running = started;
      started = undefined;
      const result = await running?.then((server) => server, () => undefined);
      await result?.stop();
    },
  };
}

/**
 * Registers a test that stops `servers`: call it last in the file, so that
 * the test runs after every test that uses them.
 */
export function stopSharedServers(
  name: string,
  ...servers: readonly SharedServer<unknown>[]
): void {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      for (const server of servers) await server.stop();
    },
  });
}

/** A running S3-compatible server (MinIO, s3rver) and how to reach it. */
export interface S3TestServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Access key the server accepts. */
  readonly accessKey: string;
  /** Secret key the server accepts. */
  readonly secretKey: string;
  /** Region to sign for. */
  readonly region: string;
  /** Client options for {@link createS3Client} / `S3Store` (path style, static credentials). */
  readonly clientOptions: S3ClientOptions;
  /** Creates a fresh bucket (random name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/** The credentials and region an S3-compatible test server was started with. */
export interface S3TestCredentials {
  /** Access key. */
  readonly accessKey: string;
  /** Secret key. */
  readonly secretKey: string;
  /** Region to sign for. */
  readonly region: string;
}

/**
 * The handle of a started S3-compatible server: client options for its
 * endpoint with path-style addressing and static credentials, and bucket
 * creation through the SDK.
 *
 * @example
 * ```ts
 * import { s3TestServer, type StartedServer } from "./common.ts";
 * async function _example(started: StartedServer) {
 *   const s3 = s3TestServer(started, { accessKey: "S3RVER", secretKey: "S3RVER", region: "us-east-1" });
 *   console.log(await s3.createBucket());
 * }
 * ```
 */
export function s3TestServer(
  started: StartedServer,
  credentials: S3TestCredentials,
): S3TestServer {
  const clientOptions: S3ClientOptions = {
    endpoint: started.endpoint,
    region: credentials.region,
    forcePathStyle: true,
    credentials: {
      accessKeyId: credentials.accessKey,
      secretAccessKey: credentials.secretKey,
    },
  };
  return {
    ...credentials,
    endpoint: started.endpoint,
    clientOptions,
    async createBucket(name?: string): Promise<string> {
      const bucket = name ?? randomName("sluice");
      const client = createS3Client(clientOptions);
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
      return bucket;
    },
    stop: () => started.stop(),
  };
}
