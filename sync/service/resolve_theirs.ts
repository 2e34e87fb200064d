/**
 * `theirs` of a resolution (see `resolve.ts`): the local copy set aside
 * (never deleted), the path forgotten and pulled (a copy here that is
 * theirs already is recorded as synced at theirs instead, so that a
 * deletion of it by hand while the resolution runs is a local change, never
 * undone). Where the pull does not take theirs (it failed, something here
 * is in its way, the store's object is not the one the index names), the
 * conflict stays open as it was, the copy put back where nothing took its
 * place. Where what the store holds is this cache's own upload over theirs
 * (a `mine` or `merged` cut off before its commit), theirs is gone: that
 * upload is taken and its publishing finished; unless the copy here is
 * theirs already (copied into place by hand), which is then written back
 * over that upload and committed. Where it is another writer's object and
 * theirs, as the conflict recorded it, is no longer there (another writer's
 * upload no index names, taken back or replaced since), theirs cannot be
 * taken: what the pull gave is the datastore's side (nothing at the path),
 * and the conflict is resolved so, the copy kept aside. A directory at the
 * path that is the
 * datastore's side (a peer replaced the file by it, and a pull brought it)
 * is no copy of this cache's: it stays, and the pull goes on from it.
 *
 * @module
 */
import type { ConflictRecord } from "./conflicts.ts";
import type { PullResult } from "./pull.ts";
import type { SyncState } from "./state.ts";
import { ownFileAbove, versionedTheirs } from "./resolve_reads.ts";
import { ResolveRefusedError } from "./resolve_refusals.ts";
import { keepAsideNamed, publishRebased } from "./resolve_publish.ts";
import type { ResolveDeps, ResolveOutcome } from "./resolve.ts";
import { namedWhereMoved, recordedSince } from "./resolve_theirs_named.ts";

/** Resolves the conflict `rec` by taking theirs (see the module). */
export async function resolveTheirs(
  deps: ResolveDeps,
  rec: ConflictRecord,
): Promise<ResolveOutcome> {
  const { cache, state } = deps;
  const path = rec.path;
  const resolution = "theirs";
  const setAside: string[] = [];
  const here = await cache.hashFile(path);
  // The copy here is theirs already (copied into place by hand, say), while
  // the store holds this cache's own upload over theirs (a `mine` or
  // `merged` of this conflict cut off before its commit). The pull would
  // take the copy as theirs without a look at the store, and its dirty mark
  // gone, no push would ever write it back: the index would name theirs, an
  // object the store no longer holds. Theirs is written back over that
  // upload and committed, as the push of a copy rebased on theirs does.
  if (here && rec.theirs && here.hash === rec.theirs.hash && deps.ownUploadOver) {
    const own = await deps.ownUploadOver(path, rec.theirs.version);
    if (own !== null) return await theirsOverOwn(deps, rec, own);
  }
  if (here && here.hash !== rec.theirs?.hash) {
    // The copy's REASON.json records the conflict, as a pull's does: should
    // this process stop before the resolution ends (its record cleared
    // below), the next one to open the cache names the copy again.
    setAside.push(
      await cache.setAside(
        path,
        rec.theirs === null
          ? "resolve --theirs: the local copy was set aside, theirs being a deletion"
          : "resolve --theirs: the local copy was replaced",
        undefined,
        { mine: { hash: here.hash, size: here.size }, theirs: rec.theirs, reason: rec.reason },
      ),
    );
  }
  // The datastore's directory kept at the path (see `theirsDirectory`).
  const keptDirectory = !here && cache.exists(path) && await theirsDirectory(deps, path);
  if (!here && cache.exists(path) && !keptDirectory) {
    setAside.push(
      await cache.setAside(
        path,
        cache.holdsDirectory(path)
          ? `resolve --theirs: ${path} was a directory here; theirs took its path, and its files were set aside together`
          : "resolve --theirs: not a regular file",
      ),
    );
  } else if (!here && rec.theirs && !cache.exists(path)) {
    // A file of this cache's own that replaced the path's directory here
    // (never synced, or changed since its record) is in the way of theirs:
    // set aside, as a directory that replaced a file here is.
    const above = await ownFileAbove(deps, path);
    if (above !== undefined) {
      setAside.push(
        await cache.setAside(
          above,
          `resolve --theirs of ${path}: a file of this cache's in the way of theirs, under a directory of its name`,
        ),
      );
    }
  }
  // A directory the copy leaves empty would be in the way of a file of its
  // name that theirs may be (a peer made a directory a file).
  if (setAside.length > 0) await cache.removeEmptyParents(path);
  // Forgotten, then pulled: a path this cache never synced takes the datastore's copy.
  const before = { synced: state.synced(path), dirty: state.dirtyPaths().includes(path) };
  // The copy moved aside from the path, put back there if theirs is not taken.
  const movedHere = !!here && setAside.length > 0 && rec.mine?.location === path;
  if (movedHere) {
    // Named where it is now before anything else is written: a stop before
    // the pull ends never leaves the record naming a path emptied here.
    await state.conflicts.record([{
      ...rec,
      mine: { location: setAside[0], hash: here.hash, size: here.size },
    }]);
  }
  // A copy here that is theirs already (copied into place by hand, say) is
  // recorded as synced at theirs, not forgotten: the user may delete it by
  // hand while the resolution runs, and the pull, finding nothing here and
  // no record, would take the datastore's copy over that deletion. Recorded,
  // a deletion is one of theirs, for the push to publish (or a conflict,
  // theirs changed since). Another client's entry (`~…`, no object version)
  // is left to the pull, as before.
  const already = !!here && setAside.length === 0 && !!rec.theirs &&
    here.hash === rec.theirs.hash && !rec.theirs.version.startsWith("~");
  state.setSynced(
    path,
    already && rec.theirs
      ? { hash: rec.theirs.hash, version: rec.theirs.version, size: rec.theirs.size }
      : undefined,
  );
  await state.saveManifest();
  // A mark of the name of a directory kept here stands for what is under it
  // too (a file of this cache's written there since, marked so): it stays
  // for the next push, which publishes what changed under the directory.
  if (!keptDirectory) await state.clean([path]);
  await state.conflicts.clear([path]);
  // A newer record another process over the cache saved meanwhile stays
  // (see `ConflictSet.clear`): the path is in conflict still, said so.
  let meanwhile = state.conflicts.has(path);
  // That record, found by the other process's pull, names the copy in place
  // as yours, the copy this resolution moved aside (the first set aside):
  // it names it where it is now, as the load names a copy so moved by a
  // resolution that stopped (see `ConflictSet`), before the pull puts
  // theirs at the path. Else a later --mine of it publishes what the path
  // then holds, the datastore's copy, and releases your edit.
  if (meanwhile && here && setAside.length > 0) {
    await namedWhereMoved(deps, path, {
      location: setAside[0],
      hash: here.hash,
      size: here.size,
    });
  }
  let pulled: PullResult;
  try {
    // Theirs a deletion of a file under a directory a peer replaced by a
    // file of its name: with the directory emptied here, that file is the
    // datastore's side too, pulled with it (else it waited for a later pull,
    // the resolution saying only that nothing is here).
    let above: string | undefined;
    if (rec.theirs === null && setAside.length > 0 && deps.indexedOtherShape) {
      const other = await deps.indexedOtherShape(path);
      if (other !== undefined && path.startsWith(`${other}/`) && !cache.exists(other)) {
        above = other;
      }
    }
    // Its warning of theirs skipped as uncommitted says what this does then.
    const theirs = rec.theirs && !rec.theirs.version.startsWith("~")
      ? { path, version: rec.theirs.version, copyBack: movedHere }
      : undefined;
    pulled = await deps.pull(above === undefined ? [path] : [path, above], theirs);
  } catch (e) {
    await reopenTheirs(deps, rec, setAside, before).catch(() => {});
    throw e;
  }
  // A record of the path another process saved while the pull ran (its
  // own pull planned before the copy moved aside, say) is as one the clear
  // kept: the path is in conflict still, the resolution not done.
  await state.conflicts.takeIn();
  // The record the clear kept may have been replaced meanwhile by one naming
  // the copy in place again: named where it is now all the same.
  if (!meanwhile && !pulled.conflicts.includes(path) && state.conflicts.has(path)) meanwhile = true;
  if (meanwhile && here && setAside.length > 0) {
    await namedWhereMoved(deps, path, { location: setAside[0], hash: here.hash, size: here.size });
  }
  if ((pulled.blocked ?? []).includes(path)) {
    // Theirs cannot be put there: a file or directory here is in the way.
    // The conflict stays open, naming any copy set aside on the way.
    await reopenTheirs(deps, rec, setAside, before);
    const still = setAside.filter((l) => cache.exists(l));
    throw new ResolveRefusedError(
      "unsafe_path",
      `The datastore's copy of ${path} cannot be taken: a file or directory here is in the way of it (a path above it is a file here, or it is a directory here, where the datastore holds both shapes). ${
        still.length
          ? `Your copy was set aside in ${still.join(", ")} (named by the conflict); the`
          : "The"
      } conflict stays open and nothing else was changed.${
        meanwhile
          ? ` Another process over this cache recorded a newer conflict of ${path} while this resolution ran: that record is the one open, naming the copies set aside.`
          : ""
      } Run \`sluice status\` to see what is in the way, move it aside or resolve its own conflict first, then run this again.`,
    );
  }
  // Not taken when the store's object is not the one the index names
  // (a push in flight, or a stopped one's upload over theirs). One gone
  // while the index names it (deleted outside the sync) is the datastore's
  // side now: nothing is there to take, and nothing is left here either
  // (the copy stays aside); said so (`PullResult.vanished`).
  let resolved = !pulled.conflicts.includes(path) && !pulled.uncommitted.includes(path) &&
    !(meanwhile && state.conflicts.has(path));
  if (!resolved && pulled.uncommitted.includes(path) && !state.conflicts.get(path)) {
    let own: ResolveOutcome | null;
    try {
      own = await takeOwnAsTheirs(deps, rec, setAside, pulled);
    } catch (e) {
      // Cut off on the way (the datastore unreachable, a cancellation): the
      // conflict stays open as it was, naming the copy set aside, if any.
      if (!state.conflicts.get(path)) {
        await reopenTheirs(deps, rec, setAside, before).catch(() => {});
      }
      throw e;
    }
    if (own) return own;
    let gone: string | undefined;
    try {
      gone = await theirsGone(deps, rec);
    } catch (e) {
      if (!state.conflicts.get(path)) {
        await reopenTheirs(deps, rec, setAside, before).catch(() => {});
      }
      throw e;
    }
    // A record of the path another process saved during these looks at the
    // datastore is as one saved while the pull ran: not done.
    if (await recordedSince(deps, path, here, setAside)) meanwhile = true;
    else if (gone !== undefined) {
      // What a pull gives for the path is taken: nothing, the copy kept aside.
      await state.conflicts.release(rec, setAside);
      return {
        path,
        resolution,
        resolved: true,
        theirsGone: gone,
        setAside: setAside.filter((l) => cache.exists(l)),
        conflicts: [],
        pull: pulled,
      };
    }
  }
  if (resolved && rec.theirs === null) {
    try {
      await withdrawOwnOverDeletion(deps, rec, setAside, here?.hash);
    } catch (e) {
      await reopenTheirs(deps, rec, setAside, before).catch(() => {});
      throw e;
    }
    // A record of the path another process saved during that look at the
    // datastore is as one saved while the pull ran: not done.
    if (await recordedSince(deps, path, here, setAside)) [resolved, meanwhile] = [false, true];
  }
  // Not taken, and no new conflict recorded by the pull: this one stays open.
  if (!resolved && !state.conflicts.get(path)) await reopenTheirs(deps, rec, setAside, before);
  await keepAsideNamed(deps, rec, setAside);
  // Fetched and checked against the index: the store holds theirs, so no
  // upload of this cache's is left there to settle (a push that met the
  // conflict may have recorded one). A copy already equal to theirs is
  // taken without reading the store: its record stays for the next push.
  if (resolved && pulled.fetched.includes(path)) await state.settleAttempted([path]);
  if (resolved) await state.conflicts.release(rec, setAside);
  // Theirs recorded as another client's entry (`~…`, no object version)
  // is the same copy when the bytes are (its hash).
  const got = state.synced(path);
  const took = got?.version ?? null;
  const same = !!rec.theirs && !!got && rec.theirs.version.startsWith("~") &&
    rec.theirs.hash !== "" && got.hash === rec.theirs.hash;
  const newer = resolved && !same && took !== (rec.theirs?.version ?? null);
  return {
    path,
    resolution,
    resolved,
    ...(newer ? { tookNewer: took } : {}),
    // Only the copies still aside (one put back where theirs was not taken is in place).
    setAside: setAside.filter((l) => cache.exists(l)),
    conflicts: !resolved && meanwhile && state.conflicts.has(path)
      ? [path]
      : pulled.conflicts.filter((p) => p === path),
    ...(meanwhile && !resolved ? { recordedMeanwhile: true } : {}),
    pull: pulled,
  };
}

/**
 * True when the directory at `path` is the datastore's side, not a change of
 * this cache's: it holds a file this cache synced (a pull brought the
 * directory a peer replaced the file by), and the datastore's index still
 * names a file under it. `--theirs` keeps it, and its pull takes what
 * changed under it, as any pull does: set aside, its files were gone here
 * while recorded as synced, local deletions that no pull brings back. A
 * directory that replaced the file here (nothing under it synced), one the
 * datastore no longer holds, or one beside a file of its name the index
 * names too (another client wrote both shapes: theirs is that file), is set
 * aside whole.
 */
async function theirsDirectory(deps: ResolveDeps, path: string): Promise<boolean> {
  const { cache, state } = deps;
  if (!deps.indexedOtherShape || !cache.holdsDirectory(path)) return false;
  const under = `${path}/`;
  if (!state.syncedPaths().some((p) => p.startsWith(under))) return false;
  if (!((await deps.indexedOtherShape(path))?.startsWith(under) ?? false)) return false;
  // A file of its name there too (another client published one beside the
  // directory): theirs is that file, which the directory here would keep
  // out; set aside whole, as a directory of this cache's own is. Told by
  // the index: an upload at the path that no index names (another clone's
  // push of a file of that name, left out at its commit as `path_blocked`)
  // is no published file, and taken for one, the directory's synced files
  // were left here as local deletions that no pull brings back.
  if (deps.indexedAt) return !(await deps.indexedAt(path));
  return (await deps.readTheirs?.(path)) == null;
}

/**
 * A `--theirs` whose copy here is theirs already, over this cache's own
 * upload (version `own`) of a resolution cut off before its commit: the
 * copy, rebased on theirs, is pushed, which writes it over that upload and
 * commits it. Theirs changed on the datastore since (another client's
 * entry no longer holding its bytes) makes it a new conflict, never a loss.
 */
async function theirsOverOwn(
  deps: ResolveDeps,
  rec: ConflictRecord,
  own: string,
): Promise<ResolveOutcome> {
  const theirs = await versionedTheirs(deps, rec);
  if (theirs === undefined) {
    return {
      path: rec.path,
      resolution: "theirs",
      resolved: false,
      setAside: [],
      conflicts: [rec.path],
    };
  }
  const r = await publishRebased(deps, rec, "theirs", theirs, []);
  return { ...r, ownUploadReplaced: own };
}

/**
 * The version of theirs `rec` recorded when the datastore no longer holds it
 * (its object deleted, or replaced by an upload no index names: another
 * writer took its upload back, putting the committed bytes back under a
 * version its cut-off commit never named, or wrote another), the pull having
 * skipped the path as uncommitted and left nothing here; undefined when the
 * store still holds that very version (an upload its writer may yet commit:
 * the conflict stays open), when something is at the path here, or when
 * theirs is another client's entry (`~…`), whose version names no object.
 * Theirs gone, no resolution can take it: what a pull gives is the
 * datastore's side now, as a fresh clone sees it.
 */
async function theirsGone(deps: ResolveDeps, rec: ConflictRecord): Promise<string | undefined> {
  const theirs = rec.theirs;
  if (!theirs || theirs.version.startsWith("~") || !deps.heldAt) return undefined;
  if (deps.cache.exists(rec.path)) return undefined;
  return (await deps.heldAt(rec.path)) === theirs.version ? undefined : theirs.version;
}

/**
 * Theirs is a deletion, taken; the datastore may still hold this cache's own
 * upload at the path, named by no index (a `--mine` or `--merged` of this
 * conflict cut off before its commit). That upload is no one's version: it
 * is taken off the datastore (only that very version), so that no peer's
 * write of the path waits on it, and its bytes are kept in the set-aside
 * area, unless the copy set aside here already holds them (`keptHash`).
 */
async function withdrawOwnOverDeletion(
  deps: ResolveDeps,
  rec: ConflictRecord,
  setAside: string[],
  keptHash: string | undefined,
): Promise<void> {
  const { cache } = deps;
  if (!deps.takeBackOwn || !deps.withdrawOwn || cache.exists(rec.path)) return;
  const took = await deps.takeBackOwn(rec.path, undefined);
  if (!took) return;
  if (took.hash === keptHash) await cache.remove(rec.path);
  else {
    setAside.push(
      await cache.setAside(
        rec.path,
        "resolve --theirs: this cache's own upload, cut off before its commit, taken off the datastore (theirs is a deletion)",
      ),
    );
  }
  await cache.removeEmptyParents(rec.path);
  await deps.withdrawOwn(rec.path, took.version);
}

/**
 * A `--theirs` whose pull met, instead of theirs, this cache's own upload
 * over it (a `--mine` or `--merged` of this conflict cut off before its
 * commit: the index still names theirs, whose bytes the upload replaced).
 * Theirs is no longer on the datastore to take; what it holds is that
 * upload, so it is taken: streamed into the cache (any copy at the path set
 * aside first) and committed as the path's version, the resolution the cut
 * off one began. `null` when the object is not this cache's own (another
 * writer's upload in flight: the caller leaves the conflict open).
 */
async function takeOwnAsTheirs(
  deps: ResolveDeps,
  rec: ConflictRecord,
  setAside: string[],
  pulled: PullResult,
): Promise<ResolveOutcome | null> {
  const { cache } = deps;
  const path = rec.path;
  if (!deps.takeBackOwn) return null;
  // Read once: what is at the path goes aside only once the object is known to be this cache's own.
  const took = await deps.takeBackOwn(path, rec.theirs?.version, async () => {
    if (cache.exists(path)) {
      setAside.push(await cache.setAside(path, "resolve --theirs: the local copy was replaced"));
    }
  });
  if (!took) return null;
  const theirs = await versionedTheirs(deps, rec);
  if (theirs === undefined) {
    await keepAsideNamed(deps, rec, setAside);
    return {
      path,
      resolution: "theirs",
      resolved: false,
      setAside,
      conflicts: [path],
      pull: pulled,
    };
  }
  const r = await publishRebased(deps, rec, "theirs", theirs, setAside);
  return { ...r, ownUpload: took.version, pull: pulled };
}

/**
 * A `--theirs` that did not take theirs (its pull failed, was blocked, or met
 * an upload no index names): the conflict stays open as it was, or as a
 * newer record of it saved since says. The copy it
 * set aside goes back to the path where nothing took its place (its synced
 * version and dirty mark back too); else the record names it where it is
 * now, so that a later `--mine` publishes that copy, never what a pull put
 * at the path meanwhile.
 */
async function reopenTheirs(
  deps: ResolveDeps,
  rec: ConflictRecord,
  setAside: readonly string[],
  before: { synced: ReturnType<SyncState["synced"]>; dirty: boolean },
): Promise<void> {
  const { cache, state } = deps;
  // A record of the path saved since the resolution cleared `rec` (another
  // process's newer conflict, kept by the clear or saved while the pull
  // ran, or one its pull found) is newer: it stays, never written over by
  // `rec`, and names the copies `rec` named and those set aside on the way
  // too. The copy moved from the path stays aside, where that record names
  // it (see `namedWhereMoved`). One saved after this look stays too (see
  // `ConflictSet.reopen`).
  await state.conflicts.takeIn();
  const moved = rec.mine?.location === rec.path ? setAside[0] : undefined;
  if (state.conflicts.has(rec.path)) {
    const at = moved === undefined ? null : await cache.hashFile(moved).catch(() => null);
    if (at && moved !== undefined) {
      await namedWhereMoved(deps, rec.path, { location: moved, ...at });
    }
    return await keepAsideNamed(deps, rec, setAside);
  }
  if (moved !== undefined && !cache.exists(rec.path) && cache.putBack(moved)) {
    state.setSynced(rec.path, before.synced);
    await state.saveManifest();
    if (before.dirty) await state.markDirty(rec.path);
    await state.conflicts.reopen([rec]);
    await keepAsideNamed(deps, rec, setAside.slice(1));
    return;
  }
  const at = moved === undefined ? null : await cache.hashFile(moved).catch(() => null);
  const open: ConflictRecord = at && moved !== undefined
    ? { ...rec, mine: { location: moved, hash: at.hash, size: at.size } }
    : rec;
  await state.conflicts.reopen([open]);
  await keepAsideNamed(deps, open, setAside.filter((l) => l !== open.mine?.location));
}
