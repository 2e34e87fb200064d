/**
 * The lock engine's heartbeat and what it tracks of one acquisition: the body
 * and version last written, and whether (and how) the lock was lost.
 *
 * Every `heartbeatMs` the body is rewritten with `acquiredAt` set to the
 * renewal time (same holder and nonce), by a compare-and-swap on the version
 * last written, so a lock taken over is never rewritten. A failed swap
 * re-reads the lock: our nonce means only the version moved; a lock gone or
 * carrying another nonce is lost (`lock-lost`, warning `lock_lost`). A
 * renewal that cannot reach the store emits `heartbeat-failed`, and once the
 * lock went unrenewed for longer than its TTL, warning `lock_renewal_overdue`.
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";
import {
  type Clock,
  type GetResult,
  type LockInfo,
  type LockLoss,
  type ObjectStore,
  PutModes,
  type TimerHandle,
} from "../ports.ts";
import { describeHolder, encodeLockInfo, parseLockBody } from "./lock_body.ts";
import { conditionFailed, errorDetail, readLockObject } from "./lock_object.ts";

/** What a {@link LockHeartbeat} renews and where it reports. */
export interface LockHeartbeatOptions {
  /** Store of the lock object. */
  readonly store: ObjectStore;
  /** Store key of the lock object. */
  readonly key: string;
  /** Renewal interval. */
  readonly heartbeatMs: number;
  /** Time source and timers. */
  readonly clock: Clock;
  /** Where `lock-lost` and `heartbeat-failed` go. */
  readonly events: SluiceEmitter;
  /** Emits a `warning` about the lock. */
  readonly warn: (code: string, message: string) => void;
}

/**
 * One lock's acquisition state, kept alive by a heartbeat from
 * {@link LockHeartbeat.start} until {@link LockHeartbeat.end} or
 * {@link LockHeartbeat.abandon}.
 *
 * @example
 * ```ts
 * import { LockHeartbeat } from "./lock_heartbeat.ts";
 * import { systemClock } from "../clock.ts";
 * import { createEmitter } from "../events.ts";
 * import type { LockInfo, ObjectStore } from "../ports.ts";
 * async function hold(store: ObjectStore, info: LockInfo, version: string) {
 *   const events = createEmitter();
 *   const warn = (code: string, message: string) => events.emit("warning", { code, message, path: "k" });
 *   const beat = new LockHeartbeat({ store, key: "k", heartbeatMs: 10_000, clock: systemClock, events, warn });
 *   beat.start(info, version);
 *   return await beat.end();
 * }
 * ```
 */
export class LockHeartbeat {
  readonly #options: LockHeartbeatOptions;
  #info?: LockInfo;
  #version?: string;
  #timer?: TimerHandle;
  #beat?: Promise<void>;
  #lost = false;
  #loss?: LockLoss;
  #renewedAt = 0;
  #overdueWarned = false;

  /** A heartbeat for the lock object at `options.key`; idle until `start`. */
  constructor(options: LockHeartbeatOptions) {
    this.#options = options;
  }

  /** The body last written, from `start` until `end` or `abandon`. */
  get info(): LockInfo | undefined {
    return this.#info;
  }
  /** True once a renewal found the lock gone or taken; reset by the next `start`. */
  get lost(): boolean {
    return this.#lost;
  }
  /** Details of the loss, when {@link LockHeartbeat.lost}. */
  get loss(): LockLoss | undefined {
    return this.#loss;
  }

  /** Records a new acquisition (`info` written as `version`) and schedules its renewal. */
  start(info: LockInfo, version: string): void {
    this.#info = info;
    this.#version = version;
    this.#lost = false;
    this.#loss = undefined;
    this.#renewedAt = this.#clock.now();
    this.#overdueWarned = false;
    this.#schedule();
  }

  /**
   * Stops renewing, waits for a renewal under way, and forgets the
   * acquisition; returns its body and the version last written, if any.
   */
  async end(): Promise<{ info: LockInfo; version: string | undefined } | undefined> {
    this.#stopTimer();
    if (this.#beat) await this.#beat;
    const info = this.#info;
    if (!info) return undefined;
    const version = this.#version;
    this.#info = undefined;
    this.#version = undefined;
    return { info, version };
  }

  /** Stops renewing and forgets the acquisition at once, without waiting. */
  abandon(): void {
    this.#stopTimer();
    this.#info = undefined;
    this.#version = undefined;
  }

  get #clock(): Clock {
    return this.#options.clock;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#beat = this.#heartbeat().finally(() => (this.#beat = undefined));
    }, this.#options.heartbeatMs);
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Rewrites the body with `acquiredAt` set to now (same holder, same nonce):
   * readers that judge staleness by `now - acquiredAt > ttlMs` (swamp core's
   * global-lock check) see a renewed lock, as store-time readers do. The body
   * written becomes the lock's current info.
   */
  async #heartbeat(): Promise<void> {
    const info = this.#info;
    const version = this.#version;
    if (!info || version === undefined || this.#lost) return;
    const refreshed: LockInfo = { ...info, acquiredAt: new Date(this.#clock.now()).toISOString() };
    try {
      const written = await this.#options.store.put(
        this.#options.key,
        encodeLockInfo(refreshed),
        PutModes.update(version),
      );
      if (this.#info !== info) return;
      this.#info = refreshed;
      this.#renewed(written.version);
    } catch (e) {
      if (this.#info !== info) return;
      if (conditionFailed(e)) await this.#recheck(info);
      else this.#failed(info, e);
    }
    const current = this.#info;
    if (current !== undefined && current.nonce === info.nonce && !this.#lost) this.#schedule();
  }

  /** After a failed swap: our nonce means only the version moved; anything else is a loss. */
  async #recheck(info: LockInfo): Promise<void> {
    const key = this.#options.key;
    let current: GetResult | null;
    try {
      current = await readLockObject(this.#options.store, key);
    } catch (e) {
      return this.#failed(info, e);
    }
    if (this.#info !== info) return;
    const found = current ? parseLockBody(current.body) : null;
    if (current && typeof found !== "string" && found?.nonce === info.nonce) {
      this.#info = { ...info, acquiredAt: found.acquiredAt };
      return this.#renewed(current.version);
    }
    const newHolder = found && typeof found !== "string" ? found : undefined;
    const loss: LockLoss = {
      kind: current ? "taken" : "absent",
      newHolder,
      detectedAt: this.#clock.now(),
    };
    this.#lost = true;
    this.#loss = loss;
    this.#stopTimer();
    this.#options.events.emit("lock-lost", { key, holder: info.holder, info, loss });
    const now = !current
      ? "it was released"
      : `now held by ${newHolder ? describeHolder(newHolder) : "an unreadable lock"}`;
    this.#options.warn(
      "lock_lost",
      `Lock ${key} was lost while the operation was still running; ${now}. This process stopped renewing it; work done under it must not be pushed.`,
    );
  }

  #renewed(version: string): void {
    this.#version = version;
    this.#renewedAt = this.#clock.now();
    this.#overdueWarned = false;
  }

  #failed(info: LockInfo, error: unknown): void {
    const key = this.#options.key;
    this.#options.events.emit("heartbeat-failed", { key, holder: info.holder, info, error });
    const since = this.#clock.now() - this.#renewedAt;
    if (since > info.ttlMs && !this.#overdueWarned) {
      this.#overdueWarned = true;
      this.#options.warn(
        "lock_renewal_overdue",
        `Lock ${key} could not be renewed for ${since} ms, longer than its TTL of ${info.ttlMs} ms (${
          errorDetail(error)
        }); another process may take it over. The heartbeat keeps trying and reports a loss if it finds one.`,
      );
    }
  }
}
