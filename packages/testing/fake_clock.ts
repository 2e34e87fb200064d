/**
 * A clock whose time moves only when a test advances it.
 *
 * @module
 */
import { AbortedError } from "../../sync/errors.ts";
import type { Clock, TimerHandle } from "../../sync/ports.ts";

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** Lets pending promise chains run: one real macrotask turn. */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Injected time for tests: timers fire only inside {@link FakeClock.advance}.
 *
 * @example
 * ```ts
 * import { FakeClock } from "./fake_clock.ts";
 * const clock = new FakeClock(0);
 * let fired = false;
 * clock.setTimeout(() => (fired = true), 100);
 * await clock.advance(100);
 * console.assert(fired);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers = new Map<number, Timer>();

  /** Starts at `start` ms since the epoch (default 2026-01-01T00:00:00Z). */
  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  /** Current fake time. */
  now(): number {
    return this.#now;
  }

  /** Number of timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Schedules `fn` at now + `ms`. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Resolves once the clock has been advanced by `ms`. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError("The wait"));
      const onAbort = () => {
        this.clearTimeout(h);
        reject(new AbortedError("The wait"));
      };
      const h = this.setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Moves time forward by `ms`, firing due timers in time order and letting
   * the promise chains they start run before the next one fires.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > end) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.#now = end;
    await flushMicrotasks();
  }

  /** Sets the time without firing timers (for jumps such as "the TTL has passed"). */
  set(now: number): void {
    this.#now = now;
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers.values()) {
      if (!best || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    }
    return best;
  }
}

/**
 * `base`, read `aheadMs` ahead (behind when negative), on `base`'s timers:
 * a machine whose clock is off another's (a store's, say) by a fixed amount.
 *
 * @example
 * ```ts
 * import { FakeClock, shiftedClock } from "./fake_clock.ts";
 * const store = new FakeClock(0);
 * console.log(shiftedClock(store, 60_000).now()); // 60000
 * ```
 */
export function shiftedClock(base: Clock, aheadMs: number): Clock {
  return {
    now: () => base.now() + aheadMs,
    sleep: (ms, signal) => base.sleep(ms, signal),
    setTimeout: (fn, ms) => base.setTimeout(fn, ms),
    clearTimeout: (h) => base.clearTimeout(h),
  };
}
