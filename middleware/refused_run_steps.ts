/**
 * The steps of the refused-run-eraser gate (`refused_run_eraser.ts`): at the
 * start of a push, completing an erasure a crash interrupted (`resume`) and
 * leaving held runs out (`hold`); on a refusal, journaling, attributing and
 * erasing the run's versions, or holding them (`refuse`); and the
 * best-effort refresh of the models' data (`refresh`).
 *
 * @module
 */
import type { ModelLockLostError } from "../sync/lock_errors.ts";
import {
  completeErasure,
  type ErasureJournal,
  ErasureRefusedError,
  findUnattributable,
  isUnder,
  latestResetWarning,
  markerNamesHeld,
  markerOf,
  modelPrefixes,
  refusedUploads,
  type UploadRef,
  writeErasureJournal,
} from "./erasure.ts";
import type { PlanEntry, PushContext } from "../sync/context.ts";

/** The refused-run-eraser gate's registered name. */
export const REFUSED_RUN_ERASER = "refused-run-eraser";

const ERASED = "written by a run refused for losing its model lock: erased, never pushed";
const HELD = "written by a run refused for losing its model lock: held out of pushes";

function skip(ctx: PushContext, entry: PlanEntry, reason: string, keepDirty: boolean): void {
  entry.action = "skip";
  entry.keepDirty = keepDirty;
  entry.reason = reason;
  ctx.note(REFUSED_RUN_ERASER, reason, entry);
}

/** Best-effort refresh: a failure is a warning and never replaces the refusal. */
export async function refresh(ctx: PushContext, prefixes: readonly string[]): Promise<void> {
  if (prefixes.length === 0) return;
  try {
    await ctx.refresh(prefixes);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "refresh_failed",
      message: `Could not refresh ${prefixes.join(", ")} from the datastore (${
        e instanceof Error ? e.message : String(e)
      }). The refused run's data was already discarded from this cache; the next pull brings the datastore's copy.`,
    });
  }
}

function warnRestored(ctx: PushContext, restored: readonly string[]): void {
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

function warnPending(ctx: PushContext, pending: readonly UploadRef[]): void {
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
  for (const entry of ctx.plan) {
    if (outcome.erased.some((d) => isUnder(entry.path, d))) skip(ctx, entry, ERASED, false);
    else if (markers.has(entry.path) && !stillDirty.has(entry.path)) {
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
  const message = `${
    held.join(", ")
  } were written by a run refused for losing its model lock and could not be erased safely; they stay in the cache and are held out of every push until resolved (resolveHeldVersions).`;
  ctx.events.emit("warning", { code: "erasure_held", message });
}

/**
 * {@link completeErasure}, or, when it fails, an `erasure_incomplete`
 * warning (`said` of the failure) and null: the journal keeps the rest for
 * the next push.
 */
async function completeOrJournaled(
  ctx: PushContext,
  journal: ErasureJournal,
  said: (why: string) => string,
): Promise<Awaited<ReturnType<typeof completeErasure>> | null> {
  try {
    return await completeErasure(ctx, journal);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "erasure_incomplete",
      message: said(e instanceof Error ? e.message : String(e)),
    });
    return null;
  }
}

/**
 * Deletes the journaled uploads (`created`, the markers a held run's push
 * created, among them) while each is still the push's own and named by no
 * index; what cannot be deleted now stays journaled, and the next push
 * deletes it before uploading anything. Never replaces the refusal.
 */
async function dropCreatedMarkers(
  ctx: PushContext,
  journal: ErasureJournal,
  created: readonly UploadRef[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not yet delete ${
        created.map((u) => u.path).join(", ")
      } from the datastore (${why}), created by a push refused for losing its model lock and named by no index. The deletion is journaled: the next push completes it before uploading anything.`,
  );
  if (!outcome) return;
  if (outcome.deleted.length > 0) {
    ctx.note(
      REFUSED_RUN_ERASER,
      `deleted ${
        outcome.deleted.join(", ")
      } from the datastore (created by this push, named by no index); the held versions' files were left in place`,
    );
  }
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
}

/** The refusal: journal, attribute, erase, recompute markers, refresh, rethrow. */
export async function refuse(
  ctx: PushContext,
  err: ModelLockLostError,
  journal: ErasureJournal,
  resumed: readonly string[],
): Promise<never> {
  const dirs = [...new Set(ctx.written.map((d) => d.replace(/\/+$/, "")))];
  const byPath = new Map(ctx.plan.map((e) => [e.path, e]));
  // Synced before this push: the plan recorded it, or it is not in the plan at all.
  const syncedBefore = (p: string) => {
    const entry = byPath.get(p);
    return entry ? entry.syncedVersion !== undefined : ctx.state.synced(p) !== undefined;
  };
  const problems = await findUnattributable(ctx.cache, dirs, ctx.preexisting, syncedBefore);
  // An object this push only found in place with equal bytes is someone else's: never delete it.
  const uploads = refusedUploads(ctx.uploaded, dirs, (u) => u.outcome === "identical");
  const prefixes = [...new Set([...modelPrefixes(err.lost, dirs), ...resumed])];
  if (problems.length > 0) {
    // The held versions' files stay where the push left them, but a `latest`
    // marker it created goes now (a first pass held it back with files it
    // found in place, and this, its second pass, was refused): no index names
    // it, and left in place it would hold off every peer's write of that
    // marker as an uncommitted one for as long as the run stays held. The
    // cache keeps its copy, held and dirty: "keep" publishes it with the
    // version, "discard" recomputes it.
    const markers = new Set(dirs.map(markerOf));
    const created = uploads.filter((u) => markers.has(u.path));
    const left = uploads.filter((u) => !markers.has(u.path));
    journal.held.push({ dirs, problems, uploads: left, at: ctx.clock.now() });
    journal.uploads = [...journal.uploads, ...created];
    await writeErasureJournal(ctx.cache, journal);
    if (created.length > 0) await dropCreatedMarkers(ctx, journal, created);
    await refresh(ctx, prefixes);
    throw new ErasureRefusedError(err.lost, dirs, problems, { cause: err });
  }
  journal.erase = [...new Set([...journal.erase, ...dirs])];
  journal.uploads = [...journal.uploads, ...uploads];
  journal.prefixes = [...new Set([...journal.prefixes, ...prefixes])];
  await writeErasureJournal(ctx.cache, journal);
  err.discarded = dirs;
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not finish discarding ${
        dirs.join(", ")
      } (${why}). The erasure is journaled: the next push completes it before uploading anything, so none of this run's data is pushed.`,
  );
  if (!outcome) throw err;
  ctx.note(
    REFUSED_RUN_ERASER,
    `discarded ${dirs.length ? dirs.join(", ") : "nothing (no data version written)"}${
      outcome.deleted.length ? `; deleted ${outcome.deleted.join(", ")} from the datastore` : ""
    }`,
  );
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
  await refresh(ctx, prefixes);
  throw err;
}
