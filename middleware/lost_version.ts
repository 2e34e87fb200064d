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
import { VersionConflictError } from "../sync/errors.ts";
import { dropOwn, dropOwnSiblings, settlePublished } from "./lost_version_own.ts";
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
  /** The datastore's version the create met, when read (kept in each copy's `REASON.json`). */
  lostTo?: string,
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
    for (const f of files) {
      // Each copy names the datastore's version it lost to (none there: ""),
      // so that its set-aside never speaks for a version written at its path
      // later (see `setAsideAsLost` in push_delete.ts); a sibling's is read.
      const met = f === key ? lostTo : await siblingVersion(push, f);
      targets.push(await push.cache.setAside(f, reason, "version_exists", undefined, met));
    }
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

/** The datastore's version of a lost version's sibling file ("": none); undefined when it could not be read. */
async function siblingVersion(push: PushContext, path: string): Promise<string | undefined> {
  try {
    return (await push.store.head(path, { signal: push.signal }))?.version ?? "";
  } catch {
    return undefined;
  }
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
  /** The datastore's version the create met, when read. */
  lostTo?: string,
): Promise<never> {
  const push = ctx.push;
  const aside = await setAsideVersion(push, dir, ctx.key, ownEarlier, writer, unindexed, lostTo);
  push.note(gate, note, ctx.entry);
  const shown = aside.map((l) => shownStatePath(push.cache.dir, push.cache.stateDir, l));
  // Other versions of this data above it that no index names (an older
  // client's run stopped before its commit): kept, so the next run here
  // is numbered above them all. Once, by the sibling that set it aside.
  const ahead = !ownEarlier && aside.length > 0 ? await keepUnindexedAbove(push, dir) : [];
  throw new VersionConflictError([ctx.key], aside, ownEarlier, shown, unindexed, ahead);
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
