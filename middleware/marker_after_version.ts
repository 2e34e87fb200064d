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
 * index read, on that rare path); one it holds as synced, as it is. A
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
import { readIndex, readIndexAround } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { putBackAndName } from "../sync/transfer/put_back.ts";
import { sha256Hex } from "../sync/hash.ts";
import { MARKER_AHEAD } from "../sync/service/push_result.ts";
import { dropOwnStranded, publishOwnStranded } from "../sync/service/push_delete.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../sync/transfer/writer_id.ts";

/** The gate's registered name. */
export const MARKER_AFTER_VERSION = "marker-after-version";

/** Why a marker was left out. */
export function markerHeldReason(dir: string): string {
  return `${MARKER_AHEAD}: it names ${dir}, whose files here are not published and not in this push: it is pushed with that version (push the version, or the whole cache)`;
}

/** The version directory a marker's bytes name, if they read as one. */
function namedDir(marker: string, body: WriteContext["body"]): string | undefined {
  if (!(body instanceof Uint8Array) || body.length > 64) return undefined;
  const named = new TextDecoder().decode(body).trim();
  if (!/^[0-9]+$/.test(named)) return undefined;
  return `${marker.slice(0, marker.lastIndexOf("/"))}/${named}`;
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
      // rare path alone.
      if (await indexListsDir(push, dir)) return await next();
      await hold(ctx, dir, markerUnlistedReason(dir));
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
 * wait on it. One committed (its answer lost) stays. Best effort: a failed
 * look or delete leaves it, still recorded, to the next push.
 */
async function hold(ctx: WriteContext, dir: string, reason: string): Promise<void> {
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
    await dropOwnStranded(push, ctx.key, () => pushWriterId(push), false).catch((e) => {
      if (push.signal?.aborted) throw e;
    });
  } else if (!push.dryRun && ctx.entry.syncedVersion !== undefined) {
    await publishOwnMarker(push, ctx.entry).catch((e) => {
      if (push.signal?.aborted) throw e;
    });
  }
  ctx.push.note(MARKER_AFTER_VERSION, `${ctx.key}: names ${dir}, not published: held`, ctx.entry);
}

/**
 * A synced marker held back, where an earlier push of this cache rewrote it
 * and stopped before the index update: that upload stands in place of the
 * synced object the index still names (a reader finds no marker, and a
 * peer's marker write meets a change it cannot see), and no push writes the
 * marker while it is held. It is published as its commit would have done
 * (`publishOwnStranded`: only while the index names the synced version),
 * once the version its own bytes name is listed, so that no marker is
 * published ahead of its version; until then it is left, to a later push
 * of that version from here. Where this cache holds no file of that version
 * either (deleted here, its uploads taken back: a crashed run's output
 * cleaned up), no push will ever list it, and the committed marker is put
 * back in place of the upload instead (`putBackCommitted`).
 */
async function publishOwnMarker(push: PushContext, entry: WriteContext["entry"]): Promise<void> {
  const writer = await pushWriterId(push);
  const now = await push.store.head(entry.path, { signal: push.signal });
  if (!now || !isOwnUncommitted(now, entry.syncedVersion, writer)) return;
  const got = await getOrNull(push.store, entry.path, {
    retry: push.config.retry,
    signal: push.signal,
  });
  if (got?.version !== now.version) return;
  const dir = namedDir(entry.path, got.body);
  if (dir === undefined) return;
  if (await indexListsDir(push, dir)) {
    await publishOwnStranded(push, entry, () => Promise.resolve(writer));
    return;
  }
  const held = await push.cache.listFiles(dir).catch(() => [] as string[]);
  if (held.some((f) => !isInternalPath(f, push.config.classifierRules))) return;
  // It writes the index: in a two-phase push, the commit makes it, under
  // the global lock it holds beside old clients (as the marker take-back of
  // a lost version is left to it).
  const back = () =>
    putBackCommitted(push, entry.path, got.version, writer).catch((e) => {
      if (push.signal?.aborted) throw e;
    });
  if (push.preparing) push.atCommit.push(back);
  else await back();
}

/**
 * Takes back this cache's (`writer`) upload `upload` of the synced
 * `marker`, which names a version no push will list: deleted, and the
 * committed marker put back in its place (with this cache's writer id, as
 * the marker take-back of a lost version does) and named in place of the
 * version the index names, only while it still names the version synced
 * here (`putBackAndName`). The committed bytes are found by the synced hash
 * among the version numbers of the versions here (a marker holds one);
 * not found, or the index naming another version, the upload is left as it
 * was. Recorded as synced at the copy put back before the index write
 * naming it, as `lost_version_marker.ts` does, and back as it was where
 * that write did not name it.
 */
async function putBackCommitted(
  push: PushContext,
  marker: string,
  upload: string,
  writer: string,
): Promise<void> {
  const synced = push.state.synced(marker);
  if (!synced) return;
  const call = { retry: push.config.retry, signal: push.signal };
  const named = (await readIndex(
    push.store,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  ))?.entries[marker];
  if (
    !named || isUnversioned(named) || named.v !== synced.version || named.h !== synced.hash
  ) return;
  const committed = await committedBytes(push, marker, synced.hash);
  if (!committed) return;
  if (!(await deleteAt(push.store, marker, upload, call))) return;
  let moved = false;
  const done = await putBackAndName(push.store, marker, committed, named, {
    ...call,
    concurrency: push.config.concurrency,
    now: () => push.clock.now(),
    metadata: { [WRITER_METADATA]: writer },
    placed: async (version) => {
      moved = true;
      await push.state.recordSynced(marker, { hash: synced.hash, version, size: synced.size });
    },
  });
  if (moved && done.kind !== "named") {
    await push.state.recordSynced(marker, {
      hash: synced.hash,
      version: synced.version,
      size: synced.size,
    });
  }
}

/** The bytes of the version number held here whose SHA-256 is `hash` (with or without a newline), or null. */
async function committedBytes(
  push: PushContext,
  marker: string,
  hash: string,
): Promise<Uint8Array | null> {
  const parent = marker.slice(0, marker.lastIndexOf("/"));
  const numbers = new Set<string>();
  for (const f of await push.cache.listFiles(parent).catch(() => [] as string[])) {
    const n = f.slice(parent.length + 1).split("/")[0];
    if (/^[0-9]+$/.test(n)) numbers.add(n);
  }
  const enc = new TextEncoder();
  for (const n of numbers) {
    for (const t of [n, `${n}\n`]) {
      const bytes = enc.encode(t);
      if (await sha256Hex(bytes) === hash) return bytes;
    }
  }
  return null;
}

/** True when the datastore's index lists a file under the version directory `dir` (one index read). */
async function indexListsDir(push: PushContext, dir: string): Promise<boolean> {
  const near = await readIndexAround(
    push.store,
    dir,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  return Object.keys(near).some((k) => k.startsWith(`${dir}/`));
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
