/**
 * What the tool's sync calls tell its user beyond their answer, which the
 * tool reads as a count or cuts short:
 *
 * - a call that throws writes its error in full first (the tool shows only
 *   its first 200 characters: see `warnings.ts`);
 * - a push or a pull that leaves a conflict or a file unpublished, and a
 *   push that kept local deletions, warn through the datastore's events
 *   (`left_behind.ts`; written to standard error by the entry files).
 *
 * @module
 */
import { UNFINISHED_REASON } from "../../middleware/unfinished_version_holder.ts";
import { OTHER_RUN_REASON } from "../../middleware/refused_run_hold.ts";
import type { PullResult } from "../../sync/service/pull.ts";
import type { PushResult } from "../../sync/service/push.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { underMarkerNow } from "../../sync/version_marker.ts";
import { isManagedLockfilePath } from "../../sync/locks/lockfile_txn.ts";
import { pullOutcome, pushOutcome } from "./left_behind.ts";
import { SluiceError } from "../../sync/errors.ts";
import type { DatastoreRuntime } from "./runtime.ts";

/** Where a left-behind warning goes, and the command line target it names. */
export type ReportingRuntime = Pick<DatastoreRuntime, "events" | "cliTarget">;

/**
 * Runs a call of the tool, writing its error in full through `rt` before
 * it reaches the tool; the error is thrown on as it was.
 *
 * @example
 * ```ts
 * import { telling } from "./sync_reporting.ts";
 * const rt = { tellError: (e: unknown) => console.error(e) };
 * await telling(rt, () => Promise.resolve(3)); // 3
 * ```
 */
export async function telling<T>(
  rt: Pick<DatastoreRuntime, "tellError">,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    rt.tellError(e);
    throw e;
  }
}

/**
 * Warns of a conflict or a file left unpublished by the push `r` of
 * namespace `ns` from the cache `cachePath`, and of local deletions kept
 * (never throws for them): for a data version deleted here whose marker
 * here names it, `svc` (the namespace's service) is asked, as the push
 * would hold its deletion back.
 */
export async function reportPush(
  rt: ReportingRuntime,
  cachePath: string,
  r: PushResult,
  ns: string,
  svc: Pick<SyncService, "cache" | "config" | "pushPipeline">,
): Promise<void> {
  // The managed lockfile a push leaves out is the lockfile bridge's: it
  // publishes the change through the transaction, or warns why not
  // (`lockfile_change_unpublished`).
  // A data version another step of the workflow is still writing, or what
  // is under another run's model lock held by this process (its model's
  // directory, left out of a push not fenced by that lock), is held for
  // that step's or run's own flush: no work left behind (that flush
  // publishes it), so nothing to warn of.
  const bridged = {
    ...r,
    skipped: r.skipped.filter((s) =>
      !(s.unpublished && isManagedLockfilePath(s.path)) && s.reason !== UNFINISHED_REASON &&
      !s.reason.startsWith(OTHER_RUN_REASON)
    ),
  };
  const underMarker = await underMarkerNow(svc, r.localDeletions);
  for (const w of pushOutcome(bridged, rt.cliTarget(cachePath, ns), underMarker)) {
    rt.events.emit("warning", w);
  }
}

/** Warns of a conflict or a file left for a later run by the pull `r` (see {@link reportPush}). */
export function reportPull(
  rt: ReportingRuntime,
  cachePath: string,
  r: PullResult,
  ns: string,
): void {
  const warning = pullOutcome(r, rt.cliTarget(cachePath, ns));
  if (warning) rt.events.emit("warning", warning);
}

/**
 * The error of the lockfile transaction that failed after the push `r`
 * committed its files: the same code and exit code, its message led by
 * what the push published (the tool shows only the start of a message, and
 * the transaction's "nothing was changed" is the lockfile's alone). Any
 * other error, or one after a push that published nothing, as it is.
 *
 * @example
 * ```ts
 * import { afterCommitted } from "./sync_reporting.ts";
 * import { SluiceError } from "../../sync/errors.ts";
 * const r = { uploaded: ["notes/a.txt"], deleted: [] };
 * afterCommitted(r, new SluiceError("lockfile_publish_failed", "Timed out."));
 * ```
 */
export function afterCommitted(
  r: Pick<PushResult, "uploaded" | "deleted">,
  e: unknown,
): unknown {
  const n = r.uploaded.length + r.deleted.length;
  if (!(e instanceof SluiceError) || n === 0) return e;
  const paths = [...r.uploaded, ...r.deleted];
  const named = paths.slice(0, 3).join(", ") +
    (paths.length > 3 ? `, and ${paths.length - 3} more` : "");
  const err = new SluiceError(
    e.code,
    `The push published and committed ${n} file(s) (${named}); only the managed lockfile's change was not published: ${e.message}`,
    { cause: e, retryable: e.retryable, exitCode: e.exitCode },
  );
  return err;
}
