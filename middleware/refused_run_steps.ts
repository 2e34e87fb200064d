/**
 * The refused-run-eraser gate's refusal (`refuse`): journaling, attributing
 * and erasing the run's versions, or holding them. Its follow-up (erasing
 * beside held versions, settling markers, the best-effort refresh) is in
 * `refused_run_cleanup.ts`; the steps at the start of a push are in
 * `refused_run_hold.ts`.
 *
 * @module
 */
import type { ModelLockLostError } from "../sync/lock_errors.ts";
import {
  type ErasureJournal,
  ErasureRefusedError,
  findUnattributable,
  markerOf,
  modelPrefixes,
  publishedFiles,
  refusedUploads,
  type Unattributable,
  updateErasureJournal,
  versionDir,
} from "./erasure.ts";
import { parentOf } from "../sync/paths.ts";
import type { PushContext, UploadRecord } from "../sync/context.ts";
import { REFUSED_RUN_ERASER, warnPending, warnRestored } from "./refused_run_hold.ts";
import {
  completeOrJournaled,
  dropCreatedMarkers,
  eraseBeside,
  refresh,
  settleMarkers,
} from "./refused_run_cleanup.ts";
import { putBackOverwrittenMarkers } from "./held_marker_put_back.ts";
import { AbortedError } from "../sync/errors.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { UNLOOKED, type UploadRef } from "./erasure_journal.ts";

export { hold, REFUSED_RUN_ERASER, resume } from "./refused_run_hold.ts";

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
  const prefixes = [...new Set([...modelPrefixes(err.lost, dirs), ...resumed])];
  const held = heldDirs(dirs, problems);
  // The versions of the other models (a workflow's steps flushed together)
  // are provably theirs: erased, as their own refusal would erase them.
  const erase = dirs.filter((d) => !held.includes(d));
  // An object this push only found in place with equal bytes is someone
  // else's, never deleted, unless an earlier push of this cache's made it
  // (`earlierUploads`).
  const uploads = [
    ...refusedUploads(ctx.uploaded, erase, identical),
    ...await earlierUploads(ctx, erase, ctx.uploaded),
  ];
  // A version still being written (its `raw` there, its `metadata.yaml`
  // not yet), or whose directory is made and holds nothing yet (the tool's
  // save makes it before it writes there): its writer may go on writing
  // into the directory, so the refresh leaves it empty rather than put the
  // datastore's copy of that version there for the writer to write into
  // (a later pull fetches it).
  const unfinished: string[] = [];
  for (const d of erase) {
    const files: string[] = await ctx.cache.listFiles(d).catch(() => []);
    const partial = files.includes(`${d}/raw`) && !files.includes(`${d}/metadata.yaml`);
    if (files.length === 0 || partial) unfinished.push(d);
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
    await handOver(ctx, uploads);
    if (erase.length > 0) await eraseBeside(ctx, journal, erase);
    else if (created.length > 0) await dropCreatedMarkers(ctx, journal, created);
    await putBackOverwrittenMarkers(ctx, held);
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
  await handOver(ctx, uploads);
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
  leftOnStore(err, outcome.pending.filter((u) => uploads.some((v) => v.path === u.path)));
  await settleMarkers(ctx, modelPrefixes(err.lost, []));
  await refresh(ctx, prefixes, unfinished);
  throw err;
}

/**
 * The uploads an earlier push of this cache left under the directories to
 * erase (it stopped between its uploads and its commit: the paths are
 * recorded as attempted here), which this push did not write itself: the
 * objects there that carry this cache's writer id are the refused run's
 * too, and go with its erasure (which deletes each only at the version
 * found now, and only while no index names it). Left in place, the next run
 * of that version number would meet them as a version published from here
 * and lose its own to them (`version_exists`), while the erasure's refresh
 * left nothing to name them. A path whose look fails is journaled all the
 * same ({@link UNLOOKED}): the erasure looks again, now or at the next
 * push, before that push uploads anything, and the refusal says the upload
 * is left meanwhile (`erasure_pending`).
 */
async function earlierUploads(
  ctx: PushContext,
  dirs: readonly string[],
  uploaded: readonly UploadRecord[],
): Promise<UploadRef[]> {
  if (dirs.length === 0 || !ctx.state.attempted) return [];
  const out: UploadRef[] = [];
  let writer: string | null | undefined;
  for (const d of dirs) {
    const files: string[] = await ctx.cache.listFiles(d).catch(() => []);
    for (const path of files) {
      if (!ctx.state.attempted(path) || uploaded.some((u) => u.path === path && !identical(u))) {
        continue;
      }
      try {
        const head = await ctx.store.head(path, { signal: ctx.signal });
        writer ??= await readWriterId(ctx.cache);
        if (head && writer && head.metadata?.[WRITER_METADATA] === writer) {
          out.push({ path, version: head.version });
        }
      } catch (e) {
        if (e instanceof AbortedError) throw e;
        // Not looked at: journaled all the same, the erasure looks again.
        out.push({ path, version: UNLOOKED });
      }
    }
  }
  return out;
}

/**
 * The refused run's uploads, journaled now, are the erasure's from here on:
 * this process's record of them as its writes whose commit may come goes.
 * The run never commits, and the erasure, whichever process over the cache
 * completes it, deletes each while no index names it and keeps one a peer's
 * commit names (its create met the same bytes). Left, the record would
 * outlive an erasure another process completed (which settles only its own
 * records): this process's pull would then take that peer's version for
 * its own committed write deleted here, and its next push would take it
 * back, the peer's version lost with its entry (chaos seed 218600236).
 */
async function handOver(ctx: PushContext, uploads: readonly UploadRef[]): Promise<void> {
  if (uploads.length > 0) await ctx.state.settleAttempted?.(uploads.map((u) => u.path));
}

/** An object this push only found in place with equal bytes (it created nothing there). */
const identical = (u: UploadRecord) => u.outcome === "identical";

/**
 * The refusal's "Nothing was pushed" is not so while uploads of the run its
 * erasure could not delete yet stay on the datastore (named by no index, so
 * published nowhere): it names them instead, and that the next push deletes
 * them.
 */
function leftOnStore(err: ModelLockLostError, left: readonly { path: string }[]): void {
  if (left.length === 0 || !err.message.includes("Nothing was pushed;")) return;
  const one = left.length === 1;
  const paths = left.map((u) => u.path).join(", ");
  err.message = err.message.replace(
    "Nothing was pushed;",
    `Nothing was published, but ${paths} (uploaded by this run, named by no index) could not be deleted from the datastore yet (erasure_pending): ${
      one ? "it stays" : "they stay"
    } there, unpublished, until the next push deletes ${one ? "it" : "them"};`,
  );
}
