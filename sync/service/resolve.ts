/**
 * Resolving a conflict (see `conflicts.ts`): one outcome per resolution,
 * each a compare-and-swap on the version of theirs the conflict recorded, so
 * that a third writer in between turns into a new conflict, never a loss.
 *
 * - `mine`: publish this cache's copy over theirs. A copy set aside by a
 *   pull is first put back in place (whatever is there is set aside when it
 *   is neither side). A deletion deletes theirs, conditional on its version,
 *   only when the conflict recorded mine as one: a file recorded and gone
 *   since is refused (`not_found`), but where a file of this cache's own
 *   replaced its directory (this cache's shape: the deletion is published,
 *   and that file with it where nothing else synced is under it; so too
 *   for a copy a pull set aside before that file replaced the directory,
 *   the copy staying in the set-aside area). A
 *   deletion of a data version file whose `latest` marker here names its
 *   version is refused (`version_under_marker`): no push deletes it. So is
 *   one whose committed marker names it while the marker here, naming
 *   another, cannot be published in its place (`resolve_marker_hold.ts`).
 * - `merged`: publish what the cache holds at the path now (a merge made by
 *   hand), over theirs. With nothing at the path it is refused (`not_found`):
 *   a deletion is published only by `mine`, when mine is one.
 * - `theirs`: take the datastore's copy. The local copy is set aside first
 *   (never deleted), or a file of this cache's own that replaced its
 *   directory, then the path is pulled.
 *
 * Publishing rebases the path on theirs (the synced manifest then names
 * theirs, so every gate's compare-and-swap is on theirs) and runs the push
 * of that one path through the whole pipeline.
 *
 * @module
 */
import type { LocalCache } from "../transfer/cache.ts";
import { type RemoteSide, type Resolution, resolveHint } from "./conflicts.ts";
import { UnreachableError } from "../errors.ts";
import { withRetry } from "../retry.ts";
import { isManagedLockfilePath } from "../locks/lockfile_txn.ts";
import type { PullResult } from "./pull.ts";
import type { ResolvingTheirs } from "./pull_warnings.ts";
import type { PushResult } from "./push.ts";
import type { LeftBehind } from "../left_behind.ts";
import { leftBehindOf } from "./resolve_left.ts";
import type { SyncState } from "./state.ts";
import { shellWord } from "../shell_word.ts";
import {
  indexedPathReader,
  indexedShapeReader,
  ownFileAbove,
  ownUploadLooker,
  ownUploadTaker,
  theirsReader,
  versionedTheirs,
} from "./resolve_reads.ts";
import { forgetVanished } from "./vanished_record.ts";
import { publishRebased, restoreMine } from "./resolve_publish.ts";
import { resolveTheirs } from "./resolve_theirs.ts";
import { REWRITTEN_WHY } from "./pull_plan.ts";
import type { ObjectStore } from "../ports.ts";
import { deleteAt } from "../transfer/object_ops.ts";
import type { SyncConfig } from "../context.ts";
import { VERSION_UNDER_MARKER } from "../version_marker.ts";
import { type MarkerHold, markerHoldReader } from "./resolve_marker_hold.ts";
import {
  assertPublishable,
  deletionUnderCommittedMarker,
  deletionUnderMarker,
  mineGone,
  noConflict,
  noMerge,
  refuseShapeClash,
  refuseSyncedInPlace,
  refuseUnmerged,
  ResolveRefusedError,
  rewrittenVersion,
  shapeClash,
} from "./resolve_refusals.ts";

export {
  indexedPathReader,
  indexedShapeReader,
  ownUploadTaker,
  theirsReader,
} from "./resolve_reads.ts";
export { ResolveRefusedError } from "./resolve_refusals.ts";
export { leftBehindOf, resolutionsLeftBehind } from "./resolve_left.ts";

/** What a resolution did. */
export interface ResolveResult {
  readonly path: string;
  readonly resolution: Resolution;
  /**
   * True when the conflict is gone; false when a newer version of theirs
   * made it a new conflict, or when the path was not published or taken
   * (its push held it back, theirs not taken). It says nothing of the other
   * paths the resolution's push publishes with it: see `leftBehind`.
   */
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
  /**
   * `theirs`: the version of this cache's own upload the datastore held over
   * theirs (a resolution cut off before its commit had written it there)
   * where the copy here was theirs already (copied into place by hand, say):
   * that copy was written back over the upload and committed (`published`).
   */
  readonly ownUploadReplaced?: string;
  /**
   * `theirs`: the version of theirs the conflict recorded (an upload no
   * index names, or one replaced since by such an upload) when the
   * datastore no longer held it: what a pull gives for the path was taken
   * instead (nothing, while the store's object is not the one its index
   * names), this cache's copy kept aside.
   */
  readonly theirsGone?: string;
  /** True when the resolution deleted theirs on the datastore. */
  readonly deleted?: boolean;
  /** Where a local copy was set aside (cache-relative), if one was. */
  readonly setAside: string[];
  /** Unresolved conflicts of this path after the resolution (empty when resolved). */
  readonly conflicts: string[];
  /**
   * True when another process over the cache recorded a newer conflict of
   * the path (a newer version of theirs, a copy set aside) after this one
   * read the conflict it resolved: that record stays open (`conflicts`),
   * with the copies of both named, and `resolved` is false.
   */
  readonly recordedMeanwhile?: boolean;
  /**
   * What the resolution left behind, as a push's or a status's answer says
   * it (`LeftBehind`): the conflicts open after it (this path's, and those
   * its push met at the paths it published with it), and every path it was
   * to publish that its push held back, kept dirty for a later push, with
   * the reason the push gave: the path itself (then `resolved` is false),
   * or a path pushed beside it, such as the `latest` marker beside a data
   * version's deletion or a file that replaced the path's directory (then
   * `resolved` may be true, the conflict gone, and not all published).
   * Theirs not taken names the path. Empty lists when nothing was left.
   */
  readonly leftBehind: LeftBehind;
  /** The push that published (`mine`, `merged`). */
  readonly push?: PushResult;
  /** The pull that took theirs (`theirs`). */
  readonly pull?: PullResult;
}

/** A resolution's answer before what it left behind is read from it (see {@link leftBehindOf}). */
export type ResolveOutcome = Omit<ResolveResult, "leftBehind">;

/** What a resolution needs from the service (its own pushes and pulls, serialised by the caller). */

export interface ResolveDeps {
  readonly cache: LocalCache;
  readonly state: SyncState;
  /** Pushes exactly these paths through the pipeline. */
  pushOnly(paths: readonly string[]): Promise<PushResult>;
  /**
   * Pulls these prefixes; `theirs`: the path of a `--theirs` the pull is
   * run by (its warning of theirs skipped as uncommitted says what the
   * resolution does then).
   */
  pull(prefixes: readonly string[], theirs?: ResolvingTheirs): Promise<PullResult>;
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
  takeBackOwn?(
    path: string,
    theirs: string | undefined,
    before?: () => Promise<void>,
  ): Promise<RemoteSide | null>;
  /**
   * Deletes `version` of `path` from the datastore, only while it holds that
   * very version (this cache's own upload, named by no index).
   */
  withdrawOwn?(path: string, version: string): Promise<void>;
  /**
   * The version of the datastore's object at `path` when it is this cache's
   * own upload (its writer id) and not `version`; null otherwise (one look,
   * nothing read or written: see {@link ownUploadLooker}).
   */
  ownUploadOver?(path: string, version: string): Promise<string | null>;
  /** The version of the object the datastore holds at `path` (one look), null when none. */
  heldAt?(path: string): Promise<string | null>;
  /** Drops `path` from the datastore's record of lost files (`vanished_record.ts`). */
  forgetLost?(path: string): Promise<void>;
  /**
   * A path of the other shape of `path`'s name that the datastore's index
   * names now (a file above it, or a file under a directory of its name),
   * if any: see {@link indexedShapeReader}.
   */
  indexedOtherShape?(path: string): Promise<string | undefined>;
  /**
   * True when the datastore's index names `path` itself now (an upload at
   * it that no index names is no published file): see {@link indexedPathReader}.
   */
  indexedAt?(path: string): Promise<boolean>;
  /**
   * The set-aside copies the conflict of the path named as this process
   * knew it when the resolution was asked for (before it took in what other
   * processes over the cache recorded since): a `merged` over theirs that
   * would leave a copy set aside since unnamed is refused (see
   * `refuseUnmerged`). Not given: every copy counts as known.
   */
  readonly knownAside?: ReadonlySet<string>;
  /**
   * The `latest` marker, and the version of `path` it names, for which the
   * resolution's push would hold back a deletion of `path` (a data version
   * file whose marker here names its version, or whose committed marker
   * does while the push cannot publish the marker here in its place: see
   * `resolve_marker_hold.ts`); undefined when none does. Not given: the
   * push holds no deletion back so.
   */
  markerHolding?(path: string): Promise<MarkerHold | undefined>;
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
    readonly config: Pick<SyncConfig, "retry" | "concurrency"> & Partial<SyncConfig>;
    /** The push gates, by name: a deletion is held under its marker only where that gate is one. */
    readonly pushPipeline?: { has(name: string): boolean };
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
    ownUploadOver: ownUploadLooker(store, cache, config.retry, signal),
    withdrawOwn: async (p, version) => {
      await deleteAt(store, p, version, { retry: config.retry, signal });
    },
    heldAt: async (p) =>
      (await withRetry(() => store.head(p, { signal }), config.retry, signal))?.version ?? null,
    forgetLost: (p) => forgetVanished(store, [p], config.retry, signal),
    indexedOtherShape: indexedShapeReader(store, config.retry, config.concurrency, signal),
    indexedAt: indexedPathReader(store, config.retry, config.concurrency, signal),
    ...(service.pushPipeline?.has(VERSION_UNDER_MARKER)
      ? { markerHolding: markerHoldReader(service, signal) }
      : {}),
  };
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
  const r = await resolveOne(deps, path, resolution);
  return { ...r, leftBehind: leftBehindOf(r) };
}

async function resolveOne(
  deps: ResolveDeps,
  path: string,
  resolution: Resolution,
): Promise<ResolveOutcome> {
  const { cache, state } = deps;
  const rec = state.conflicts.get(path);
  if (!rec) throw noConflict(path);
  const setAside: string[] = [];
  if (resolution === "theirs") return await resolveTheirs(deps, rec);
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
  // Your copy gone with its directory, a file of that name made here in its
  // place (never synced, or changed since its record): mine is this cache's
  // shape, the deletion of the path there with that file published. So too
  // where a pull had set your copy aside for theirs and the file replaced
  // the directory since: there is no way back for the copy under the file,
  // and the push's hold of the file names --mine as that deletion. The copy
  // stays in the set-aside area.
  const above = resolution === "mine" && rec.mine && !cache.exists(path)
    ? await ownFileAbove(deps, path)
    : undefined;
  if (
    (resolution === "merged" || (resolution === "mine" && rec.mine?.location === path)) &&
    !cache.exists(path) && above === undefined
  ) {
    // Said when theirs is no longer on the datastore either: this cache's
    // own upload replaced it (a resolution cut off before its commit).
    const held = await deps.readTheirs?.(path).catch(() => null);
    const ownUpload = held?.own && held.version !== rec.theirs?.version ? held.version : undefined;
    if (resolution === "merged" && ownUpload === undefined) throw noMerge(rec);
    throw mineGone(rec, ownUpload);
  }
  if (resolution === "mine" && above === undefined) await refuseSyncedInPlace(deps, rec);
  // Mine a deletion of a data version file whose marker here names its
  // version, or whose committed marker does where the marker here cannot be
  // published in its place: the push would hold it back, the conflict gone
  // and nothing published (no --theirs left to take then). Refused first.
  const deletion = above !== undefined ||
    (rec.mine === null && cache.fileGone(path));
  if (resolution === "mine" && rec.theirs && deletion && deps.markerHolding) {
    const held = await deps.markerHolding(path);
    if (held?.here !== undefined) {
      throw deletionUnderCommittedMarker(rec, held.marker, held.n, held.here, held.open);
    }
    if (held) throw deletionUnderMarker(rec, held.marker, held.n);
  }
  if (resolution === "merged") await refuseUnmerged(deps, rec);
  if (above === undefined && (resolution === "merged" || !rec.mine || rec.mine.location === path)) {
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
  if (
    theirs === null && above === undefined && (rec.mine || resolution === "merged") &&
    deps.indexedOtherShape
  ) {
    const other = await deps.indexedOtherShape(path);
    if (other !== undefined) {
      throw shapeClash(path, resolution, other, "published since this cache last pulled");
    }
  }
  if (resolution === "mine" && above === undefined) await restoreMine(deps, rec, setAside);
  // The file above published with the deletion, where no other synced file
  // under its directory is left for that push to delete (else a push of its
  // name, as the push's hold of it says, is the user's to make).
  const also = above !== undefined &&
      state.syncedPaths().every((p) => p === path || !p.startsWith(`${above}/`))
    ? [above]
    : [];
  return await publishRebased(deps, rec, resolution, theirs, setAside, also);
}

export { resolveHint };

/**
 * What a resolution cut off part way (the datastore unreachable) throws:
 * where the conflict is still open (`open`), the same error, saying the
 * conflict stays open and the resolution is what to run again (a plain sync
 * leaves the path out while it is); any other error as it is.
 */
export function resolutionCutOff(
  e: unknown,
  path: string,
  resolution: Resolution,
  open: boolean,
): unknown {
  if (!(e instanceof UnreachableError) || !open) return e;
  return new UnreachableError(e.detail, {
    cause: e,
    next:
      `the conflict on ${path} stays open, and your copy stays in the cache; run \`sluice resolve ${
        shellWord(path)
      } --${resolution}\` again once the datastore is reachable`,
  });
}
