/**
 * marker-after-version: a data version's `latest` marker is never published
 * ahead of the version it names.
 *
 * A reader follows `latest` to the version it names. A push that writes the
 * marker while that version's files here are neither published (synced) nor
 * written by this push would leave every reader pointed at a version the
 * index does not list: a push of the marker alone (`sluice push
 * <dir>/latest`, or `pushChanged({ only })`) after the version was held back
 * (another writer's upload in the way, a failed upload, a version still
 * being written), the version's files left out by another gate, or the
 * marker rewritten here to name a newer version while the push ran. So the
 * gate looks at the very bytes the marker's write carries, when that write
 * comes (a marker is a commit-step write: after every upload of the push,
 * or of its preparation): a marker naming a version with a file here that is
 * neither synced nor written by this push (and not taken back since) stays
 * out of the push, dirty, with the reason; the push that publishes the
 * version publishes it. Files no push publishes (local-only, `internal`) are
 * no part of the version. A marker naming a version this cache does not
 * hold is written only where the datastore's index lists that version (one
 * index read, on that rare path), files this push takes back aside (this
 * cache's own uploads, deleted here since: the marker is then held, and the
 * one published before put back), and files whose deletion it makes (this
 * cache's own, cut off before its commit); one it holds as synced, as it is. A
 * marker whose bytes are no version number (digits, surrounding whitespace
 * aside: empty, a path, two lines) names nothing a reader could follow: it
 * stays out too, dirty, with the reason.
 *
 * @module
 */
import {
  type PushContext,
  PushVar,
  type WriteContext,
  type WriteGateEntry,
} from "../sync/context.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { isInternalPath } from "../sync/paths.ts";
import { MARKER_AHEAD } from "../sync/service/push_result.ts";
import { dropOwnStranded } from "../sync/service/push_delete.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { listedAfterPush, namedDir } from "./marker_listed.ts";
import { publishOwnMarker } from "./marker_stranded.ts";

/** The gate's registered name. */
export const MARKER_AFTER_VERSION = "marker-after-version";

/** Why a marker was left out. */
export function markerHeldReason(dir: string): string {
  return `${MARKER_AHEAD}: it names ${dir}, whose files here are not published and not in this push: it is pushed with that version (push the version, or the whole cache)`;
}

/**
 * The gate (write phase `prepare`).
 *
 * @example
 * ```ts
 * import { markerAfterVersion } from "./marker_after_version.ts";
 * const gate = markerAfterVersion();
 * ```
 */
export function markerAfterVersion(): Middleware<WriteContext> {
  return async function markerAfterVersionGate(ctx, next) {
    if (ctx.entry.class !== "latest-marker") return await next();
    const dir = namedDir(ctx.key, ctx.body);
    if (dir === undefined) {
      // A streamed body (a marker larger than the stream threshold) is not read here.
      if (!(ctx.body instanceof Uint8Array)) return await next();
      await hold(ctx, "no version", markerNotANumberReason(ctx.key, ctx.body));
      return;
    }
    const push = ctx.push;
    const held = await push.cache.listFiles(dir).catch(() => [] as string[]);
    const files = held.filter((f) => !isInternalPath(f, push.config.classifierRules));
    // Held here, but only as files no push publishes (kept local by a rule):
    // nothing of the version is this gate's to wait for.
    if (held.length > 0 && files.length === 0) return await next();
    if (files.length === 0) {
      // Not held here: another writer's version the datastore lists (this
      // cache never pulled it), or none at all (a marker set by hand, its
      // version deleted here before it was pushed). One index read, on this
      // rare path alone; files whose deletion this push makes aside (this
      // cache's own deletion, cut off before its commit, which the commit
      // step finishes). Listed only by this cache's own uploads, deleted
      // here, that this push takes back after its commit step's writes: the
      // marker would be named naming a version gone by the push's end.
      const listed = await listedAfterPush(push, dir, true);
      if (listed === "listed") return await next();
      const back = listed === "taken-back";
      const reason = back ? markerTakenBackReason(ctx.key, dir) : markerUnlistedReason(dir);
      await hold(ctx, dir, reason, true);
      return;
    }
    const written = writtenBy(push);
    const behind = files.filter((f) =>
      (!written.has(f) || push.withdrawn.has(f)) && push.state.synced(f) === undefined
    );
    if (behind.length === 0) return await next();
    // A version whose raw unfinished-version-holder keeps back (no
    // metadata.yaml here yet) is published only once it is finalized: if its
    // writer stopped for good (a crashed run), never, and "push the version"
    // would send the user round in circles (chaos seed 143500042).
    const unfinished = push.config.unfinishedVersions === "hold" &&
      !files.includes(`${dir}/metadata.yaml`) && behind.includes(`${dir}/raw`);
    await hold(ctx, dir, unfinished ? markerUnfinishedReason(ctx.key, dir) : markerHeldReason(dir));
  };
}

/** Per push: the paths it wrote so far, grown as its uploads do (one set, not one per marker). */
const WRITTEN = new PushVar(
  "marker-after-version/written",
  () => ({ seen: 0, paths: new Set<string>() }),
);

/** The paths `push` wrote so far (taken back or not: see `withdrawn`). */
function writtenBy(push: PushContext): ReadonlySet<string> {
  const w = push.vars.get(WRITTEN);
  for (; w.seen < push.uploaded.length; w.seen++) w.paths.add(push.uploaded[w.seen].path);
  return w.paths;
}

/**
 * Leaves the marker's write out, dirty, with `reason`. A marker this cache
 * never synced that an earlier push of its wrote and stopped before the
 * index update (a crash between a commit write and the index): that upload,
 * named by no index, is taken back (see `dropOwnStranded`), as the check of
 * such a write does for a path no push writes now. Left, no later push
 * would settle it while the marker stays held (this push plans the marker,
 * so no such check runs, and the marker's bytes here may name a version
 * that is never published: another tool's), and a peer's marker write would
 * wait on it. One committed (its answer lost) stays, unless it names the
 * version `dir` that no index lists once this push is done and this cache
 * does not hold (`unlisted`: this push takes it back, or an earlier one
 * did): it names nothing a reader could follow, and goes. Best effort: a
 * failed look or delete leaves it, still recorded, to the next push, which
 * finds `dir` unlisted and takes it back then.
 */
async function hold(
  ctx: WriteContext,
  dir: string,
  reason: string,
  unlisted = false,
): Promise<void> {
  ctx.entry.action = "skip";
  ctx.entry.keepDirty = true;
  ctx.entry.reason = reason;
  // A file found by a walk is not in the dirty set: marked, so it stays dirty after this push.
  if (!ctx.push.dryRun) await ctx.push.state.markDirty(ctx.key);
  const push = ctx.push;
  if (
    !push.dryRun && push.state.synced(ctx.key) === undefined &&
    push.state.attempted?.(ctx.key) === true
  ) {
    const writer = () => pushWriterId(push);
    const named = async () => unlisted && await storeNamesDir(push, ctx.key, dir);
    await named().then((committed) => dropOwnStranded(push, ctx.key, writer, committed)).catch(
      (e) => {
        if (push.signal?.aborted) throw e;
      },
    );
  } else if (!push.dryRun && ctx.entry.syncedVersion !== undefined) {
    await publishOwnMarker(push, ctx.entry).catch((e) => {
      if (push.signal?.aborted) throw e;
    });
  }
  ctx.push.note(MARKER_AFTER_VERSION, `${ctx.key}: names ${dir}, not published: held`, ctx.entry);
}

/** True when the datastore's object at `marker` names the version directory `dir`. */
async function storeNamesDir(push: PushContext, marker: string, dir: string): Promise<boolean> {
  const got = await getOrNull(push.store, marker, {
    retry: push.config.retry,
    signal: push.signal,
  });
  return got !== null && namedDir(marker, got.body) === dir;
}

/** Why a marker whose bytes are no version number was left out. */
export function markerNotANumberReason(marker: string, body: Uint8Array): string {
  const text = JSON.stringify(new TextDecoder().decode(body.subarray(0, 40)));
  return `${MARKER_AHEAD}: it holds ${text}${
    body.length > 40 ? "…" : ""
  }, which is no version number, so no reader could follow it: write the number of an existing version in ${marker} (e.g. \`1\`), then push it`;
}

/**
 * Why a marker naming a version still being written here (its `raw` with no
 * `metadata.yaml` beside it, held back by unfinished-version-holder) was
 * left out.
 */
export function markerUnfinishedReason(marker: string, dir: string): string {
  return `${MARKER_AHEAD}: it names ${dir}, a version still being written here (its directory holds no metadata.yaml yet), so nothing of it is published: the marker is pushed once that version is finalized; if its writer stopped for good it never will be: set the marker to a finished version (in a conflict, \`sluice resolve ${marker} --theirs\` takes the datastore's) and delete the version's directory`;
}

/**
 * Why a marker naming a version deleted here, whose own uploads (named by
 * the index) this push takes back, was left out.
 */
export function markerTakenBackReason(marker: string, dir: string): string {
  return `${MARKER_AHEAD}: it names ${dir}, whose files were deleted here, and this push takes back this cache's uploads of them, so no reader could follow it: the datastore's marker goes back to the one published before (or goes, where there was none); set ${marker} to a version that exists (the highest one left, say), then push it`;
}

/** Why a marker naming a version neither held here nor listed by the datastore was left out. */
export function markerUnlistedReason(dir: string): string {
  return `${MARKER_AHEAD}: it names ${dir}, which this cache does not hold and the datastore does not list, so no reader could follow it: write the version there first, or set the marker to a version that exists`;
}

/**
 * The gate's default registration (write phase `prepare`, for `latest`
 * markers).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * import { markerAfterVersionEntry } from "./marker_after_version.ts";
 * new Pipeline<WriteContext>(WRITE_PHASES).add(markerAfterVersionEntry());
 * ```
 */
export function markerAfterVersionEntry(): WriteGateEntry {
  return {
    appliesTo: (entry) => entry.class === "latest-marker",
    name: MARKER_AFTER_VERSION,
    phase: "prepare",
    middleware: markerAfterVersion(),
    description:
      "a latest marker is not written ahead of the version its bytes name (that version's files here neither published nor written by the push)",
  };
}
