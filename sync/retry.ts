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
  try {
    return await pRetry((attempt) => fn(attempt), {
      retries: policy.retries,
      minTimeout: policy.minTimeoutMs,
      maxTimeout: policy.maxTimeoutMs,
      randomize: policy.minTimeoutMs > 0,
      signal,
      shouldRetry: ({ error }) => isRetryable(error) && !(error instanceof AbortedError),
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0 && isRetryable(error)) onRetry?.(error, attemptNumber);
      },
    });
  } catch (e) {
    if (signal?.aborted && !(e instanceof SluiceError)) {
      throw new AbortedError("The operation", { cause: e });
    }
    if (e instanceof TypeError && !(e instanceof SluiceError)) {
      throw new UnreachableError(e.message, { cause: e });
    }
    throw e;
  }
}
