/**
 * Settling writes an earlier push left behind (see `PlanEntry.strandedCheck`
 * and `SyncState.markAttempted`): the push checks each such path it planned
 * for that, and its record or dirty mark goes only once the check was made.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../context.ts";
import { STRANDED_REASON } from "./plan.ts";
import { dropOwnStranded, publishOwnStranded } from "./push_delete.ts";
import type { PushTally } from "./push_result.ts";

/** The paths with an open conflict (never checked here: their resolution settles them). */
type Conflicts = { has(path: string): boolean };

/** The cache's state as the check needs it: its conflicts, and the paths it recorded writes of. */
type StrayState = {
  readonly conflicts: Conflicts;
  attempted(path: string): boolean;
};

/**
 * Checks the stranded writes of paths absent here: a never-synced path's
 * upload of this cache's is deleted; a synced one's (an earlier push's
 * write) is published, an index write, so in the commit of a two-phase
 * push, never in its preparation. Each is checked once (`only`: these
 * alone, when they must go before the writes).
 */
export async function settleStrays(
  ctx: PushContext,
  state: StrayState,
  tally: PushTally,
  ownWriter: () => Promise<string | null>,
  phase: { readonly committing: boolean; readonly preparing: boolean },
  only?: ReadonlySet<PlanEntry>,
): Promise<void> {
  const publishes = (e: PlanEntry) => e.reason === STRANDED_REASON && e.syncedVersion !== undefined;
  const strays = ctx.plan.filter((e) =>
    e.strandedCheck && e.action === "skip" && !state.conflicts.has(e.path) &&
    !tally.settled.has(e.path) && (!only || only.has(e)) &&
    (phase.committing ? e.prepared && publishes(e) : !(phase.preparing && publishes(e)))
  );
  for (const entry of strays) {
    try {
      let outcome: "withdrawn" | "published" | "none" = "none";
      if (entry.syncedVersion === undefined) {
        // A file here still: no local deletion came after a committed write
        // of this cache's there, which stays (see `PlanEntry.heldHere`).
        const attempted = state.attempted(entry.path) && !entry.heldHere;
        if (await dropOwnStranded(ctx, entry.path, ownWriter, attempted)) outcome = "withdrawn";
      } else {
        const published = await publishOwnStranded(ctx, entry, ownWriter);
        if (published) {
          tally.indexSynced[entry.path] = published;
          outcome = "published";
        }
      }
      tally.settled.add(entry.path);
      tally.result.strandedChecks.push({ path: entry.path, outcome });
    } catch (e) {
      entry.keepDirty = true;
      entry.reason = "could not check the datastore for an upload of this cache's at it";
      tally.failures.push({ entry, error: e });
    }
  }
}

/**
 * After the writes: a check of an earlier push's write (a local deletion,
 * reported as one, or a path no longer here) leaves nothing out, and its
 * record goes only once the check was made (true: the entry is dealt with).
 * A path named dirty whose check did not run (a write of this push failed
 * first) stays dirty for the next push to check.
 */
export function settledAfter(e: PlanEntry, tally: PushTally, conflicts: Conflicts): boolean {
  if (e.strandedCheck && e.reason === STRANDED_REASON) {
    if (tally.settled.has(e.path)) tally.handled.push(e.path);
    return true;
  }
  if (
    e.strandedCheck && e.action === "skip" && !e.prepared && tally.failures.length > 0 &&
    !tally.settled.has(e.path) && !conflicts.has(e.path)
  ) {
    e.keepDirty = true;
    e.reason ??= "not checked for an upload of this cache's: a write of this push failed first";
  }
  return false;
}
