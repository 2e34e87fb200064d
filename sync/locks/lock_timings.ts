/**
 * A lock's timings: their defaults, their checks (\`ConfigError\` on
 * nonsensical values, a heartbeat a third of the TTL unless set), and a
 * caller's options over a datastore config's; and the stale check, with the
 * slack it allows for the store's clock.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { LockOptions } from "../ports.ts";

/**
 * Slack added to the stale check: S3 reports last-modified times rounded down
 * to the second, so a lock renewed a moment ago can read as almost a second
 * old. A lock is stale only once its TTL plus this slack has passed.
 */
export const TIMESTAMP_SLACK_MS = 1_000;

/**
 * True when a lock object last modified at `lastModified` (milliseconds since
 * the epoch, by the store's clock) with time to live `ttlMs` is stale at
 * `now`: its TTL plus {@link TIMESTAMP_SLACK_MS} has passed.
 *
 * @example
 * ```ts
 * import { lockIsStale } from "./lock_timings.ts";
 * lockIsStale(0, 30_000, 31_000); // false: within the slack
 * lockIsStale(0, 30_000, 31_001); // true
 * ```
 */
export function lockIsStale(lastModified: number, ttlMs: number, now: number): boolean {
  return lastModified + ttlMs + TIMESTAMP_SLACK_MS < now;
}

/** Defaults of {@link LockOptions} (heartbeat: a third of the TTL). */
export const LOCK_DEFAULTS = { ttlMs: 30_000, maxWaitMs: 60_000, retryDelayMs: 500 } as const;

function positive(field: string, v: number | undefined, fallback: number, min = 1): number {
  const n = v ?? fallback;
  if (!Number.isFinite(n) || n < min) {
    throw new ConfigError(`lock.${field}`, `a number of milliseconds >= ${min}, got ${v}`);
  }
  return n;
}

/**
 * The timings of a lock with `options`, each checked, defaults filled in.
 *
 * @example
 * ```ts
 * import { lockTimings } from "./lock_timings.ts";
 * lockTimings({ ttlMs: 9_000 }).heartbeatMs; // 3000
 * ```
 */
export function lockTimings(options: LockOptions): {
  ttlMs: number;
  heartbeatMs: number;
  maxWaitMs: number;
  retryDelayMs: number;
} {
  const ttlMs = positive("ttlMs", options.ttlMs, LOCK_DEFAULTS.ttlMs);
  const heartbeatMs = positive(
    "heartbeatMs",
    options.heartbeatMs,
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  if (heartbeatMs >= ttlMs) {
    throw new ConfigError("lock.heartbeatMs", `less than ttlMs (${ttlMs}), got ${heartbeatMs}`);
  }
  return {
    ttlMs,
    heartbeatMs,
    maxWaitMs: positive("maxWaitMs", options.maxWaitMs, LOCK_DEFAULTS.maxWaitMs, 0),
    retryDelayMs: positive("retryDelayMs", options.retryDelayMs, LOCK_DEFAULTS.retryDelayMs),
  };
}

/**
 * A lock's options over defaults (a datastore config's timings): what the
 * caller gives (not `undefined`) wins; a default `heartbeatMs` is left out
 * when the caller sets a TTL it would not fit in (a heartbeat as slow as
 * the TTL lets a live lock go stale), so one is derived from that TTL.
 *
 * @example
 * ```ts
 * import { lockOptionsOver } from "./lock_timings.ts";
 * console.log(lockOptionsOver({ heartbeatMs: 10_000 }, { ttlMs: 5_000 })); // { ttlMs: 5000 }
 * ```
 */
export function lockOptionsOver(defaults: LockOptions, given: LockOptions): LockOptions {
  const out: Record<string, unknown> = { ...defaults };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) out[k] = v;
  if (
    given.ttlMs !== undefined && given.heartbeatMs === undefined &&
    defaults.heartbeatMs !== undefined && defaults.heartbeatMs >= given.ttlMs
  ) {
    delete out.heartbeatMs;
  }
  return out as LockOptions;
}
