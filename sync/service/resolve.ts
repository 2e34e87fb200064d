/**
 * Resolving a conflict (see `conflicts.ts`): one outcome per resolution,
 * each a compare-and-swap on the version of theirs the conflict recorded, so
 * that a third writer in between turns into a new conflict, never a loss.
 *
 * - `mine`: publish this cache's copy over theirs. A copy set aside by a
 *   pull is first put back in place (whatever is there is set aside when it
 *   is neither side). A deletion deletes theirs, conditional on its version,
 *   only when the conflict recorded mine as one: a file recorded and gone
 *   since is refused (`not_found`).
 * - `merged`: publish what the cache holds at the path now (a merge made by
 *   hand), over theirs. With nothing at the path it is refused (`not_found`):
 *   a deletion is published only by `mine`, when mine is one.
 * - `theirs`: take the datastore's copy. The local copy is set aside first
 *   (never deleted), then the path is pulled.
 *
 * Publishing rebases the path on theirs (the synced manifest then names
 * theirs, so every gate's compare-and-swap is on theirs) and runs the push
 * of that one path through the whole pipeline.
 *
 * @module
 */
import type { LocalCache } from "../transfer/cache.ts";
import {
  type ConflictRecord,
  type LocalSide,
  type RemoteSide,
  type Resolution,
  resolveHint,
  setAsideCopies,
} from "./conflicts.ts";
import { LocalChangedError } from "../transfer/file_identity.ts";
import { AbortedError, SluiceError, VersionConflictError } from "../errors.ts";
import { isManagedLockfilePath } from "../locks/lockfile_txn.ts";
import type { PullResult } from "./pull.ts";
import type { PushResult } from "./push.ts";
import type { SyncState } from "./state.ts";
import { shellWord } from "../shell_word.ts";
import {
  indexedShapeReader,
  ownUploadTaker,
  theirsReader,
  versionedTheirs,
} from "./resolve_reads.ts";
import { forgetVanished } from "./vanished_record.ts";
import { REWRITTEN_WHY } from "./pull_plan.ts";
import type { ObjectStore } from "../ports.ts";
import type { SyncConfig } from "../context.ts";
import {
  assertPublishable,
  mineGone,
  noConflict,
  noMerge,
  refuseShapeClash,
  refuseUnmerged,
  ResolveRefusedError,
  rewrittenVersion,
  shapeClash,
} from "./resolve_refusals.ts";

export { indexedShapeReader, ownUploadTaker, theirsReader } from "./resolve_reads.ts";
export { ResolveRefusedError } from "./resolve_refusals.ts";

/** What a resolution did. */
export interface ResolveResult {
  readonly path: string;
  readonly resolution: Resolution;
  /** True when the conflict is gone; false when a newer version of theirs made it a new conflict. */
  readonly resolved: boolean;
  /** The version published (`mine`, `merged`), when a file was written. */
  readonly published?: string;
  /**
   * `theirs`: the version taken, when it is not the one the conflict
   * recorded (the datastore's copy changed again since; or `null`, deleted
   * since): theirs is what the datastore holds now.
   */
  readonly tookNewer?: string | null;
  /**
   * `theirs`: the version of this cache's own upload the datastore held
   * instead of theirs (a resolution cut off before its commit had written
   * it over theirs), taken into the cache and published as the path's
   * version (`published`, `push`): theirs was no longer there to take.
   */
  readonly ownUpload?: string;
  /** True when the resolution deleted theirs on the datastore. */
  readonly deleted?: boolean;
  /** Where a local copy was set aside (cache-relative), if one was. */
  readonly setAside: string[];
  /** Unresolved conflicts of this path after the resolution (empty when resolved). */
  readonly conflicts: string[];
  /** The push that published (`mine`, `merged`). */
  readonly push?: PushResult;
  /** The pull that took theirs (`theirs`). */
  readonly pull?: PullResult;
}

/** What a resolution needs from the service (its own pushes and pulls, serialised by the caller). */

export interface ResolveDeps {
  readonly cache: LocalCache;
  readonly state: SyncState;
  /** Pushes exactly these paths through the pipeline. */
  pushOnly(paths: readonly string[]): Promise<PushResult>;
  /** Pulls these prefixes. */
  pull(prefixes: readonly string[]): Promise<PullResult>;
  /**
   * Reads the datastore's object at a path (streamed, hashed as it comes):
   * its version, SHA-256 and size, or null when there is none. Used for a
   * conflict whose theirs is another client's entry, which records no
   * object version to compare-and-swap on.
   */
  readTheirs?(path: string): Promise<(RemoteSide & { readonly own: boolean }) | null>;
  /**
   * Streams the datastore's object at `path` into the cache at `path` when
   * it is this cache's own upload (its writer id) and not version `theirs`,
   * returning what was written; null, with nothing written, otherwise (see
   * {@link ownUploadTaker}).
   */
  takeBackOwn?(path: string, theirs: string | undefined): Promise<RemoteSide | null>;
  /** Drops `path` from the datastore's record of lost files (`vanished_record.ts`). */
  forgetLost?(path: string): Promise<void>;
  /**
   * A path of the other shape of `path`'s name that the datastore's index
   * names now (a file above it, or a file under a directory of its name),
   * if any: see {@link indexedShapeReader}.
   */
  indexedOtherShape?(path: string): Promise<string | undefined>;
}

/**
 * {@link ResolveDeps} of a service over `service.store`: theirs read from
 * the store, the index around a path for its other shape, and the record
 * of lost files, with the service's own push and pull (`run`).
 *
 * @example
 * ```ts
 * import { storeResolveDeps } from "./resolve.ts";
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * const deps = storeResolveDeps(svc, {
 *   pushOnly: (paths) => svc.pushChanged({ only: paths }),
 *   pull: (prefixes) => svc.pullChanged({ prefixes }),
 * });
 * console.log(typeof deps.readTheirs); // "function"
 * ```
 */
export function storeResolveDeps(
  service: {
    readonly store: ObjectStore;
    readonly cache: LocalCache;
    readonly state: SyncState;
    readonly config: Pick<SyncConfig, "retry" | "concurrency">;
  },
  run: Pick<ResolveDeps, "pushOnly" | "pull">,
  signal?: AbortSignal,
): ResolveDeps {
  const { store, cache, state, config } = service;
  return {
    cache,
    state,
    ...run,
    readTheirs: theirsReader(store, cache, config.retry, signal),
    takeBackOwn: ownUploadTaker(store, cache, config.retry, signal),
    forgetLost: (p) => forgetVanished(store, [p], config.retry, signal),
    indexedOtherShape: indexedShapeReader(store, config.retry, config.concurrency, signal),
  };
}

/** Puts a set-aside copy of mine back in place; returns where the displaced local copy went. */
async function restoreMine(
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
  if (here && here.hash !== rec.theirs?.hash && here.hash !== mine.hash) {
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
 * Resolves the conflict of `path` with `resolution`.
 *
 * @example
 * ```ts
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * // after a pull or push reported a conflict of config/a.yaml:
 * // await svc.resolveConflict("config/a.yaml", "merged");
 * ```
 */
export async function resolveConflict(
  deps: ResolveDeps,
  path: string,
  resolution: Resolution,
): Promise<ResolveResult> {
  const { cache, state } = deps;
  const rec = state.conflicts.get(path);
  if (!rec) throw noConflict(path);
  const setAside: string[] = [];
  if (resolution === "theirs") {
    const here = await cache.hashFile(path);
    if (here && here.hash !== rec.theirs?.hash) {
      setAside.push(await cache.setAside(path, "resolve --theirs: the local copy was replaced"));
    } else if (!here && cache.exists(path)) {
      setAside.push(await cache.setAside(path, "resolve --theirs: not a regular file"));
    }
    // A directory the copy leaves empty would be in the way of a file of its
    // name that theirs may be (a peer made a directory a file).
    if (setAside.length > 0) await cache.removeEmptyParents(path);
    // Forgotten, then pulled: a path this cache never synced takes the datastore's copy.
    const before = { synced: state.synced(path), dirty: state.dirtyPaths().includes(path) };
    state.setSynced(path, undefined);
    await state.clean([path]);
    await state.conflicts.clear([path]);
    let pulled: PullResult;
    try {
      pulled = await deps.pull([path]);
    } catch (e) {
      await reopenTheirs(deps, rec, setAside, before).catch(() => {});
      throw e;
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
        } conflict stays open and nothing else was changed. Run \`sluice status\` to see what is in the way, move it aside or resolve its own conflict first, then run this again.`,
      );
    }
    // Not taken when the store's object is not the one the index names
    // (a push in flight, or a stopped one's upload over theirs).
    const resolved = !pulled.conflicts.includes(path) && !pulled.uncommitted.includes(path);
    if (!resolved && pulled.uncommitted.includes(path) && !state.conflicts.get(path)) {
      let own: ResolveResult | null;
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
    }
    // Not taken, and no new conflict recorded by the pull: this one stays open.
    if (!resolved && !state.conflicts.get(path)) await reopenTheirs(deps, rec, setAside, before);
    await keepAsideNamed(deps, rec, setAside);
    // Fetched and checked against the index: the store holds theirs, so no
    // upload of this cache's is left there to settle (a push that met the
    // conflict may have recorded one). A copy already equal to theirs is
    // taken without reading the store: its record stays for the next push.
    if (resolved && pulled.fetched.includes(path)) await state.settleAttempted([path]);
    if (resolved) await state.conflicts.release(rec);
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
      conflicts: pulled.conflicts.filter((p) => p === path),
      pull: pulled,
    };
  }
  if (isManagedLockfilePath(path)) {
    throw new ResolveRefusedError(
      "lockfile_guarded",
      `${path} is the managed lockfile: it is published only by its transaction, never as a file; nothing was changed. Take theirs (\`sluice resolve ${
        shellWord(path)
      } --theirs\`, your copy is set aside), then re-apply your entries with \`sluice lockfile add <name> '<entry JSON>'\` (or \`sluice lockfile remove <name>\`).`,
    );
  }
  // A data version published again by another writer: never written over.
  if (rec.reason === REWRITTEN_WHY && rec.theirs) throw rewrittenVersion(rec, resolution);
  if (resolution === "merged" && !cache.exists(path)) throw noMerge(rec);
  if (resolution === "mine" && rec.mine?.location === path && !cache.exists(path)) {
    // Said when theirs is no longer on the datastore either: this cache's
    // own upload replaced it (a resolution cut off before its commit).
    const held = await deps.readTheirs?.(path).catch(() => null);
    throw mineGone(
      rec,
      held?.own && held.version !== rec.theirs?.version ? held.version : undefined,
    );
  }
  if (resolution === "merged") await refuseUnmerged(deps, rec);
  if (resolution === "merged" || !rec.mine || rec.mine.location === path) {
    // A deletion of yours with a directory of its name here (the file
    // replaced by one): the push of the name deletes the file on the
    // datastore and publishes the directory's files, as a push of it does.
    const deletionByDirectory = resolution === "mine" && !rec.mine &&
      deps.cache.holdsDirectory(path);
    if (!deletionByDirectory) await assertPublishable(deps, path, resolution);
  }
  const theirs = await versionedTheirs(deps, rec);
  if (theirs === undefined) {
    return { path, resolution, resolved: false, setAside, conflicts: [path] };
  }
  // As the push will see it, rebased on theirs.
  refuseShapeClash(state, path, resolution, (p) => p === path ? !!theirs : !!state.synced(p));
  // Theirs a deletion, and a file of yours to publish: a peer may have put
  // the other shape of its name on the datastore since (a directory of that
  // name, or a file above it), which no pull of this cache has met yet. The
  // push would upload the file and its commit leave it out, an object no
  // index names; refused first, with the conflict open.
  if (theirs === null && (rec.mine || resolution === "merged") && deps.indexedOtherShape) {
    const other = await deps.indexedOtherShape(path);
    if (other !== undefined) {
      throw shapeClash(path, resolution, other, "published since this cache last pulled");
    }
  }
  if (resolution === "mine") await restoreMine(deps, rec, setAside);
  return await publishRebased(deps, rec, resolution, theirs, setAside);
}

/**
 * Publishes what the cache holds at the conflict's path, rebased on
 * `theirs`: every compare-and-swap of the push is then on the version the
 * user saw. The conflict is released once it lands.
 */
async function publishRebased(
  deps: ResolveDeps,
  rec: ConflictRecord,
  resolution: Resolution,
  theirs: RemoteSide | null,
  setAside: string[],
): Promise<ResolveResult> {
  const { state } = deps;
  const path = rec.path;
  state.setSynced(
    path,
    theirs ? { hash: theirs.hash, version: theirs.version, size: theirs.size } : undefined,
  );
  await state.markDirty(path);
  await state.saveManifest();
  await state.conflicts.clear([path]);
  const pushed = await keptOpenOnFailure(
    deps,
    rec,
    resolution,
    setAside,
    () => deps.pushOnly([path]),
  );
  await keepAsideNamed(deps, rec, setAside);
  const conflicts = pushed.conflicts.filter((p) => p === path);
  const resolved = conflicts.length === 0 &&
    !pushed.skipped.some((s) => s.path === path && s.keepDirty);
  if (resolved) await state.conflicts.release(rec);
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
    push: pushed,
  };
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
): Promise<ResolveResult | null> {
  const { cache } = deps;
  const path = rec.path;
  if (!deps.readTheirs || !deps.takeBackOwn) return null;
  const held = await deps.readTheirs(path);
  if (!held?.own || held.version === rec.theirs?.version) return null;
  if (cache.exists(path)) {
    setAside.push(await cache.setAside(path, "resolve --theirs: the local copy was replaced"));
  }
  const took = await deps.takeBackOwn(path, rec.theirs?.version);
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
 * an upload no index names): the conflict stays open as it was. The copy it
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
  const moved = rec.mine?.location === rec.path ? setAside[0] : undefined;
  if (moved !== undefined && !cache.exists(rec.path) && cache.putBack(moved)) {
    state.setSynced(rec.path, before.synced);
    await state.saveManifest();
    if (before.dirty) await state.markDirty(rec.path);
    await state.conflicts.record([rec]);
    await keepAsideNamed(deps, rec, setAside.slice(1));
    return;
  }
  const at = moved === undefined ? null : await cache.hashFile(moved).catch(() => null);
  const open: ConflictRecord = at && moved !== undefined
    ? { ...rec, mine: { location: moved, hash: at.hash, size: at.size } }
    : rec;
  await state.conflicts.record([open]);
  await keepAsideNamed(deps, open, setAside.filter((l) => l !== open.mine?.location));
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
async function keptOpenOnFailure<T>(
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
async function keepAsideNamed(
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

export { resolveHint };
