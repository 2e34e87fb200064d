/**
 * The extension's lock: a Sluice engine lock (same key, same body, same
 * heartbeat) behind the lock shape the tool expects. Differences it
 * translates:
 *
 * - options `lockKey` / `retryIntervalMs` become Sluice's key / `retryDelayMs`;
 * - a timed-out `acquire` rejects with {@link SwampLockTimeoutError} (name
 *   `LockTimeoutError`, with `lockKey`, `holder`, `waitedMs`; still a Sluice
 *   `lock_timeout` error, exit 75);
 * - `withLock` accepts a synchronous function;
 * - `release` never rejects (a failure is a `lock_release_failed` warning).
 *
 * `inspect()` keeps Sluice's rule: `null` only when the lock object is
 * absent; a failed read rejects, so that "unreachable" is never taken for
 * "released". A lock object whose body is no lock is described as held
 * (`StoreLock.describe`), so the tool's stale-lock handling and
 * `lock release --force` can clear it.
 *
 * Every acquire and release is reported to a {@link LockObserver}, which is
 * how the sync service learns which model locks this process holds.
 *
 * @module
 */
import { isLockTimeout, LockTimeoutError } from "../../sync/lock_errors.ts";
import { StoreLock } from "../../sync/locks/lock_engine.ts";
import { describeHolder } from "../../sync/locks/lock_body.ts";
import type { SluiceEmitter } from "../../sync/events.ts";
import type { DistributedLock, LockInfo } from "../../sync/ports.ts";
import type { SwampDistributedLock, SwampLockTimeoutFields } from "./contract.ts";

/**
 * A lock wait that ended without the lock: Sluice's `lock_timeout` error
 * with the fields and the name the tool expects.
 *
 * @example
 * ```ts
 * import { SwampLockTimeoutError } from "./lock.ts";
 * const e = new SwampLockTimeoutError(".datastore.lock", 60_000, "bob@h (pid 7)");
 * console.log(e.name, e.lockKey, e.waitedMs, e.code); // LockTimeoutError .datastore.lock 60000 lock_timeout
 * ```
 */
export class SwampLockTimeoutError extends LockTimeoutError implements SwampLockTimeoutFields {
  /** The lock key waited for. */
  readonly lockKey: string;
  /** Who held the lock when the wait ended. */
  readonly holder: string;
  /** How long the wait lasted, in milliseconds. */
  readonly waitedMs: number;
  constructor(
    lockKey: string,
    waitedMs: number,
    holder: string,
    options: { cause?: unknown } = {},
  ) {
    super(lockKey, waitedMs, holder);
    this.name = "LockTimeoutError";
    this.lockKey = lockKey;
    this.holder = holder;
    this.waitedMs = waitedMs;
    this.message =
      `Timed out after ${waitedMs} ms waiting for lock ${lockKey}, held by ${holder}. Nothing was changed. Run the command again later; if the holder is gone for good, break the lock with \`swamp datastore lock release --force\`.`;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** Told when a lock of this process is acquired or let go. */
export interface LockObserver {
  /** The lock is now held by this process. */
  acquired(lock: DistributedLock): void | Promise<void>;
  /**
   * The lock is being released (or its acquisition failed); it is no longer
   * this process's to share. The release is made once this resolves.
   */
  released(lock: DistributedLock): void | Promise<void>;
}

/** Options of {@link ExtensionLock}. */
export interface ExtensionLockOptions {
  /** Receives acquire and release. */
  readonly observer?: LockObserver;
  /** Where a failed release is reported. */
  readonly events?: SluiceEmitter;
  /** Milliseconds now; default `Date.now`. */
  readonly now?: () => number;
}

function holderOf(info: LockInfo | null): string {
  return info ? describeHolder(info) : "unknown";
}

/**
 * A Sluice lock as the tool's lock.
 *
 * @example
 * ```ts
 * import { ExtensionLock } from "./lock.ts";
 * import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const backend = storeLockBackend(new InMemoryStore());
 * const lock = new ExtensionLock(backend.createLock(".datastore.lock", { holder: "a@h", hostname: "h", pid: 1 }));
 * console.log(await lock.withLock(() => 42)); // 42
 * ```
 */
export class ExtensionLock implements SwampDistributedLock {
  /** The Sluice lock underneath (what the push fence is given). */
  readonly inner: DistributedLock;
  readonly #observer?: LockObserver;
  readonly #events?: SluiceEmitter;
  readonly #now: () => number;

  constructor(inner: DistributedLock, options: ExtensionLockOptions = {}) {
    this.inner = inner;
    this.#observer = options.observer;
    this.#events = options.events;
    this.#now = options.now ?? Date.now;
  }

  /** The lock's key. */
  get key(): string {
    return this.inner.key;
  }

  async acquire(): Promise<void> {
    const start = this.#now();
    try {
      await this.inner.acquire();
    } catch (e) {
      if (!isLockTimeout(e)) throw e;
      // A lock object that is no lock is described by what is wrong with it.
      const holder = await this.inspect().then(holderOf, () => "unknown");
      throw new SwampLockTimeoutError(this.key, this.#now() - start, holder, { cause: e });
    }
    try {
      await this.#observer?.acquired(this.inner);
    } catch (e) {
      await this.release();
      throw e;
    }
  }

  async release(): Promise<void> {
    try {
      // A push of this process that shares the hold (its commit beside old
      // clients) ends first: the lock stays held across its index work.
      await this.#observer?.released(this.inner);
      await this.inner.release();
    } catch (e) {
      this.#events?.emit("warning", {
        code: "lock_release_failed",
        message: `Could not release lock ${this.key}: ${
          e instanceof Error ? e.message : String(e)
        }. It expires after its time to live.`,
        path: this.key,
      });
    }
  }

  async withLock<T>(fn: () => T | Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  /**
   * The holder, or null when the lock is free. A lock object whose body is
   * no lock is held by `an unreadable lock: …` (acquired at its last
   * modification, this lock's TTL): the tool waits for it, takes it for
   * stale after the TTL, and can force-release it, as it does a crashed
   * holder's, instead of failing every command on it.
   */
  inspect(): Promise<LockInfo | null> {
    return this.inner instanceof StoreLock ? this.inner.describe() : this.inner.inspect();
  }

  forceRelease(expectedNonce: string): Promise<boolean> {
    return this.inner.forceRelease(expectedNonce);
  }
}
