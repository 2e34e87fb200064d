/**
 * A third-party lock backend written from scratch against Sluice's
 * `LockBackend` interface, on a plain shared directory (an NFS mount, a
 * shared volume). It does not use Sluice's lock engine: it is what a lock
 * author writes, and `directory_lock_test.ts` proves it with the lock
 * conformance suite.
 *
 * How it works: a lock is a file `<dir>/<key>.json` created with O_EXCL
 * (`createNew`), whose body is the lock info plus `renewedAt`. Every change
 * after creation (heartbeat, release, steal of a stale lock, breakglass)
 * happens under a short guard: a `<file>.guard` directory made with `mkdir`,
 * which is atomic on POSIX filesystems.
 *
 * @module
 */
import {
  type CallOptions,
  type Clock,
  type DistributedLock,
  type Identity,
  type LockBackend,
  type LockInfo,
  type LockLoss,
  type LockOptions,
  LockReadError,
  LockTimeoutError,
  systemClock,
} from "../mod.ts";

/** The stored body: the lock info plus the time of the last renewal (clock ms). */
interface Body extends LockInfo {
  readonly renewedAt: number;
}

/** Options of {@link directoryLockBackend}. */
export interface DirectoryLockOptions {
  /** The shared directory. */
  readonly dir: string;
  /** Time; default the system clock. */
  readonly clock?: Clock;
  /** Reads a lock file (injectable so tests can make reads fail). */
  readonly readFile?: (path: string) => Promise<string>;
}

const isNotFound = (e: unknown) => e instanceof Deno.errors.NotFound;
const isExists = (e: unknown) => e instanceof Deno.errors.AlreadyExists;

/**
 * A lock backend on a plain directory.
 *
 * @example
 * ```ts
 * import { directoryLockBackend } from "./directory_lock.ts";
 * const backend = directoryLockBackend({ dir: await Deno.makeTempDir() });
 * const lock = backend.createLock("data/t/m/.lock", { holder: "me@h", hostname: "h", pid: 1 });
 * await lock.withLock(async () => {});
 * ```
 */
export function directoryLockBackend(options: DirectoryLockOptions): LockBackend {
  return {
    name: "directory",
    createLock: (key, identity, lockOptions = {}) =>
      new DirectoryLock(options, key, identity, lockOptions),
  };
}

class DirectoryLock implements DistributedLock {
  readonly key: string;
  readonly #file: string;
  readonly #guard: string;
  readonly #clock: Clock;
  readonly #read: (path: string) => Promise<string>;
  readonly #ttl: number;
  readonly #beat: number;
  readonly #maxWait: number;
  readonly #retry: number;
  #nonce?: string;
  #timer?: unknown;
  #loss?: LockLoss;

  constructor(o: DirectoryLockOptions, key: string, readonly identity: Identity, l: LockOptions) {
    this.key = key;
    this.#file = `${o.dir}/${encodeURIComponent(key)}.json`;
    this.#guard = `${this.#file}.guard`;
    this.#clock = o.clock ?? systemClock;
    this.#read = o.readFile ?? ((p) => Deno.readTextFile(p));
    this.#ttl = l.ttlMs ?? 30_000;
    this.#beat = l.heartbeatMs ?? Math.floor(this.#ttl / 3);
    this.#maxWait = l.maxWaitMs ?? 60_000;
    this.#retry = l.retryDelayMs ?? 500;
  }

  get nonce(): string | undefined {
    return this.#nonce;
  }
  get lost(): boolean {
    return this.#loss !== undefined;
  }
  get loss(): LockLoss | undefined {
    return this.#loss;
  }

  async acquire(options: CallOptions = {}): Promise<void> {
    const start = this.#clock.now();
    for (;;) {
      const nonce = crypto.randomUUID();
      const body: Body = {
        holder: this.identity.holder,
        hostname: this.identity.hostname,
        pid: this.identity.pid,
        acquiredAt: new Date(this.#clock.now()).toISOString(),
        ttlMs: this.#ttl,
        nonce,
        renewedAt: this.#clock.now(),
      };
      try {
        await Deno.writeTextFile(this.#file, JSON.stringify(body), { createNew: true });
        this.#nonce = nonce;
        this.#loss = undefined;
        this.#schedule();
        return;
      } catch (e) {
        if (!isExists(e)) throw e;
      }
      const current = await this.#readBody().catch(() => null);
      if (current && current.renewedAt + current.ttlMs < this.#clock.now()) {
        await this.#guarded(async () => {
          const again = await this.#readBody().catch(() => null);
          if (again?.nonce === current.nonce) await Deno.remove(this.#file).catch(() => {});
        });
        continue;
      }
      if (this.#clock.now() - start >= this.#maxWait) {
        throw new LockTimeoutError(this.key, this.#maxWait, current?.holder);
      }
      await this.#clock.sleep(this.#retry, options.signal);
    }
  }

  async release(): Promise<void> {
    this.#stop();
    const nonce = this.#nonce;
    this.#nonce = undefined;
    if (!nonce) return;
    await this.#guarded(async () => {
      const current = await this.#readBody().catch(() => null);
      if (current?.nonce === nonce) await Deno.remove(this.#file).catch(() => {});
    }).catch(() => {});
  }

  /** Simulates a crashed holder (for tests): stops renewing and forgets the lock without releasing it. */
  abandon(): void {
    this.#stop();
    this.#nonce = undefined;
  }

  async withLock<T>(fn: () => Promise<T>, options: CallOptions = {}): Promise<T> {
    await this.acquire(options);
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  async inspect(): Promise<LockInfo | null> {
    try {
      const { renewedAt: _r, ...info } = await this.#readBody();
      return info;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e instanceof LockReadError ? e : new LockReadError(this.key, String(e), { cause: e });
    }
  }

  async forceRelease(nonce: string): Promise<boolean> {
    return await this.#guarded(async () => {
      const current = await this.#readBody().catch(() => null);
      if (current?.nonce !== nonce) return false;
      await Deno.remove(this.#file);
      return true;
    });
  }

  async #readBody(): Promise<Body> {
    const text = await this.#read(this.#file);
    try {
      const b = JSON.parse(text) as Body;
      if (typeof b.nonce !== "string" || typeof b.renewedAt !== "number") {
        throw new Error("fields missing");
      }
      return b;
    } catch (e) {
      throw new LockReadError(this.key, `malformed lock file: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  /** Runs `fn` while holding the guard directory (a few retries, then it gives up). */
  async #guarded<T>(fn: () => Promise<T>): Promise<T> {
    for (let i = 0;; i++) {
      try {
        await Deno.mkdir(this.#guard);
        break;
      } catch (e) {
        if (!isExists(e) || i > 50) throw e;
        await new Promise((r) => setTimeout(r, 2)); // the guard is held for microseconds
      }
    }
    try {
      return await fn();
    } finally {
      await Deno.remove(this.#guard).catch(() => {});
    }
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => void this.#heartbeat(), this.#beat);
  }

  #stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #heartbeat(): Promise<void> {
    const nonce = this.#nonce;
    if (!nonce) return;
    try {
      await this.#guarded(async () => {
        const current = await this.#readBody().catch((
          e,
        ) => (isNotFound(e.cause ?? e) ? null : Promise.reject(e)));
        if (!current || current.nonce !== nonce) {
          this.#loss = {
            kind: current ? "taken" : "absent",
            newHolder: current ?? undefined,
            detectedAt: this.#clock.now(),
          };
          return;
        }
        // acquiredAt is the last renewal too: swamp core and the layout's
        // other clients take a lock whose acquiredAt is older than its TTL for stale.
        const now = this.#clock.now();
        const renewed: Body = {
          ...current,
          acquiredAt: new Date(now).toISOString(),
          renewedAt: now,
        };
        const tmp = `${this.#file}.${nonce}.tmp`;
        await Deno.writeTextFile(tmp, JSON.stringify(renewed));
        await Deno.rename(tmp, this.#file);
      });
    } catch { /* unreachable this time: try again on the next beat; not a loss by itself */ }
    if (!this.#loss && this.#nonce === nonce) this.#schedule();
  }
}
