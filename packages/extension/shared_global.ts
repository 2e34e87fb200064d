/**
 * The global lock a push of the tool commits under beside old clients
 * (`oldClients`), which rewrite the index from a read made before, relying
 * on that lock to keep other writers out in between; and the lock the
 * managed lockfile's transaction takes (`lockfile_bridge.ts`).
 *
 * Whether this process holds the lock is asked when the push's index work
 * takes it, never as the push starts: the tool runs a workflow's steps in
 * parallel over one process, and a hold seen as a push starts may be
 * another step's commit, released before this push's commit, which would
 * then run under no lock. Once it is taken:
 *
 * - held by this process then (the tool's hold around a structural
 *   command's push, or another step's around its commit), the hold is
 *   shared: its release, however soon asked, waits until the push's index
 *   work ends (see `HeldLocks.shareGlobal`). A structural command's push
 *   never waits for its own command's hold, which is released only after
 *   that push returns;
 * - otherwise the lock is acquired, waiting out any other holder.
 *
 * @module
 */
import { StoreLock } from "../../sync/locks/lock_engine.ts";
import type { AcquireOptions, CallOptions, DistributedLock, LockInfo } from "../../sync/ports.ts";
import type { HeldLocks } from "./held_locks.ts";

/**
 * The global lock `own.key` as a push of this process takes it: a share of
 * this process's live hold when there is one at that moment, else `own`
 * acquired.
 *
 * @example
 * ```ts
 * import { SharedGlobalLock } from "./shared_global.ts";
 * import { HeldLocks } from "./held_locks.ts";
 * import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const own = storeLockBackend(new InMemoryStore())
 *   .createLock(".datastore.lock", { holder: "a@h", hostname: "h", pid: 1 });
 * const lock = new SharedGlobalLock(new HeldLocks(), own);
 * await lock.withLock(() => Promise.resolve()); // no hold to share: `own` taken and released
 * ```
 */
export class SharedGlobalLock implements DistributedLock {
  readonly #held: HeldLocks;
  readonly #own: DistributedLock;
  #share?: { readonly lock: DistributedLock; readonly leave: () => void };

  /** `own`: the lock acquired when this process holds none to share (not held yet). */
  constructor(held: HeldLocks, own: DistributedLock) {
    this.#held = held;
    this.#own = own;
  }

  get key(): string {
    return this.#own.key;
  }

  /** The shared hold's nonce, or `own`'s. */
  get nonce(): string | undefined {
    return this.#share ? this.#share.lock.nonce : this.#own.nonce;
  }

  get lost(): boolean | undefined {
    return this.#share ? this.#share.lock.lost : this.#own.lost;
  }

  get loss() {
    return this.#share ? this.#share.lock.loss : this.#own.loss;
  }

  /** Shares this process's live hold, if any now; else acquires `own`. */
  async acquire(options?: AcquireOptions): Promise<void> {
    if (this.#share) return;
    if (this.#own.nonce === undefined) {
      options?.signal?.throwIfAborted();
      const share = this.#held.shareGlobal(this.key);
      if (share) {
        this.#share = share;
        return;
      }
    }
    await this.#own.acquire(options);
  }

  /** Ends the share (the hold's release may then go on), or releases `own`. */
  async release(): Promise<void> {
    const share = this.#share;
    if (!share) return await this.#own.release();
    this.#share = undefined;
    share.leave();
  }

  async withLock<T>(fn: () => Promise<T>, options?: AcquireOptions): Promise<T> {
    await this.acquire(options);
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  /**
   * The lock object. Before it is taken: null while this process holds the
   * lock (taking it shares that hold, no wait), else as a wait for it would
   * name the holder (an object there that is no lock described).
   */
  inspect(options?: CallOptions): Promise<LockInfo | null> {
    if (this.#share) return this.#share.lock.inspect(options);
    if (this.#own.nonce !== undefined) return this.#own.inspect(options);
    if (this.#held.global(this.key)) return Promise.resolve(null);
    return this.#own instanceof StoreLock
      ? this.#own.describe(options)
      : this.#own.inspect(options);
  }

  forceRelease(nonce: string): Promise<boolean> {
    return this.#own.forceRelease(nonce);
  }
}
