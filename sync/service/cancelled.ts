/**
 * What a push or pull that failed throws: `aborted` once its signal was
 * aborted (saying what was kept), the Sluice error it met otherwise, and for
 * a push, `push_failed` wrapping anything else.
 *
 * @module
 */
import { AbortedError, SluiceError } from "../errors.ts";

/**
 * The error a push or pull throws for `e`: once its signal was aborted,
 * whatever a request said on its way out (an abort error, or a summary of
 * them, `push_failed` / `pull_failed`) becomes `aborted`, saying what was
 * kept; any other Sluice error (a conflict, a refusal) stands, as does `e`
 * when nothing was cancelled.
 */
export function cancelled(
  e: unknown,
  signal: AbortSignal | undefined,
  what: string,
  kept: string,
): unknown {
  if (!signal?.aborted) return e;
  if (e instanceof SluiceError && !["aborted", "push_failed", "pull_failed"].includes(e.code)) {
    return e;
  }
  return new AbortedError(what, { cause: e, kept });
}

/** The error a failed push throws for `e` (see {@link cancelled}); anything not a Sluice error becomes `push_failed`. */
export function pushError(e: unknown, signal: AbortSignal | undefined): SluiceError {
  const c = cancelled(
    e,
    signal,
    "The push",
    "Files already uploaded are not in the index yet, so peers do not see them, and an upload that replaced a published file (an edit) leaves that file unreadable to their pulls, skipped as not committed, until this push runs again; every file not committed stays dirty. Run `sluice push` again to finish.",
  );
  if (c instanceof SluiceError) return c;
  return new SluiceError(
    "push_failed",
    `The push failed: ${
      (e as Error)?.message ?? String(e)
    }. Files not pushed stay dirty; run the push again.`,
    { cause: e },
  );
}
