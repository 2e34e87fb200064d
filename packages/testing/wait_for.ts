/**
 * Waiting for a condition without fixed sleeps.
 *
 * @module
 */
import { type FakeClock, flushMicrotasks } from "./fake_clock.ts";

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** With a FakeClock, time is advanced by `stepMs` between checks. */
  readonly clock?: FakeClock;
  /** Give up after this much (fake or real) time; default 5 000 ms. */
  readonly timeoutMs?: number;
  /**
   * With a FakeClock: once `timeoutMs` of fake time is spent, go on checking
   * (the clock no longer advanced) until this much real time has passed
   * since the start; default 10 000 ms. Work that is not the clock's (file
   * I/O, slow on a busy machine) is waited for, not taken for a hang.
   */
  readonly realTimeoutMs?: number;
  /** Step between checks; default 10 ms. */
  readonly stepMs?: number;
  /** Described in the timeout error. */
  readonly message?: string;
}

/**
 * Resolves once `predicate` returns true. With a FakeClock it advances the
 * clock between checks, so timers (heartbeats, retries) run, then, its fake
 * budget spent, checks on in real time up to `realTimeoutMs` without
 * advancing it; without one it polls in real time (integration tests only).
 *
 * @example
 * ```ts
 * import { FakeClock, waitFor } from "./mod.ts";
 * const clock = new FakeClock();
 * let ready = false;
 * clock.setTimeout(() => (ready = true), 50);
 * await waitFor(() => ready, { clock });
 * ```
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  options: WaitForOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const stepMs = options.stepMs ?? 10;
  const clock = options.clock;
  const start = clock ? clock.now() : Date.now();
  const realStart = Date.now();
  const realTimeoutMs = options.realTimeoutMs ?? 10_000;
  for (;;) {
    if (await predicate()) return;
    const elapsed = (clock ? clock.now() : Date.now()) - start;
    if (elapsed >= timeoutMs && clock && Date.now() - realStart < realTimeoutMs) {
      // The fake budget is spent: real work still under way gets its time.
      await new Promise((r) => setTimeout(r, stepMs));
      continue;
    }
    if (elapsed >= timeoutMs) {
      throw new Error(
        `waitFor timed out after ${timeoutMs} ms${options.message ? `: ${options.message}` : ""}`,
      );
    }
    if (clock) {
      await clock.advance(stepMs);
    } else {
      await new Promise((r) => setTimeout(r, stepMs));
      await flushMicrotasks();
    }
  }
}
