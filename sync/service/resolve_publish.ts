/**
 * Publishing a resolution's side (`mine`, `merged`, and `theirs` where it
 * finishes this cache's own cut-off upload, see `resolve_theirs.ts`): the
 * set-aside copy of mine put back in place, the path rebased on theirs and
 * pushed alone through the pipeline, the conflict kept open while that push
 * fails part way, and the copies set aside on the way named by whatever
 * conflict is open after it.
 *
 * @module
 */
import type { ConflictRecord, LocalSide, RemoteSide, Resolution } from "./conflicts.ts";
import { setAsideCopies } from "./conflicts.ts";
import { LocalChangedError } from "../transfer/file_identity.ts";
import { AbortedError, SluiceError, VersionConflictError } from "../errors.ts";
import { shellWord } from "../shell_word.ts";
import { ResolveRefusedError } from "./resolve_refusals.ts";
import type { ResolveDeps, ResolveOutcome } from "./resolve.ts";
import { beforeLosing, lostVersionRefusal } from "./resolve_lost_version.ts";

/** Puts a set-aside copy of mine back in place; returns where the displaced local copy went. */
export async function restoreMine(
  deps: ResolveDeps,
  rec: ConflictRecord,
  setAside: string[],
): Promise<void> {
  const mine = rec.mine;
  if (!mine || mine.location === rec.path) return;
  const body = await deps.cache.read(mine.location);
  if (!body) {
    // Moved back to its path by hand, as it was: the copy to publish is in place.
    if ((await deps.cache.hashFile(rec.path).catch(() => null))?.hash === mine.hash) return;
    throw new ResolveRefusedError(
      "not_found",
      `The set-aside copy of ${rec.path} (${mine.location}) is gone, so there is no copy of yours to publish; nothing was changed. Put your copy at ${rec.path} and run \`sluice resolve ${
        shellWord(rec.path)
      } --merged\`, or take theirs with --theirs.`,
    );
  }
  // Looked at before its hash: an edit saved from here on is never written over.
  let seen = deps.cache.identity(rec.path);
  const here = await deps.cache.hashFile(rec.path);
  // A copy holding theirs' bytes is theirs, put there by the pull, only
  // while the cache holds it as synced: one marked dirty, or whose synced
  // record names other bytes (a later pull took a newer version, the
  // conflict left open), is an edit made here since (a marker moved back
  // to theirs' number), set aside like any other.
  const synced = deps.state.synced(rec.path);
  const edited = deps.state.dirtyPaths().includes(rec.path) ||
    (synced !== undefined && synced.hash !== here?.hash);
  if (here && here.hash !== mine.hash && (here.hash !== rec.theirs?.hash || edited)) {
    setAside.push(
      await deps.cache.setAside(rec.path, "displaced by resolve --mine (neither side)"),
    );
    seen = null; // moved away: the path must be free when the copy is put back
  }
  try {
    await deps.cache.writeWithStat(rec.path, body, seen);
  } catch (e) {
    if (!(e instanceof LocalChangedError)) throw e;
    // A copy moved out of the way above stays named by the open conflict.
    await keepAsideNamed(deps, rec, setAside);
    throw new ResolveRefusedError(
      "file_changed",
      `${rec.path} changed in the cache while resolve --mine was putting your set-aside copy back (an edit saved meanwhile): it was left as it is, and the set-aside copy stays at ${mine.location}. The conflict stays open and nothing was published. Look at ${rec.path}, then run the resolution again (\`sluice resolve ${
        shellWord(rec.path)
      } --merged\` publishes what is there now).`,
      { cause: e },
    );
  }
}

/**
 * Publishes what the cache holds at the conflict's path, rebased on
 * `theirs`: every compare-and-swap of the push is then on the version the
 * user saw. The conflict is released once it lands. `also` are pushed in
 * the same push (a file of this cache's that replaced the path's directory,
 * published with the path's deletion).
 */
export async function publishRebased(
  deps: ResolveDeps,
  rec: ConflictRecord,
  resolution: Resolution,
  theirs: RemoteSide | null,
  setAside: string[],
  also: readonly string[] = [],
): Promise<ResolveOutcome> {
  const { state } = deps;
  const path = rec.path;
  // Read before the push, which forgets the records of a version it sets aside.
  const before = await beforeLosing(deps, path);
  state.setSynced(
    path,
    theirs ? { hash: theirs.hash, version: theirs.version, size: theirs.size } : undefined,
  );
  await state.markDirty(path);
  await state.saveManifest();
  await state.conflicts.clear([path]);
  // A newer record another process over the cache saved meanwhile stays
  // (see `ConflictSet.clear`): the push leaves the path out, and this says why.
  const meanwhile = state.conflicts.has(path);
  const pushed = await keptOpenOnFailure(
    deps,
    rec,
    resolution,
    setAside,
    () => deps.pushOnly([path, ...also]),
  ).catch(async (e) => {
    // Said of this resolution: what was set aside, and that the conflict is closed.
    throw e instanceof VersionConflictError && resolution !== "theirs" && e.keys.includes(path)
      ? await lostVersionRefusal(deps, resolution, before, e)
      : e;
  });
  await keepAsideNamed(deps, rec, setAside);
  const conflicts = meanwhile && state.conflicts.has(path)
    ? [path]
    : pushed.conflicts.filter((p) => p === path);
  const resolved = conflicts.length === 0 &&
    !pushed.skipped.some((s) => s.path === path && s.keepDirty);
  // Held back by its push (another writer's upload in the way, say), with
  // no new conflict: the resolution waits, the path dirty with the copy
  // chosen and rebased on theirs, for the push that can go. The copies the
  // record named are released as a resolution's are: left named in their
  // set-aside area, the next process to open the cache would name them
  // again as an open conflict, and no push would then publish the choice.
  if (resolved || (conflicts.length === 0 && !state.conflicts.has(path))) {
    await state.conflicts.release(rec, setAside);
  }
  // A file the datastore had lost, published again: no longer lost. Best
  // effort: a record left makes at most a later deletion of it a conflict.
  if (resolved && rec.theirs === null && !pushed.deleted.includes(path)) {
    await deps.forgetLost?.(path).catch(() => {});
  }
  // Published by this push: uploaded, or found in place (this cache's own
  // upload of an earlier, cut-off resolution) and named now instead of theirs.
  const now = state.synced(path)?.version;
  const named = pushed.uploaded.includes(path) ||
    (pushed.identical.includes(path) && now !== undefined && now !== theirs?.version);
  return {
    path,
    resolution,
    resolved,
    published: conflicts.length === 0 && named ? now : undefined,
    deleted: pushed.deleted.includes(path),
    setAside,
    conflicts,
    ...(meanwhile && !resolved ? { recordedMeanwhile: true } : {}),
    push: pushed,
  };
}

/**
 * The pull or push of a resolution (`fn`), with the conflict record put back
 * when it fails (the datastore unreachable, a cancellation; not a data
 * version set aside whole, whose loss settles it): the record is
 * cleared for it to run (a push leaves out a path in conflict), and the
 * conflict is not resolved until it lands, so that `status` still lists it,
 * a plain push still leaves it out, and the same `resolve` works again.
 * Copies this resolution set aside are named by the record.
 */
export async function keptOpenOnFailure<T>(
  deps: ResolveDeps,
  rec: ConflictRecord,
  resolution: Resolution,
  setAside: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    // A data version lost to another writer was set aside whole: theirs
    // stands, the conflict is settled (`version_exists` says where it went).
    if (e instanceof VersionConflictError) throw e;
    if (!deps.state.conflicts.get(rec.path)) {
      await deps.state.conflicts.record([rec]).catch(() => {});
      await keepAsideNamed(deps, rec, [...setAside]).catch(() => {});
    }
    // Said of the resolution, not of a plain push, which leaves a path in
    // conflict out: the same resolution, run again, finishes it.
    if (e instanceof SluiceError && e.code === "aborted") {
      throw new AbortedError(`The resolution of ${rec.path}`, {
        cause: e,
        kept:
          `Its upload may have landed and its commit may not have (peers then do not see it yet); the conflict stays open (\`sluice status\` lists it). Run the same \`sluice resolve ${
            shellWord(rec.path)
          } --${resolution}\` again to finish: it publishes your ${
            resolution === "merged" ? "merge" : "copy"
          }, or says it is published already.`,
      });
    }
    throw e;
  }
}

/**
 * A resolution that ended in a new conflict of the path (a newer version of
 * theirs, a file saved meanwhile): the new record also names the copies the
 * conflict resolved had set aside, and those this resolution set aside
 * (`made`), so that none is left unnamed in `.sluice/set-aside/` while the
 * path is in conflict. Nothing when the path has no open conflict.
 */
export async function keepAsideNamed(
  deps: ResolveDeps,
  rec: ConflictRecord,
  made: readonly string[],
): Promise<void> {
  if (!deps.state.conflicts.has(rec.path)) return;
  const copies: LocalSide[] = setAsideCopies(rec);
  for (const location of made) {
    const at = await deps.cache.hashFile(location).catch(() => null);
    if (at) copies.push({ location, hash: at.hash, size: at.size });
  }
  await deps.state.conflicts.keepNaming(rec.path, copies);
}
