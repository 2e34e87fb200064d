/**
 * The refused-run-eraser gate's steps at the start of a push: completing an
 * erasure a crash interrupted (`resume`) and leaving held runs out (`hold`),
 * with the skip and the warnings they share with the refusal
 * (`refused_run_steps.ts`).
 *
 * @module
 */
import {
  completeErasure,
  type ErasureJournal,
  isUnder,
  latestResetWarning,
  markerNamesHeld,
  type UploadRef,
} from "./erasure.ts";
import type { PlanEntry, PushContext } from "../sync/context.ts";

/** The refused-run-eraser gate's registered name. */
export const REFUSED_RUN_ERASER = "refused-run-eraser";

const ERASED = "written by a run refused for losing its model lock: erased, never pushed";
/**
 * Why a path under another run's model lock (`PushContext.holdBack`: that
 * model's data directory, or a version directory the run wrote) was left
 * out of a push: that run's own push, fenced by that lock, publishes it
 * (or, the lock lost, is refused and erases what the run wrote). No work is
 * left behind by the push that left it out.
 */
export const OTHER_RUN_REASON =
  "under the model lock of another run of this process: left out of this push, for that run's own push (which publishes it, or, that lock lost, is refused and erases what that run wrote)";
const SETTLED =
  "uploaded by a run refused for losing its model lock, settled by its erasure (deleted, or another writer's commit of the same bytes names it): not this cache's to withdraw";
const HELD =
  "written by a run refused for losing its model lock: held out of pushes (`sluice held` lists them, with the way out)";

function skip(ctx: PushContext, entry: PlanEntry, reason: string, keepDirty: boolean): void {
  entry.action = "skip";
  entry.keepDirty = keepDirty;
  entry.reason = reason;
  ctx.note(REFUSED_RUN_ERASER, reason, entry);
}

/** `erasure_restored`: objects put back after a peer's commit named them. */
export function warnRestored(ctx: PushContext, restored: readonly string[]): void {
  if (restored.length === 0) return;
  ctx.events.emit("warning", {
    code: "erasure_restored",
    message: `${restored.join(", ")} (uploaded by a push refused for losing its model lock) ${
      restored.length === 1 ? "was" : "were"
    } deleted while a peer's push committed the same bytes as its own version; ${
      restored.length === 1 ? "it was" : "they were"
    } put back from this cache's copy and the index names ${
      restored.length === 1 ? "it" : "them"
    } again. Nothing of the peer's version was lost; nothing to do.`,
    path: restored[0],
  });
}

/** `erasure_pending`: remote objects the erasure could not finish with yet. */
export function warnPending(ctx: PushContext, pending: readonly UploadRef[]): void {
  if (pending.length === 0) return;
  const paths = pending.map((u) => u.path).join(", ");
  const message =
    `Could not yet finish with ${paths} on the datastore, uploaded by a push refused for losing its model lock: each is deleted while it is still that push's object and no index names it, or, where a peer's commit of the same bytes named it, put back from the bytes this cache keeps until then. The next push tries again; nothing of the refused run is published meanwhile.`;
  ctx.events.emit("warning", { code: "erasure_pending", message });
}

/**
 * Completes an erasure a crash (or a failed deletion) left, and leaves those
 * entries out of this push. Returns the prefixes to refresh once this push
 * is decided: refreshed now, a pull would meet this push's own new versions
 * in the cache (a refused run's among them) and set them aside as conflicts
 * with a peer's, where the refusal could no longer erase them.
 */
export async function resume(ctx: PushContext, journal: ErasureJournal): Promise<string[]> {
  const prefixes = [...journal.prefixes];
  const outcome = await completeErasure(ctx, journal);
  const stillDirty = new Set(outcome.markers.filter((m) => m.dirty).map((m) => m.path));
  const markers = new Set(outcome.markers.map((m) => m.path));
  // The refused run's uploads the erasure settled (deleted, or kept and put
  // back as a peer's commit names the same bytes), at paths this cache never
  // synced: never this cache's to withdraw or delete now, though its writer
  // id is on them. (One synced here since is a file like any other: its
  // deletion here is the user's, pushed as usual.)
  const settled = new Set([...outcome.deleted, ...outcome.kept, ...outcome.restored]);
  for (const entry of ctx.plan) {
    if (outcome.erased.some((d) => isUnder(entry.path, d))) skip(ctx, entry, ERASED, false);
    else if (
      settled.has(entry.path) && entry.action === "delete" && entry.syncedVersion === undefined
    ) {
      skip(ctx, entry, SETTLED, false);
    } else if (markers.has(entry.path) && !stillDirty.has(entry.path)) {
      skip(ctx, entry, "latest marker recomputed after erasing a refused run", false);
    }
  }
  const done = outcome.erased.join(", ");
  if (done) ctx.note(REFUSED_RUN_ERASER, `completed the interrupted erasure of ${done}`);
  for (const m of outcome.markers) {
    if (m.was === undefined) continue;
    // Changed here since the refused run (by hand, or that run's own write):
    // it named a version that run wrote, now erased.
    ctx.events.emit(
      "warning",
      latestResetWarning(
        m,
        `written by a run refused for losing its model lock and now erased (${
          done || "erased earlier"
        })`,
      ),
    );
  }
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
  return prefixes;
}

/** Leaves held runs' versions (and markers naming them) and pending erasures out of this push. */
export async function hold(ctx: PushContext, journal: ErasureJournal): Promise<void> {
  // Another run's, under its model lock (held by this process, or lost since): left for its own push.
  const others = ctx.holdBack;
  // A model directory of this push's own locks inside a held-back one is this push's.
  const own = ctx.locks.map((l) => l.key).filter((k) => k.endsWith("/.lock"))
    .map((k) => k.slice(0, -"/.lock".length));
  const heldBack = (path: string) =>
    others.some((d) =>
      isUnder(path, d) && !own.some((o) => o.length > d.length && isUnder(o, d) && isUnder(path, o))
    );
  for (const entry of others.length ? ctx.plan : []) {
    if (heldBack(entry.path)) skip(ctx, entry, OTHER_RUN_REASON, true);
    else if (entry.action === "put" && await markerNamesHeld(ctx.cache, entry.path, others)) {
      skip(ctx, entry, `${OTHER_RUN_REASON} (the marker names such a version)`, true);
    }
  }
  const held = journal.held.flatMap((r) => r.dirs);
  // Not a directory moved away before a crash: what is there now is a later run's.
  const pending = ctx.dryRun
    ? journal.erase.filter((d) => !(journal.moving[d] && ctx.cache.hasState(journal.moving[d])))
    : [];
  if (held.length + pending.length === 0) return;
  for (const entry of ctx.plan) {
    if (pending.some((d) => isUnder(entry.path, d))) skip(ctx, entry, ERASED, true);
    else if (held.some((d) => isUnder(entry.path, d))) skip(ctx, entry, HELD, true);
    else if (entry.action === "put" && await markerNamesHeld(ctx.cache, entry.path, held)) {
      skip(ctx, entry, `${HELD} (the marker names a held version)`, true);
    }
  }
  if (held.length === 0 || ctx.dryRun) return;
  const one = held.length === 1;
  const message = `${held.join(", ")} ${
    one ? "was" : "were"
  } written by a run refused for losing its model lock and could not be erased safely; ${
    one ? "it stays" : "they stay"
  } in the cache, held out of every push until resolved: \`sluice held ${
    held.join(" ")
  } --keep\` (publish ${one ? "it" : "them"} with the next push) or \`--discard\` (erase ${
    one ? "it" : "them"
  }); resolveHeldVersions through the API.`;
  ctx.events.emit("warning", { code: "erasure_held", message });
}
