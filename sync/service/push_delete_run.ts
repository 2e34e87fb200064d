/**
 * A push's deletions, one after another: each path's remote half
 * (`deleteRemote`, see `push_delete.ts`) and what came of it in the push's
 * tally. A deletion that could not reach the store stops the rest: they stay
 * dirty, and the push fails at once rather than spending every deletion's
 * attempts against a store that is gone.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { PlanEntry, PushContext } from "../context.ts";
import { UNCOMMITTED_HOLDS } from "./push_result.ts";
import type { PushTally } from "./push_result.ts";
import {
  ADOPT_HINT,
  ADOPTED_UNCOMMITTED,
  adoptedMessage,
  mergedAfterDeletion,
  resolveHint,
} from "./conflicts.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { type DeleteOutcome, deleteRemote } from "./push_delete.ts";

/**
 * Deletes each entry remotely ({@link deleteRemote}) and records what came
 * of it: deleted (the index entry goes; also where the index names nothing
 * and the store holds another writer's upload no index names), waiting on
 * another writer's uncommitted object over the synced version (the path
 * stays dirty, with a warning), or a conflict
 * with a peer's committed change. In a two-phase push's preparation
 * (`preparing`), a deletion whose adoption of another writer's object would
 * write the index is left to the commit (`atCommit`).
 */
export async function runDeletes(
  ctx: PushContext,
  deletes: readonly PlanEntry[],
  tally: PushTally,
  ownWriter: () => Promise<string | null>,
  preparing = false,
): Promise<void> {
  let stopped = false;
  for (const entry of deletes) {
    if (stopped) {
      entry.notTried = true;
      continue;
    }
    let outcome: DeleteOutcome;
    try {
      outcome = await deleteRemote(ctx, entry, ownWriter, preparing);
    } catch (e) {
      tally.failures.push({ entry, error: e });
      tally.done(true);
      // The store could not be reached (its attempts spent): it is gone for
      // now, so the deletions left are not tried (each would spend its own
      // attempts); they stay dirty, as this one does (see `PlanEntry.notTried`).
      if (e instanceof SluiceError && e.code === "unreachable") stopped = true;
      continue;
    }
    tally.done();
    if (outcome.kind === "deferred") {
      // Made by the commit, under the global lock (see `planPush`).
      entry.atCommit = true;
      continue;
    }
    if (outcome.kind === "waiting") {
      entry.action = "skip";
      entry.keepDirty = true;
      entry.reason = UNCOMMITTED_HOLDS;
      if (!ctx.dryRun) await ctx.state.markDirty(entry.path);
      ctx.events.emit("warning", {
        code: "push_waiting_uncommitted",
        message:
          `Did not delete ${entry.path} remotely: the datastore holds another writer's object for it (version ${outcome.now.version}) that its index does not list, so that writer's push is in flight or stopped before its index update. Nothing was deleted remotely; the local deletion stands and stays dirty. Run \`sluice push\` again once that push completes; ${
            ADOPT_HINT(entry.path, entry.class)
          }.`,
        path: entry.path,
      });
      continue;
    }
    if (outcome.kind === "conflict") {
      if (outcome.adopted) {
        ctx.events.emit("warning", {
          code: ADOPTED_UNCOMMITTED,
          message: adoptedMessage(
            entry.path,
            outcome.now.version,
            outcome.now.metadata?.[WRITER_METADATA],
          ),
          path: entry.path,
        });
      }
      // A delete is conditional on the version this cache last saw: the
      // peer's newer copy keeps both its object and its index entry.
      entry.reason =
        "a peer changed it since this cache last synced it; its object and index entry were kept, and the local deletion stands as a conflict";
      ctx.events.emit("warning", {
        code: "delete_skipped",
        message:
          `Did not delete ${entry.path} remotely: ${entry.reason}. Run \`sluice status\` to see the peer's version, then \`${
            resolveHint(entry.path)
          }\` (--mine deletes it over that version, --theirs brings it back; ${
            mergedAfterDeletion(entry.path)
          }).`,
        path: entry.path,
      });
      tally.conflictOf(entry, null, {
        version: outcome.now.version,
        hash: outcome.hash ?? "",
        size: outcome.now.size,
      });
      continue;
    }
    // Found gone (its deletion cut off before its commit), or a peer's
    // deletion committed and another writer's upload no index names there
    // (`unnamed`, left to its writer): deleted all the same by this commit.
    tally.result.deleted.push(entry.path);
    tally.indexRemove.push(entry.path);
    // A delete that checked the version, then deleted whatever was there,
    // cannot tell it removed no peer's write made in between: its removal
    // leaves an entry naming another version, as one found gone does.
    if (outcome.kind === "gone" || ctx.store.deletesChecked) {
      tally.indexFoundGone.push(entry.path);
    }
    // Conditional on the version this cache synced, whether it deleted the
    // object or found it gone: another writer may write the path again and
    // name it before this commit (an old client, which checks nothing), and
    // the commit must not remove that entry (see `apply` in index_apply.ts).
    if (outcome.base !== undefined) {
      tally.indexBase[entry.path] = outcome.base;
    } else if (entry.syncedVersion !== undefined) {
      tally.indexBase[entry.path] = entry.syncedVersion;
      if (entry.syncedHash) tally.indexBaseHash[entry.path] = entry.syncedHash;
      if (entry.syncedSize !== undefined) tally.indexBaseSize[entry.path] = entry.syncedSize;
    }
    tally.handled.push(entry.path);
  }
}
