/**
 * The warning a provider's bucket store emits before it retries a request
 * (`store_retry`), so that a sync waiting on an endpoint that does not
 * answer is never silent: the swamp extension writes it on standard error,
 * as the command line writes its own.
 *
 * @module
 */
import type { SluiceEmitter } from "../../sync/events.ts";
import type { StoreRetryEvent } from "../store_kit/attempts.ts";

/**
 * The `onRetry` of a provider's store: a `store_retry` warning on `events`.
 * The line names no key (a push of many files retrying at once says one
 * line, which the extension writes once).
 *
 * @example
 * ```ts
 * import { createEmitter } from "../../sync/events.ts";
 * import { storeRetryWarner } from "./retry_notice.ts";
 * const events = createEmitter();
 * events.on("warning", (w) => console.log(w.code)); // store_retry
 * storeRetryWarner(events, () => "s3://b/p", { requestTimeoutMs: 30_000, retries: 3 })({
 *   op: "put", key: "k", attempt: 1, delayMs: 200, detail: "timed out",
 * });
 * ```
 */
export function storeRetryWarner(
  events: SluiceEmitter,
  where: () => string,
  o: { readonly requestTimeoutMs: number; readonly retries: number },
): (event: StoreRetryEvent) => void {
  const attempts = o.retries + 1;
  const timeoutS = o.requestTimeoutMs / 1000;
  return (e) => {
    events.emit("warning", {
      code: "store_retry",
      message:
        `A ${e.op} at ${where()} failed (attempt ${e.attempt} of ${attempts}: ${e.detail}); trying again. Each attempt waits at most ${timeoutS} s; what is not synced yet stays in the cache for the next sync. To fail sooner, lower requestTimeoutMs or retry.retries in the datastore configuration.`,
    });
  };
}
