/**
 * When a push may clean the mark of a marked directory (or of a name that
 * stands for a directory too: a file that replaced one, or a directory that
 * replaced a synced file): once nothing under it failed, stays dirty, or
 * waits for a write this run did not make.
 *
 * @module
 */
import type { PlanEntry } from "../context.ts";
import { STRANDED_REASON } from "./plan.ts";

/** What {@link settleMarkedDirs} looks at. */
export interface MarkedDirs {
  readonly plan: readonly PlanEntry[];
  /** The marked directories the plan expanded (and those a preparation deferred). */
  readonly dirs: readonly string[];
  /** The writes and deletions that failed. */
  readonly failures: readonly { readonly entry: PlanEntry }[];
  /** The paths whose check of an earlier push's write was made. */
  readonly settled: ReadonlySet<string>;
  /** The paths the push handled: the clean directories are added, and a kept name taken out. */
  readonly handled: string[];
  /** The commit of a prepared push. */
  readonly committing: boolean;
  /** The preparation of a two-phase push. */
  readonly preparing: boolean;
  /**
   * The directories held back from this push (`PushContext.holdBack`:
   * another run's model directory): a marked directory under one, or
   * holding one, stays marked, whatever the plan holds under it now.
   */
  readonly heldBack?: readonly string[];
}

/**
 * Adds each clean directory to `handled`; a directory waiting for a write
 * this run did not make stays marked: a commit-step write or a deletion held
 * back by a failure, or a commit-step write or a check of a stranded upload
 * (`atCommit`) deferred by a preparation, whose commit cleans it (returned,
 * when nothing failed). A name whose mark stays
 * is also taken out of `handled` where the file of that name, handled
 * itself, put it: that mark stands for what is under the name too.
 *
 * @example
 * ```ts
 * import { settleMarkedDirs } from "./push_marked_dirs.ts";
 * const handled: string[] = [];
 * settleMarkedDirs({
 *   plan: [{ path: "d/a", action: "put", source: "dirty", handledBy: [] }],
 *   dirs: ["d"], failures: [], settled: new Set(), handled,
 *   committing: false, preparing: false,
 * });
 * console.log(handled); // ["d"]
 * ```
 */
export function settleMarkedDirs(o: MarkedDirs): string[] {
  const failed = o.failures.length > 0;
  const notMade = (e: PlanEntry) =>
    (e.action === "put" && e.commit && (failed || o.preparing)) ||
    (e.action === "delete" && failed && !o.committing);
  const deferredDirs: string[] = [];
  const kept = new Set<string>();
  for (const dir of o.dirs) {
    // The directory's own name counts too (a file that replaced it, or a
    // synced file it replaced): its entry failing or kept dirty keeps the mark.
    const under = (p: string) => p === dir || p.startsWith(`${dir}/`);
    // Held back for another run's push: that run may have marked the
    // directory before writing under it (its save marks first), so an empty
    // one now is no sign that nothing is left to push there. Cleaned here,
    // the files it writes next would be marked by nothing, and that run's
    // push would find nothing of them.
    if (o.heldBack?.some((h) => under(h) || dir.startsWith(`${h}/`))) {
      kept.add(dir);
      continue;
    }
    if (o.failures.some((f) => under(f.entry.path))) {
      kept.add(dir);
      continue;
    }
    // One pass over the plan: an entry that stays dirty keeps it open; one not made waits.
    let open = false;
    let waiting = false;
    for (const e of o.plan) {
      if (!under(e.path)) continue;
      if (e.action === "skip" && e.keepDirty && !e.prepared) open = true;
      // Never tried (the store out of reach first): it stays to push.
      else if (e.notTried) open = true;
      // A check of an earlier push's write a preparation left to its commit.
      else if (o.preparing && e.atCommit) waiting = true;
      // A check of an earlier push's write that did not run (a failure came first).
      else if (e.strandedCheck && e.reason === STRANDED_REASON && !o.settled.has(e.path)) {
        open = true;
      } else if (notMade(e)) waiting = true;
    }
    if (open) kept.add(dir);
    else if (!waiting) o.handled.push(dir);
    else {
      kept.add(dir);
      if (o.preparing && !failed) deferredDirs.push(dir);
    }
  }
  if (kept.size > 0) {
    for (let i = o.handled.length - 1; i >= 0; i--) {
      if (kept.has(o.handled[i])) o.handled.splice(i, 1);
    }
  }
  return deferredDirs;
}
