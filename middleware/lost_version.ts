/**
 * What the create-only-writer does once this cache has lost a data version
 * to another writer (`version_exists`): the local version directory is set
 * aside, once per directory per push, and the files of that version this
 * cache created itself and no index names are deleted, so that the version
 * stays the other writer's, whole.
 *
 * @module
 */
import { type PushContext, PushVar, type WriteContext } from "../sync/context.ts";
import { AbortedError, VersionConflictError } from "../sync/errors.ts";
import { withRetry } from "../sync/retry.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { markerOf } from "./erasure_attribution.ts";
import { MARKER_WAITS, VERSION_WAITS } from "../sync/service/push_result.ts";
import { resetLostMarker } from "./lost_version_marker.ts";
import { keepUnindexedAbove } from "./unindexed_ahead.ts";
import { shownStatePath } from "../sync/transfer/cache_paths.ts";

/** A version directory this push lost: its set-aside, and whether the remote copy was this cache's. */
export interface LostVersion {
  readonly done: Promise<string[]>;
  readonly own: boolean;
}

/** Per push: version directory → its set-aside (one per directory). */
const LOST = new PushVar("create-only-writer/set-asides", () => new Map<string, LostVersion>());

/**
 * The version directory (`data/…/<N>`) of a version file key.
 *
 * @example
 * ```ts
 * import { versionDir } from "./lost_version.ts";
 * console.log(versionDir("data/t/m/out/3/raw")); // data/t/m/out/3
 * ```
 */
export function versionDir(key: string): string {
  return key.slice(0, key.lastIndexOf("/"));
}

/** The version directory's set-aside when this push lost it already. */
export function lostVersion(push: PushContext, dir: string): LostVersion | undefined {
  return push.vars.get(LOST).get(dir);
}

/**
 * Moves every file of the version directory aside and out of the dirty set,
 * once per directory per push, after deleting the files of it that this
 * cache (`writer`) created and no index names. Only the first caller gets
 * the targets (the push aggregates conflicts, so siblings report none).
 */
export async function setAsideVersion(
  push: PushContext,
  dir: string,
  key: string,
  ownEarlier: boolean,
  writer: string,
  /** The datastore's object is another client's that no index names yet (said so, not "published"). */
  unindexed = false,
): Promise<string[]> {
  const byDir = push.vars.get(LOST);
  const earlier = byDir.get(dir);
  if (earlier) return await earlier.done.then(() => []);
  const done = (async () => {
    const files = await push.cache.listFiles(dir);
    // None of them is committed by this push, whatever their deletion says.
    for (const f of files) push.withdrawn.add(f);
    await dropOwnSiblings(push, files.filter((f) => f !== key), writer);
    const reason = ownEarlier
      ? `${key} was uploaded from this cache before and changed here since; a data version on the datastore is never rewritten, so this local copy of ${dir} was not pushed.`
      : unindexed
      ? `Another client's upload of ${key}, with different bytes and named by no index yet (its push not committed, or stopped before its commit), holds this version: it is taken as that client's, and this local copy of ${dir} was not pushed.`
      : `Another writer published ${key} first with different bytes; this local copy of ${dir} was not pushed.`;
    const targets: string[] = [];
    for (const f of files) targets.push(await push.cache.setAside(f, reason, "version_exists"));
    await push.state.clean([...files, `${dir}/`]);
    // The local copies are gone: no manifest entry may claim them synced (a
    // resolution rebases one on theirs), or the next pull would skip theirs.
    await push.state.forget(files);
    await settlePublished(push, files);
    await resetLostMarker(push, dir, writer, unindexed);
    return targets;
  })();
  byDir.set(dir, { done, own: ownEarlier });
  return await done;
}

/**
 * The lost version's files recorded as this cache's writes (`markAttempted`:
 * this push's, about to create them) that the index names at the object the
 * store holds: published versions (a peer's whose create met this cache's
 * earlier upload of the same bytes and committed it, or this cache's own
 * commit whose answer was lost). The refused create left nothing of this
 * cache's there, and the set-aside is no local deletion: the record goes, so
 * that no later push takes the path for this cache's stranded upload and
 * deletes that published version with its entry (chaos seed 185100234).
 * A failed look leaves the records as they are.
 */
async function settlePublished(push: PushContext, files: readonly string[]): Promise<void> {
  const recorded = files.filter((f) => push.state.attempted?.(f));
  if (recorded.length === 0 || !push.state.settleAttempted) return;
  const settled: string[] = [];
  try {
    const named =
      (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
        ?.entries ?? {};
    for (const path of recorded) {
      if (!Object.hasOwn(named, path)) continue;
      const head = await withRetry(
        () => push.store.head(path, { signal: push.signal }),
        push.config.retry,
        push.signal,
      );
      if (head && head.version === named[path].v) settled.push(path);
    }
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    return;
  }
  await push.state.settleAttempted(settled);
}

/**
 * The version directory `dir` is lost to another writer: set aside, said
 * (`note`, as `gate`'s), and thrown as `version_exists`, naming the versions
 * of the data above it kept ahead (`unindexed_ahead.ts`).
 */
export async function loseVersion(
  ctx: WriteContext,
  gate: string,
  dir: string,
  writer: string,
  ownEarlier: boolean,
  unindexed: boolean,
  note: string,
): Promise<never> {
  const push = ctx.push;
  const aside = await setAsideVersion(push, dir, ctx.key, ownEarlier, writer, unindexed);
  push.note(gate, note, ctx.entry);
  const shown = aside.map((l) => shownStatePath(push.cache.dir, push.cache.stateDir, l));
  // Other versions of this data above it that no index names (an older
  // client's run stopped before its commit): kept, so the next run here
  // is numbered above them all. Once, by the sibling that set it aside.
  const ahead = !ownEarlier && aside.length > 0 ? await keepUnindexedAbove(push, dir) : [];
  throw new VersionConflictError([ctx.key], aside, ownEarlier, shown, unindexed, ahead);
}

/**
 * The files of a lost version that this cache created and no index names
 * (uploaded by this push, or by an earlier one whose commit never came):
 * deleted, each only over the version found, so that no object of this
 * cache's stays beside the other writer's version, seen by no reader and
 * named by no commit.
 */
export async function dropOwnSiblings(
  push: PushContext,
  paths: readonly string[],
  writer: string,
): Promise<void> {
  let named: Record<string, { v: string }> | undefined;
  for (const path of paths) {
    const head = await withRetry(
      () => push.store.head(path, { signal: push.signal }),
      push.config.retry,
      push.signal,
    );
    if (!head || head.metadata?.[WRITER_METADATA] !== writer) continue;
    named ??= (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
      ?.entries ?? {};
    if (named[path]?.v !== head.version) await dropOwn(push, path, head.version);
  }
}

/**
 * After a write of a file of the version directory `dir`: when a sibling
 * lost the version meanwhile, what this write `created` is deleted too, and
 * the same conflict is thrown (`version_exists`).
 */
export async function unlessSiblingLost(
  ctx: WriteContext,
  dir: string,
  created?: string,
): Promise<void> {
  const lost = lostVersion(ctx.push, dir);
  if (!lost) return;
  await lost.done;
  if (created !== undefined) await dropOwn(ctx.push, ctx.key, created);
  throw new VersionConflictError([ctx.key], [], lost.own);
}

/**
 * After a write of a file of the version directory `dir`: when a sibling met
 * another writer's upload meanwhile (the version waits), what this write
 * `created` is taken back too, and nothing of it is committed (true).
 */
export async function unlessSiblingWaits(
  ctx: WriteContext,
  dir: string,
  created?: string,
): Promise<boolean> {
  const waits = versionWaits(ctx.push, dir);
  if (!waits) return false;
  await waits;
  if (created !== undefined) await dropOwn(ctx.push, ctx.key, created);
  ctx.outcome = undefined;
  ctx.result = undefined;
  return true;
}

/** Deletes `version` of `path` (this cache's own); nothing when the store holds another one. */
export async function dropOwn(push: PushContext, path: string, version: string): Promise<void> {
  await deleteAt(push.store, path, version, { retry: push.config.retry, signal: push.signal });
}

/** Per push: version directories held back, another writer's uncommitted upload in the way. */
const WAITING = new PushVar("create-only-writer/waiting", () => new Map<string, Promise<void>>());

export { VERSION_WAITS };

/** True when this push holds the version directory back (see {@link waitVersion}). */
export function versionWaits(push: PushContext, dir: string): Promise<void> | undefined {
  return push.vars.get(WAITING).get(dir);
}

/**
 * Holds the whole version directory back from this push, once per directory:
 * another writer's upload of it that no index names is in the way. Its files
 * are never committed by this push (this cache's own uploads of them no index
 * names are deleted), they stay dirty, and so does a `latest` marker naming
 * the version; said once (`push_waiting_uncommitted`).
 */
export function waitVersion(
  push: PushContext,
  dir: string,
  key: string,
  found: string,
  writer: string,
): Promise<void> {
  const byDir = push.vars.get(WAITING);
  const earlier = byDir.get(dir);
  if (earlier) return earlier;
  const done = (async () => {
    const files = await push.cache.listFiles(dir);
    for (const f of files) push.withdrawn.add(f);
    await dropOwnSiblings(push, files.filter((f) => f !== key), writer);
    const marker = markerOf(dir);
    const named = new TextDecoder().decode((await push.cache.read(marker)) ?? new Uint8Array())
      .trim();
    for (const entry of push.plan) {
      const inside = files.includes(entry.path);
      const naming = entry.path === marker &&
        `${dir.slice(0, dir.lastIndexOf("/"))}/${named}` === dir;
      if (!inside && !naming) continue;
      entry.action = "skip";
      entry.keepDirty = true;
      entry.reason = naming ? `${VERSION_WAITS} ${MARKER_WAITS}` : VERSION_WAITS;
      // Marked again: the commit cleans only the marks not renewed since the push began.
      if (!push.dryRun) await push.state.markDirty(entry.path);
    }
    push.events.emit("warning", {
      code: "push_waiting_uncommitted",
      message:
        `${dir} was not pushed: the datastore holds another writer's upload of ${key} (version ${found}) that its index does not list (a run refused for losing its model lock, whose erasure deletes it, or a commit on its way). Nothing was overwritten; the local copy stays dirty, and the next push publishes it once that upload is gone, or meets it published (version_exists). If that writer is gone for good (a crashed run, whose upload nothing will erase), \`sluice push --adopt-uncommitted ${dir}\` replaces its upload with this copy once that upload is 15 minutes old; \`sluice status\` lists what waits.`,
      path: key,
    });
  })();
  byDir.set(dir, done);
  return done;
}
