/**
 * The production {@link Clock} and {@link Identity} defaults. Tests inject a
 * `FakeClock` and explicit identities instead.
 *
 * @module
 */
import { AbortedError } from "./errors.ts";
import type { Clock, Identity, TimerHandle } from "./ports.ts";

/**
 * Real time.
 *
 * @example
 * ```ts
 * import { systemClock } from "./clock.ts";
 * await systemClock.sleep(1);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError("The wait"));
      const onAbort = () => {
        clearTimeout(t);
        reject(new AbortedError("The wait"));
      };
      const t = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
  setTimeout: (fn: () => void, ms: number): TimerHandle => setTimeout(fn, ms),
  clearTimeout: (h: TimerHandle) => clearTimeout(h as number),
};

/**
 * This process's identity, read once from the environment and `Deno`.
 * Library code never calls this implicitly in tests: pass an identity instead.
 *
 * @example
 * ```ts
 * import { processIdentity } from "./clock.ts";
 * const me = processIdentity();
 * console.log(me.holder);
 * ```
 */
export function processIdentity(): Identity {
  let hostname = "localhost";
  try {
    hostname = Deno.hostname();
  } catch { /* no --allow-sys: keep the default */ }
  let user = "user";
  try {
    user = Deno.env.get("USER") ?? Deno.env.get("USERNAME") ?? "user";
  } catch { /* no --allow-env */ }
  return { holder: `${user}@${hostname}`, hostname, pid: Deno.pid };
}
