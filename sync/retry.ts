/**
 * Retries for transient store errors, on `p-retry`.
 *
 * @module
 */
import pRetry from "p-retry";
import { AbortedError, isRetryable, SluiceError, UnreachableError } from "./errors.ts";

/** Retry policy. */
export interface RetryPolicy {
  /** Extra attempts after the first; default 3. */
  readonly retries: number;
  /** First backoff in ms; default 200. Tests use 0. */
  readonly minTimeoutMs: number;
  /** Longest backoff in ms; default 5 000. */
  readonly maxTimeoutMs: number;
}

/** The default policy. */
export const DEFAULT_RETRY: RetryPolicy = { retries: 3, minTimeoutMs: 200, maxTimeoutMs: 5_000 };

/**
 * Runs `fn`, retrying only errors marked retryable (transport trouble), with
 * exponential backoff and jitter. Decisions (AlreadyExists, PreconditionFailed,
 * NotFound…) are never retried. Unknown errors are wrapped as UnreachableError
 * only when they look like transport failures; otherwise rethrown as is.
 *
 * @example
 * ```ts
 * import { withRetry, DEFAULT_RETRY } from "./retry.ts";
 * const v = await withRetry(() => Promise.resolve(1), DEFAULT_RETRY);
 * ```
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  onRetry?: (error: unknown, attempt: number) => void,
): Promise<T> {
  // Fast path: most calls succeed at once, and p-retry's set-up costs more
  // than an in-memory put. Only a failure worth retrying enters p-retry.
  if (!signal?.aborted) {
    try {
      return await fn(1);
    } catch (e) {
      if (!isRetryable(e) || e instanceof AbortedError || policy.retries <= 0) {
        throw normalise(e, signal);
      }
      onRetry?.(e, 1);
      if (policy.minTimeoutMs > 0) await backoff(policy.minTimeoutMs * (1 + Math.random()), signal);
    }
  }
  try {
    return await pRetry((attempt) => fn(attempt + 1), {
      retries: Math.max(0, policy.retries - 1),
      minTimeout: policy.minTimeoutMs,
      maxTimeout: policy.maxTimeoutMs,
      randomize: policy.minTimeoutMs > 0,
      signal,
      shouldRetry: ({ error }) => isRetryable(error) && !(error instanceof AbortedError),
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0 && isRetryable(error)) onRetry?.(error, attemptNumber + 1);
      },
    });
  } catch (e) {
    throw normalise(e, signal);
  }
}

/** Waits `ms`, or less when `signal` aborts (it never rejects: the next call sees the abort). */
export function backoff(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

function normalise(e: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted && !(e instanceof SluiceError)) {
    return new AbortedError("The operation", { cause: e });
  }
  if (e instanceof TypeError && !(e instanceof SluiceError)) {
    return new UnreachableError(e.message, { cause: e });
  }
  return e;
}
