/**
 * The refused-run-eraser gate's refusal (`refuse`): journaling, attributing
 * and erasing the run's versions, or holding them; and the best-effort
 * refresh of the models' data (`refresh`). The steps at the start of a
 * push are in `refused_run_hold.ts`.
 *
 * @module
 */
import type { ModelLockLostError } from "../sync/lock_errors.ts";
import {
  completeErasure,
  type ErasureJournal,
  ErasureRefusedError,
  findUnattributable,
  markerOf,
  modelPrefixes,
  publishedFiles,
  refusedUploads,
  settleSetAsideMarkers,
  type Unattributable,
  updateErasureJournal,
  type UploadRef,
  versionDir,
} from "./erasure.ts";
import { parentOf } from "../sync/paths.ts";
import type { PushContext, UploadRecord } from "../sync/context.ts";
import { REFUSED_RUN_ERASER, warnPending, warnRestored } from "./refused_run_hold.ts";

export { hold, REFUSED_RUN_ERASER, resume } from "./refused_run_hold.ts";

/** Best-effort refresh: a failure is a warning and never replaces the refusal. */
export async function refresh(
  ctx: PushContext,
  prefixes: readonly string[],
  leave?: readonly string[],
): Promise<void> {
  if (prefixes.length === 0) return;
  try {
    await ctx.refresh(prefixes, leave);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "refresh_failed",
      message: `Could not refresh ${prefixes.join(", ")} from the datastore (${
        e instanceof Error ? e.message : String(e)
      }). The refused run's data was already discarded from this cache; the next pull brings the datastore's copy.`,
    });
  }
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

/**
 * The directories a refusal holds: every version of a model one of whose
 * versions cannot be attributed (the run's list of that model's versions
 * is then in doubt), or all of them when one is no version directory.
 */
function heldDirs(dirs: readonly string[], problems: readonly Unattributable[]): string[] {
  if (problems.length === 0) return [];
  if (problems.some((p) => versionDir(p.dir) === null)) return [...dirs];
  const modelOf = (d: string) => parentOf(parentOf(d));
  const models = new Set(problems.map((p) => modelOf(p.dir)));
  return dirs.filter((d) => models.has(modelOf(d)));
}

/**
 * Erases the versions a refusal does not hold (another model's, beside a
 * held one), with what the journal holds to delete; a failure is a warning
 * and the journal keeps the rest for the next push. Never replaces the refusal.
 */
async function eraseBeside(
  ctx: PushContext,
  journal: ErasureJournal,
  erase: readonly string[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not finish discarding ${
        erase.join(", ")
      } (${why}). The erasure is journaled: the next push completes it before uploading anything, so none of this run's data is pushed.`,
  );
  if (!outcome) return;
  ctx.note(
    REFUSED_RUN_ERASER,
    `discarded ${erase.join(", ")}${
      outcome.deleted.length ? `; deleted ${outcome.deleted.join(", ")} from the datastore` : ""
    }`,
  );
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
  const identical = (u: UploadRecord) => u.outcome === "identical";
  const prefixes = [...new Set([...modelPrefixes(err.lost, dirs), ...resumed])];
  const held = heldDirs(dirs, problems);
  // The versions of the other models (a workflow's steps flushed together)
  // are provably theirs: erased, as their own refusal would erase them.
  const erase = dirs.filter((d) => !held.includes(d));
  const uploads = refusedUploads(ctx.uploaded, erase, identical);
  // A version still being written (its `raw` there, its `metadata.yaml`
  // not yet): its writer may go on writing into the directory, so the
  // refresh leaves it empty rather than put the datastore's copy of that
  // version there for the writer to write into (a later pull fetches it).
  const unfinished: string[] = [];
  for (const d of erase) {
    const files: string[] = await ctx.cache.listFiles(d).catch(() => []);
    if (files.includes(`${d}/raw`) && !files.includes(`${d}/metadata.yaml`)) unfinished.push(d);
  }
  if (held.length > 0) {
    // The held versions' files stay where the push left them, but a `latest`
    // marker it created goes now (a first pass held it back with files it
    // found in place, and this, its second pass, was refused): no index names
    // it, and left in place it would hold off every peer's write of that
    // marker as an uncommitted one for as long as the run stays held. The
    // cache keeps its copy, held and dirty: "keep" publishes it with the
    // version, "discard" recomputes it.
    // Published already (synced before this push, unchanged since): the
    // refusal says so, and no way out takes them off the datastore.
    const published = await publishedFiles(ctx.cache, ctx.state, held);
    const markers = new Set(held.map(markerOf));
    const heldUploads = refusedUploads(ctx.uploaded, held, identical);
    const created = heldUploads.filter((u) => markers.has(u.path));
    const left = heldUploads.filter((u) => !markers.has(u.path));
    // Added to the journal as it is on disk now (another process may have
    // changed it since this push read it).
    Object.assign(
      journal,
      await updateErasureJournal(
        ctx,
        (j) => {
          j.held.push({ dirs: held, problems, uploads: left, at: ctx.clock.now() });
          j.uploads = [...j.uploads, ...created, ...uploads];
          if (erase.length > 0) {
            j.erase = [...new Set([...j.erase, ...erase])];
            j.prefixes = [...new Set([...j.prefixes, ...modelPrefixes(err.lost, erase)])];
          }
        },
      ),
    );
    if (erase.length > 0) await eraseBeside(ctx, journal, erase);
    else if (created.length > 0) await dropCreatedMarkers(ctx, journal, created);
    await settleMarkers(ctx, modelPrefixes(err.lost, []));
    await refresh(ctx, prefixes, unfinished);
    throw new ErasureRefusedError(err.lost, held, problems, {
      cause: err,
      discarded: erase,
      published,
    });
  }
  Object.assign(
    journal,
    await updateErasureJournal(
      ctx,
      (j) => {
        j.erase = [...new Set([...j.erase, ...dirs])];
        j.uploads = [...j.uploads, ...uploads];
        j.prefixes = [...new Set([...j.prefixes, ...prefixes])];
      },
    ),
  );
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
  await settleMarkers(ctx, modelPrefixes(err.lost, []));
  await refresh(ctx, prefixes, unfinished);
  throw err;
}

/**
 * Settles on the datastore's marker each `latest` marker of the lost locks'
 * models that a pull during the run left in conflict, naming a version whose
 * copy here it set aside (see `settleSetAsideMarkers`), and says so
 * (`latest_reset`): the refresh that follows brings the datastore's marker.
 */
async function settleMarkers(ctx: PushContext, prefixes: readonly string[]): Promise<void> {
  for (const m of await settleSetAsideMarkers(ctx.cache, ctx.state, prefixes)) {
    const dir = parentOf(m.path);
    ctx.note(REFUSED_RUN_ERASER, `settled ${m.path} on the datastore's marker`);
    ctx.events.emit("warning", {
      code: "latest_reset",
      message:
        `${m.path} was changed here and named version ${m.was}, in conflict with the datastore's marker: another writer published version ${m.was} of ${dir} while this run held the lock it lost, and this cache's copy of it was set aside and is not published. The conflict is settled: the marker is the datastore's again (this refusal's refresh, or the next pull, brings it), so that later runs publish theirs.`,
      path: m.path,
    });
  }
}
