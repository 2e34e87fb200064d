/**
 * Short-lived exclusive lock files (`O_CREAT|O_EXCL`) that serialise the
 * compare-and-swap of one key across processes sharing a directory.
 *
 * A lock file holds `{pid, hostname, nonce, createdAt}`. It is held only for
 * the few system calls of one compare-and-swap, so one older than `staleMs`
 * whose writer is gone is broken: the writer counts as gone when it is this
 * process and no longer holds that nonce, or another process on this host
 * whose pid no longer exists (`/proc`, which Deno lets only `--allow-all`
 * programs read), or it lives on another host or its liveness cannot be
 * checked. Breakers serialise on a guard file and re-check
 * under it; a holder re-reads its lock before it commits
 * ({@link HeldFileLock.stillHeld}).
 *
 * @module
 */
import { AbortedError, UnreachableError } from "../../sync/errors.ts";
import { systemClock } from "../../sync/clock.ts";
import { randomId } from "../../sync/hash.ts";

/** Options of {@link FileLocks}. */
export interface FileLocksOptions {
  /** Age after which a lock whose writer is gone may be broken; default 10 000 ms. */
  readonly staleMs?: number;
  /** How long {@link FileLocks.acquire} waits for a held lock; default 30 000 ms. */
  readonly waitMs?: number;
  /** Base delay between attempts (jittered up to twice); default 5 ms. */
  readonly retryDelayMs?: number;
  /**
   * Whether a process of this host with that pid is running; default
   * {@link procAlive} (asks `/proc`, and answers false where it cannot).
   * Tests inject their own.
   */
  readonly processAlive?: (pid: number) => Promise<boolean>;
}

/**
 * Whether a process with `pid` runs on this host, asked of `/proc` (which
 * Deno lets only `--allow-all` programs read); false when it cannot tell,
 * so the lock's age decides.
 *
 * @example
 * ```ts
 * import { procAlive } from "./file_lock.ts";
 * console.log(await procAlive(Deno.pid));
 * ```
 */
export async function procAlive(pid: number): Promise<boolean> {
  try {
    await Deno.stat(`/proc/${pid}`);
    return true;
  } catch {
    return false; // no such process, or no /proc to ask: rely on the age
  }
}

/** A lock file this process holds. */
export interface HeldFileLock {
  /** Path of the lock file. */
  readonly path: string;
  /** This acquisition's token, written into the file. */
  readonly nonce: string;
  /** True while the lock file still carries this acquisition's token. */
  stillHeld(): Promise<boolean>;
  /** Removes the lock file if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

/** Nonces of the lock files this process holds (liveness of same-pid holders). */
const heldHere = new Set<string>();

let hostnameCache: string | undefined;
function thisHost(): string {
  if (hostnameCache === undefined) {
    try {
      hostnameCache = Deno.hostname();
    } catch {
      hostnameCache = "";
    }
  }
  return hostnameCache;
}

/**
 * Lock files in one directory, one per name.
 *
 * @example
 * ```ts
 * import { FileLocks } from "./file_lock.ts";
 * const locks = new FileLocks(await Deno.makeTempDir());
 * const lock = await locks.acquire("k");
 * try {
 *   // read, compare, rename
 * } finally {
 *   await lock.release();
 * }
 * ```
 */
export class FileLocks {
  /** Directory holding the lock files. */
  readonly dir: string;
  readonly #staleMs: number;
  readonly #waitMs: number;
  readonly #retryDelayMs: number;
  readonly #processAlive: (pid: number) => Promise<boolean>;

  constructor(dir: string, options: FileLocksOptions = {}) {
    this.dir = dir;
    this.#staleMs = options.staleMs ?? 10_000;
    this.#waitMs = options.waitMs ?? 30_000;
    this.#retryDelayMs = options.retryDelayMs ?? 5;
    this.#processAlive = options.processAlive ?? procAlive;
  }

  /** Path of the lock file for `name` (a plain file name, no separators). */
  pathOf(name: string): string {
    return `${this.dir}/${name}.lock`;
  }

  /**
   * Creates the lock file for `name`, waiting while another holder has it.
   * Throws `AbortedError` when `signal` aborts and `UnreachableError` after
   * the wait limit or on filesystem errors.
   */
  async acquire(name: string, signal?: AbortSignal): Promise<HeldFileLock> {
    const path = this.pathOf(name);
    const nonce = randomId(12);
    const text = JSON.stringify({
      pid: Deno.pid,
      hostname: thisHost(),
      nonce,
      createdAt: Date.now(),
    });
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      if (signal?.aborted) throw new AbortedError(`Taking the write lock ${path}`);
      if (await this.#tryCreate(path, text)) {
        heldHere.add(nonce);
        return this.#handle(path, nonce, text);
      }
      if (await this.#breakIfStale(path)) continue;
      if (Date.now() >= deadline) {
        throw new UnreachableError(
          `the write lock ${path} stayed held for ${this.#waitMs} ms (by ${await readQuiet(
            path,
          )}); if no process is writing to this store, delete that file`,
        );
      }
      await systemClock.sleep(this.#retryDelayMs * (1 + Math.random()), signal);
    }
  }

  async #tryCreate(path: string, text: string): Promise<boolean> {
    for (let attempt = 0;; attempt++) {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(path, { write: true, createNew: true });
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists) return false;
        if (e instanceof Deno.errors.NotFound && attempt === 0) {
          await mkdirIo(this.dir);
          continue;
        }
        throw new UnreachableError(`creating the lock file ${path} failed (${message(e)})`, {
          cause: e,
        });
      }
      try {
        await file.write(new TextEncoder().encode(text));
      } catch (e) {
        file.close();
        await Deno.remove(path).catch(() => {});
        throw new UnreachableError(`writing the lock file ${path} failed (${message(e)})`, {
          cause: e,
        });
      }
      file.close();
      return true;
    }
  }

  /**
   * Breaks the lock at `path` if it is stale; true when the caller should
   * retry at once. Breakers take a guard file and re-check under it, so two
   * breakers never remove a lock that a third process just took.
   */
  async #breakIfStale(path: string): Promise<boolean> {
    const first = await this.#staleness(path);
    if (first !== "stale") return first === "gone";
    const guard = `${path}.break`;
    if (!(await this.#tryCreate(guard, JSON.stringify({ pid: Deno.pid, hostname: thisHost() })))) {
      // Another breaker is at work, or one died mid-break (its guard is then old).
      const info = await Deno.stat(guard).catch(() => null);
      if (info && Date.now() - (info.mtime?.getTime() ?? 0) >= this.#staleMs) {
        await Deno.remove(guard).catch(() => {});
      }
      return false;
    }
    try {
      const again = await this.#staleness(path);
      if (again !== "stale") return again === "gone";
      try {
        await Deno.remove(path);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) {
          throw new UnreachableError(`breaking the stale lock ${path} failed (${message(e)})`, {
            cause: e,
          });
        }
      }
      return true;
    } finally {
      await Deno.remove(guard).catch(() => {});
    }
  }

  async #staleness(path: string): Promise<"gone" | "stale" | "live"> {
    let info: Deno.FileInfo;
    let text: string;
    try {
      info = await Deno.stat(path);
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return "gone";
      throw new UnreachableError(`reading the lock file ${path} failed (${message(e)})`, {
        cause: e,
      });
    }
    const age = Date.now() - (info.mtime?.getTime() ?? 0);
    return age >= this.#staleMs && !(await writerAlive(text, this.#processAlive))
      ? "stale"
      : "live";
  }

  #handle(path: string, nonce: string, text: string): HeldFileLock {
    let released = false;
    const stillHeld = async () => (await readQuiet(path)) === text;
    return {
      path,
      nonce,
      stillHeld,
      release: async () => {
        if (released) return;
        released = true;
        heldHere.delete(nonce);
        if (await stillHeld()) await Deno.remove(path).catch(() => {});
      },
    };
  }
}

async function writerAlive(
  text: string,
  processAlive: (pid: number) => Promise<boolean>,
): Promise<boolean> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false; // empty or torn: the writer died between create and write
  }
  if (typeof parsed !== "object" || parsed === null) return false;
  const holder = parsed as { pid?: unknown; hostname?: unknown; nonce?: unknown };
  if (typeof holder.pid !== "number" || holder.hostname !== thisHost()) {
    return false; // another host: a lock this old is abandoned
  }
  if (holder.pid === Deno.pid) return heldHere.has(String(holder.nonce));
  if (thisHost() === "") return false; // cannot tell hosts apart: rely on the age
  return await processAlive(holder.pid);
}

async function readQuiet(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return "";
  }
}

async function mkdirIo(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new UnreachableError(`creating the directory ${dir} failed (${message(e)})`, {
      cause: e,
    });
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
