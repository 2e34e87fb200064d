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
  /** Step between checks; default 10 ms. */
  readonly stepMs?: number;
  /** Described in the timeout error. */
  readonly message?: string;
}

/**
 * Resolves once `predicate` returns true. With a FakeClock it advances the
 * clock between checks, so timers (heartbeats, retries) run; without one it
 * polls in real time (integration tests only).
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
  for (;;) {
    if (await predicate()) return;
    const elapsed = (clock ? clock.now() : Date.now()) - start;
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
