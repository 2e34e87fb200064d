/**
 * The lock engine: a {@link DistributedLock} over any {@link ObjectStore}. The
 * S3, GCS, local-directory and in-memory locks are all this engine over their
 * store. Its timings (defaults, checks, options over a config's, the stale
 * check) are in `lock_timings.ts`, its heartbeat in `lock_heartbeat.ts`, the
 * reading and describing of the lock object in `lock_object.ts`, and the
 * engine as a lock backend in `store_lock_backend.ts` (all re-exported here
 * where public).
 *
 * Protocol. `acquire` writes the body `{holder, hostname, pid, acquiredAt,
 * ttlMs, nonce}` with a create-only put. When the key exists it reads the
 * current lock: a stale one (the store's last-modified time plus the holder's
 * `ttlMs` has passed, by the store's own clock: see "Clocks") is deleted on
 * its version and the acquire backs off with jitter; a live one is waited for
 * (`retryDelayMs`, jittered) until `maxWaitMs`.
 * A heartbeat every `heartbeatMs` rewrites the body, `acquiredAt` set to the
 * renewal time (same holder and nonce), with a compare-and-swap on the version
 * last written, so a lock taken over is never rewritten; a failed
 * swap re-reads the lock, and a lock gone or carrying another nonce is lost.
 * `release` deletes only while the version (and nonce) is still ours.
 *
 * Clocks. The stale check compares two stamps of the store's clock, never
 * this machine's time with the store's: the first time an acquire finds the
 * lock held it writes a tiny object at {@link CLOCK_PROBE_KEY} over (one
 * request) and takes the store's stamp on it for the store's time (a lower
 * bound: the stamp was made before the answer came). The
 * difference to this machine's clock is kept for {@link CLOCK_OFFSET_REUSE_MS}
 * (this lock's own acquire writes renew it), and the wait goes on by this
 * machine's clock plus that difference. So a clock ahead of the store's breaks
 * no live lock, and one behind still takes over an abandoned lock after its
 * TTL. A probe the store refuses leaves this machine's clock to judge, as
 * before; one that does not get through takes nothing over until one does.
 *
 * Events, emitted on the `events` emitter (see `events.ts`; share one emitter
 * to forward them):
 * - `lock-acquired` `{key, holder, info}`: this process now holds the lock.
 * - `lock-released` `{key, holder, info}`: `release` finished (deleted our lock,
 *   or found it gone or someone else's and left it).
 * - `lock-lost` `{key, holder, info, loss}`: a heartbeat found the lock gone or
 *   taken; emitted once per acquisition.
 * - `heartbeat-failed` `{key, holder, info, error}`: a renewal could not reach
 *   the store; the heartbeat keeps trying, this alone is not a loss.
 * - `warning` `{code, message, path: key}` with codes `lock_lost`,
 *   `lock_stale_stolen`, `lock_renewal_overdue`, `lock_release_failed` and
 *   `clock_skew` (once per lock, or once for all the locks sharing a
 *   `skewWarning`, as a backend's do: the store stamped a write of the
 *   lock's far from this machine's clock; see "Clocks").
 *
 * @module
 */
import { AbortedError, AlreadyExistsError, isRetryable } from "../errors.ts";
import { LockTimeoutError } from "../lock_errors.ts";
import { lockIsStale, lockTimings } from "./lock_timings.ts";
import { measureStoreClock, storeClockOffset } from "./store_clock.ts";

/**
 * How far the store's stamp on this lock's own write may be from this
 * machine's clock before `clock_skew` is warned: well above a request's time
 * and the second S3 rounds its dates to, well below the 20 s that break a
 * live lock at the default TTL.
 */
export const CLOCK_SKEW_WARN_MS = 5_000;

/** How long a measured difference between the store's clock and this machine's is used. */
export const CLOCK_OFFSET_REUSE_MS = 10 * 60_000;
import { decodeLockInfo, encodeLockInfo, parseLockBody } from "./lock_body.ts";
import { LockHeartbeat } from "./lock_heartbeat.ts";
import {
  carriesNonce,
  conditionFailed,
  describeFound,
  describeLockObject,
  errorDetail,
  lockReleaseCommand,
  readLockObject,
} from "./lock_object.ts";
import { createEmitter, type SluiceEmitter } from "../events.ts";
import { systemClock } from "../clock.ts";
import { randomId } from "../hash.ts";
import {
  type AcquireOptions,
  type CallOptions,
  type Clock,
  type DistributedLock,
  type GetResult,
  type Identity,
  type LockInfo,
  type LockLoss,
  type LockOptions,
  type ObjectStore,
  PutModes,
} from "../ports.ts";

export { LOCK_DEFAULTS, lockOptionsOver, lockTimings, TIMESTAMP_SLACK_MS } from "./lock_timings.ts";
export { UNREADABLE_NONCE } from "./lock_object.ts";
export { CLOCK_PROBE_KEY } from "./store_clock.ts";
export {
  type StoreLockBackend,
  storeLockBackend,
  type StoreLockBackendOptions,
} from "./store_lock_backend.ts";

/** Injected collaborators of a {@link StoreLock}. */
export interface StoreLockOptions extends LockOptions {
  /** Time source; default the system clock. */
  readonly clock?: Clock;
  /** Random numbers in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Where events go; default a private emitter (see {@link StoreLock.events}). */
  readonly events?: SluiceEmitter;
  /**
   * Whether `clock_skew` was warned, shared by the locks that should warn of
   * it once between them (a backend's: see `storeLockBackend`); default this
   * lock's own.
   */
  readonly skewWarning?: SkewWarning;
}

/** Whether `clock_skew` was warned (see {@link StoreLockOptions.skewWarning}). */
export interface SkewWarning {
  warned: boolean;
}

/**
 * A lock held by writing an object to a store, kept alive by a heartbeat.
 *
 * @example
 * ```ts
 * import { StoreLock } from "./lock_engine.ts";
 * import type { ObjectStore } from "../ports.ts";
 * async function run(store: ObjectStore) {
 *   const lock = new StoreLock(store, ".datastore.lock", { holder: "a@h", hostname: "h", pid: 1 });
 *   await lock.withLock(async () => {
 *     if (lock.lost) throw new Error("lost");
 *   });
 * }
 * ```
 */
export class StoreLock implements DistributedLock {
  /** Store key of the lock object. */
  readonly key: string;
  /** Who this lock acquires as. */
  readonly identity: Identity;
  /** Where this lock's events go. */
  readonly events: SluiceEmitter;
  /** Time to live written into the body. */
  readonly ttlMs: number;
  /** Renewal interval. */
  readonly heartbeatMs: number;
  /** How long `acquire` waits. */
  readonly maxWaitMs: number;
  /** Base delay between acquire attempts. */
  readonly retryDelayMs: number;
  readonly #store: ObjectStore;
  readonly #clock: Clock;
  /** The clock was found off the store's once already (see `#checkClock`). */
  readonly #skew: SkewWarning;
  /**
   * The store's clock minus this machine's (a lower bound), and when (by
   * this machine's clock) it was measured: see the module's "Clocks".
   */
  #offset?: { readonly ms: number; readonly at: number };
  readonly #random: () => number;
  readonly #heartbeat: LockHeartbeat;
  #releasing?: Promise<void>;

  /** Creates (does not acquire) the lock at `key`; throws `ConfigError` on nonsensical timings. */
  constructor(store: ObjectStore, key: string, identity: Identity, options: StoreLockOptions = {}) {
    this.#store = store;
    this.key = key;
    this.identity = { holder: identity.holder, hostname: identity.hostname, pid: identity.pid };
    this.#clock = options.clock ?? systemClock;
    this.#skew = options.skewWarning ?? { warned: false };
    this.#random = options.random ?? Math.random;
    this.events = options.events ?? createEmitter();
    ({
      ttlMs: this.ttlMs,
      heartbeatMs: this.heartbeatMs,
      maxWaitMs: this.maxWaitMs,
      retryDelayMs: this.retryDelayMs,
    } = lockTimings(options));
    this.#heartbeat = new LockHeartbeat({
      store,
      key,
      heartbeatMs: this.heartbeatMs,
      clock: this.#clock,
      events: this.events,
      warn: (code, message) => this.#warn(code, message),
    });
  }

  /** This acquisition's nonce, from `acquire` until `release` (also after a loss). */
  get nonce(): string | undefined {
    return this.#heartbeat.info?.nonce;
  }
  /** True once a heartbeat found the lock gone or taken; reset by the next `acquire`. */
  get lost(): boolean {
    return this.#heartbeat.lost;
  }
  /** Details of the loss, when {@link StoreLock.lost}. */
  get loss(): LockLoss | undefined {
    return this.#heartbeat.loss;
  }
  /** True while acquired, not released and not lost. */
  get held(): boolean {
    return this.#heartbeat.info !== undefined && !this.#heartbeat.lost;
  }

  /** Waits until the lock is ours; `LockTimeoutError` after `maxWaitMs`, `AbortedError` on abort. */
  async acquire(options: AcquireOptions = {}): Promise<void> {
    if (this.held) return;
    if (this.#releasing) await this.#releasing;
    const { signal } = options;
    const start = this.#clock.now();
    const deadline = start + this.maxWaitMs;
    const nonce = randomId();
    let holder: string | undefined;
    let told = false;
    for (;;) {
      if (signal?.aborted) throw new AbortedError(`Waiting for lock ${this.key}`);
      const info: LockInfo = {
        ...this.identity,
        acquiredAt: new Date(this.#clock.now()).toISOString(),
        ttlMs: this.ttlMs,
        nonce,
      };
      try {
        const written = await this.#store.put(this.key, encodeLockInfo(info), PutModes.create, {
          signal,
        });
        this.#checkClock(written.lastModified, this.#clock.now());
        return this.#take(info, written.version);
      } catch (e) {
        if (!(e instanceof AlreadyExistsError)) throw e;
      }
      const current = await this.#fetch(signal);
      if (current) {
        const found = parseLockBody(current.body);
        holder = describeFound(found);
        const ttl = typeof found === "string" ? this.ttlMs : found.ttlMs;
        const storeNow = await this.#storeNow(signal);
        if (storeNow !== undefined && lockIsStale(current.lastModified, ttl, storeNow)) {
          await this.#steal(current, holder, ttl, signal);
          await this.#wait(
            Math.min(this.retryDelayMs * this.#random(), deadline - this.#clock.now()),
            signal,
          );
          continue;
        }
        if (!told && options.onWait) {
          told = true;
          options.onWait(describeLockObject(current, this.ttlMs));
        }
      }
      const now = this.#clock.now();
      if (now >= deadline) throw new LockTimeoutError(this.key, now - start, holder);
      const jittered = this.retryDelayMs * (0.5 + this.#random());
      await this.#wait(Math.min(jittered, deadline - now), signal);
    }
  }

  /** Releases the lock if still ours; never deletes a successor's lock; never throws. */
  release(): Promise<void> {
    this.#releasing ??= this.#release().finally(() => (this.#releasing = undefined));
    return this.#releasing;
  }

  /** Runs `fn` under the lock and always releases, also on throw. */
  async withLock<T>(fn: () => Promise<T>, options?: AcquireOptions): Promise<T> {
    await this.acquire(options);
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  /** The lock object's body; `null` only when absent. Any failed or malformed read throws `LockReadError`. */
  async inspect(options: CallOptions = {}): Promise<LockInfo | null> {
    const current = await this.#fetch(options.signal);
    return current ? decodeLockInfo(this.key, current.body) : null;
  }

  /**
   * {@link StoreLock.inspect}, but a body that is no lock is described, not
   * thrown: an object is there, so the lock is held, by `an unreadable lock:
   * <what is wrong>`, with its last-modified time as `acquiredAt`, this
   * lock's TTL, and as nonce {@link UNREADABLE_NONCE} and the object's
   * version, which {@link StoreLock.forceRelease} takes to delete that very
   * object (a breakglass that has seen it). A failed read still throws.
   */
  async describe(options: CallOptions = {}): Promise<LockInfo | null> {
    const current = await this.#fetch(options.signal);
    return current ? describeLockObject(current, this.ttlMs) : null;
  }

  /**
   * Breakglass: deletes the lock (on its version) if it carries `nonce`, or
   * is the unreadable object {@link StoreLock.describe} gave that nonce for;
   * true only if it did.
   */
  async forceRelease(nonce: string): Promise<boolean> {
    return await this.#deleteIfNonce(nonce, undefined);
  }

  /**
   * Stops the heartbeat and forgets the lock without deleting it, as a crashed
   * holder would: the object stays until it goes stale after its TTL. For tests
   * (the conformance suite's crashed holder) and for shutdown paths that must
   * not touch the store.
   */
  abandon(): void {
    this.#heartbeat.abandon();
  }

  async #release(): Promise<void> {
    const ended = await this.#heartbeat.end();
    if (!ended) return;
    const { info, version } = ended;
    if (!this.#heartbeat.lost) {
      try {
        await this.#deleteIfNonce(info.nonce, version);
      } catch (e) {
        this.#warn(
          "lock_release_failed",
          `Could not delete lock ${this.key} on release: ${
            errorDetail(e)
          }. The lock was left in place and goes stale ${info.ttlMs} ms after its last renewal; to free it sooner, run \`${
            lockReleaseCommand(this.key)
          }\`.`,
        );
      }
    }
    this.events.emit("lock-released", { key: this.key, holder: info.holder, info });
  }

  /** Deletes the lock while it carries `nonce`, on `version` first if known; re-reads after a failed condition. */
  async #deleteIfNonce(nonce: string, version: string | undefined): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (version === undefined) {
        const current = await this.#fetch();
        if (!current || !carriesNonce(current, nonce)) return false;
        version = current.version;
      }
      try {
        await this.#store.delete(this.key, { ifVersion: version });
        return true;
      } catch (e) {
        if (!conditionFailed(e)) throw e;
        version = undefined;
      }
    }
    return false;
  }

  /**
   * The store's time now, as well as this lock knows it: this machine's clock
   * plus the difference measured from a stamp of the store's on a write (see
   * the module's "Clocks"), measured by a probe when none is recent. A probe
   * the store refused gives this machine's clock; one that did not get
   * through gives undefined (nothing is taken over until the store answers);
   * an abort aborts.
   */
  async #storeNow(signal?: AbortSignal): Promise<number | undefined> {
    const known = this.#offset;
    const now = this.#clock.now();
    if (known && now >= known.at && now - known.at <= CLOCK_OFFSET_REUSE_MS) return now + known.ms;
    let stamp;
    try {
      stamp = await measureStoreClock(this.#store, this.#clock, signal);
    } catch (e) {
      if (isRetryable(e)) return undefined;
      throw new AbortedError(`Waiting for lock ${this.key}`, { cause: e });
    }
    if (stamp) this.#checkClock(stamp.stamped, stamp.answered);
    return this.#clock.now() + (stamp ? storeClockOffset(stamp) : 0);
  }

  /**
   * Takes the store's stamp on a write of this lock's, answered at `answered`
   * by this machine's clock, for the difference between the two clocks (see
   * `#storeNow`), and warns once (`clock_skew`) when it is more than
   * {@link CLOCK_SKEW_WARN_MS}: tools that judge locks by this machine's
   * clock misjudge them.
   */
  #checkClock(stamped: number, answered: number): void {
    if (!(stamped > 0)) return;
    this.#offset = { ms: storeClockOffset({ stamped, answered }), at: answered };
    if (this.#skew.warned) return;
    const ahead = answered - stamped;
    if (Math.abs(ahead) <= CLOCK_SKEW_WARN_MS) return;
    this.#skew.warned = true;
    const s = Math.round(Math.abs(ahead) / 1000);
    this.#warn(
      "clock_skew",
      `This machine's clock is about ${s} s ${
        ahead > 0 ? "ahead of" : "behind"
      } the datastore's (the datastore stamped a write of lock ${this.key}'s at ${
        new Date(stamped).toISOString()
      }). Sluice judges locks by the datastore's clock, so its own lock checks hold; a tool sharing this datastore that judges locks by this machine's clock breaks live locks when the clock is ahead by more than two thirds of a TTL, and waits longer for abandoned ones when it is behind. Nothing was changed; synchronise this machine's clock (NTP).`,
    );
  }

  #take(info: LockInfo, version: string): void {
    this.#heartbeat.start(info, version);
    this.events.emit("lock-acquired", { key: this.key, holder: info.holder, info });
  }

  async #steal(
    current: GetResult,
    holder: string,
    ttl: number,
    signal?: AbortSignal,
  ): Promise<void> {
    try {
      await this.#store.delete(this.key, { ifVersion: current.version, signal });
    } catch (e) {
      if (conditionFailed(e)) return; // someone else stole or renewed it first
      throw e;
    }
    this.#warn(
      "lock_stale_stolen",
      `Lock ${this.key} held by ${holder} was stale (not renewed since ${
        new Date(current.lastModified).toISOString()
      }, TTL ${ttl} ms), so it was removed and ${this.identity.holder} is taking it over.`,
    );
  }

  async #wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    try {
      await this.#clock.sleep(ms, signal);
    } catch (e) {
      if (e instanceof AbortedError) {
        throw new AbortedError(`Waiting for lock ${this.key}`, { cause: e });
      }
      throw e;
    }
  }

  /** Reads the lock object: `null` only when absent; other failures throw `LockReadError`. */
  #fetch(signal?: AbortSignal): Promise<GetResult | null> {
    return readLockObject(this.#store, this.key, signal);
  }

  #warn(code: string, message: string): void {
    this.events.emit("warning", { code, message, path: this.key });
  }
}
