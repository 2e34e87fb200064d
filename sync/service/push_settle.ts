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
import type { IndexEntry } from "../transfer/bucket_layout.ts";
import { mergedAfterDeletion, resolveHint } from "./conflicts.ts";

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
 * write) is published. Both may write the index (the deletion takes out
 * the entry naming an upload whose commit landed, its answer lost), so a
 * two-phase push makes them in its commit, never in its preparation: the
 * commit is what holds the global lock beside old clients, which rewrite
 * the index from a read made under it without a compare-and-swap, and would
 * put back an entry taken out in their window, naming the deleted upload. A
 * deletion of a never-synced path's upload is left so with `atCommit` (its
 * commit plans it as a plain push does); a publication is found again in
 * the commit's replayed plan. Each is checked once (`only`: these alone,
 * when they must go before the writes: on a store that refuses key clashes,
 * where no old client rewrites the index, even in a preparation).
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
    !tally.settled.has(e.path) && (!only || only.has(e))
  ).filter((e) => {
    if (phase.committing) return e.prepared ? publishes(e) : e.atCommit === true;
    if (!phase.preparing) return true;
    if (publishes(e)) return false;
    if (only) return true;
    e.atCommit = true;
    return false;
  });
  for (const entry of strays) {
    try {
      let outcome: "withdrawn" | "published" | "none" = "none";
      if (entry.syncedVersion === undefined) {
        // A file here still: no local deletion came after a committed write
        // of this cache's there, which stays (see `PlanEntry.heldHere`).
        const attempted = state.attempted(entry.path) && !entry.heldHere;
        let theirs: IndexEntry | undefined;
        const named = (e: IndexEntry) => void (theirs = e);
        if (await dropOwnStranded(ctx, entry.path, ownWriter, attempted, named)) {
          outcome = "withdrawn";
        }
        if (theirs) {
          tally.result.strandedChecks.push({ path: entry.path, outcome });
          namedAgain(ctx, tally, entry, theirs);
          continue;
        }
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

/** Why a path whose own committed upload this push took back is a conflict (see {@link namedAgain}). */
export const NAMED_AGAIN_REASON =
  "this cache took back its own write of it (its commit landed, its answer lost, and the file was deleted here since), and a peer named the path again meanwhile (its copy put back, or a write of its own): its object and index entry were kept, and the local deletion stands as a conflict";

/**
 * The entry naming this cache's own committed upload was taken out to
 * withdraw it (the file is gone here), but a peer committed the path again
 * before the withdrawal ended (`theirs`: its copy put back over the delete,
 * or its write there): the local deletion did not take effect, so
 * it is kept as a conflict with the peer's version, dirty, as a deletion
 * that meets a peer's change is (`delete_skipped`), never reported done.
 */
function namedAgain(
  ctx: PushContext,
  tally: PushTally,
  entry: PlanEntry,
  theirs: IndexEntry,
): void {
  entry.reason = NAMED_AGAIN_REASON;
  ctx.events.emit("warning", {
    code: "delete_skipped",
    message:
      `Did not delete ${entry.path} remotely: ${NAMED_AGAIN_REASON}. Run \`sluice status\` to see the peer's version, then \`${
        resolveHint(entry.path)
      }\` (--mine deletes it over that version, --theirs brings it back; ${
        mergedAfterDeletion(entry.path)
      }).`,
    path: entry.path,
  });
  tally.conflictOf(entry, null, { version: theirs.v, hash: theirs.h, size: theirs.s });
}

/**
 * After the writes: a check of an earlier push's write (a local deletion,
 * reported as one, or a path no longer here) leaves nothing out, and its
 * record goes only once the check was made (true: the entry is dealt with).
 * A path named dirty whose check did not run (a write of this push failed
 * first) stays dirty for the next push to check. One a preparation left
 * to its commit (`preparing`, `atCommit`) is dealt with there.
 */
export function settledAfter(
  e: PlanEntry,
  tally: PushTally,
  conflicts: Conflicts,
  preparing = false,
): boolean {
  // Left to the commit: reported, and its mark cleaned, there.
  if (preparing && e.atCommit) return true;
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
