/**
 * The pull's look at the copies here: whether one changed since this cache
 * last synced it, the hash of a copy this cache never synced (asking once
 * per missing directory), and a path this process may not read or that is
 * a symbolic link (or lies under one), which is left out with a warning:
 * never taken for a deletion here, nor fetched over.
 *
 * @module
 */
import { UnreadablePathError, UnsafePathError } from "../errors.ts";
import type { SluiceEmitter } from "../events.ts";
import { LINK_REFUSED, type LocalCache } from "../transfer/cache.ts";
import type { SyncState } from "./state.ts";
import { UNCOMMITTED_WARNINGS } from "./pull_result.ts";
import { isOwnVersionKept } from "./pull_removals.ts";

/** What the probes need: the cache, its state, the dirty set, and where to tell of paths left out. */
export interface LocalSideDeps {
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly dirty: ReadonlySet<string>;
  readonly events: SluiceEmitter;
  /** Paths left out as unreadable (the pull's result). */
  readonly unreadable: string[];
  /** Paths left out as symbolic links, or under one (the pull's result). */
  readonly links: string[];
}

/** The pull's probes of the copies here (see the module). */
export function localSide(deps: LocalSideDeps) {
  const { cache, state, dirty, events } = deps;
  // A local change is anything that differs from what this cache last
  // synced (the manifest's hash), marked dirty or not: a hand edit, or the
  // deletion of a synced file; so is the copy an open conflict names at its
  // path. The pull neither overwrites nor removes one.
  // A file without a manifest entry (never synced, or the manifest was lost)
  // cannot be told from a stale copy: a dirty mark keeps it, otherwise it is
  // set aside before the datastore's copy is taken.
  const compare = async (path: string) => {
    const s = state.synced(path);
    const hash = () => cache.hashFile(path).catch(unlessLeftOut);
    if (!s) {
      if (!dirty.has(path)) return UNCHANGED;
      const local = await hash();
      // A mark on a path never synced with nothing here (the tool marks
      // before it writes, and a write may never come) is no deletion here:
      // there is nothing of this cache's to keep, and the datastore's copy
      // is taken.
      if (local === null && !cache.exists(path)) return UNCHANGED;
      return { changed: true, local };
    }
    const st = await cache.stat(path).catch(unlessLeftOut);
    // Deleted here (or a directory now: a link is thrown on, never a deletion).
    if (!st) return { changed: true, local: null };
    if (s.size !== st.size) return { changed: true, local: await hash() };
    // The bytes decide, not the mtime: only paths the datastore changed get
    // here, and an edit within the filesystem's timestamp tick after the last
    // sync keeps both size and mtime.
    const local = await hash();
    if (local === null || local.hash !== s.hash) return { changed: true, local };
    // The copy an open conflict names here, as it was recorded: a change
    // all the same, though it holds the synced bytes (a merge of theirs'
    // bytes, rebased on theirs by its resolution, which then met a newer
    // version of theirs). Written over, it would be neither here nor set
    // aside, and the conflict would name a copy that is gone.
    // (Not a data version this cache published, kept over the datastore's
    // deletion: it holds the synced bytes as they were, and meets a later
    // version there as any synced copy of a data version does, set aside.
    // A file the datastore lost, kept as the last copy, is such a change.)
    const open = state.conflicts.get(path);
    return open && !isOwnVersionKept(open.reason) && open.mine?.location === path &&
        open.mine.hash === local.hash
      ? { changed: true, local }
      : UNCHANGED;
  };
  const changedLocally = async (path: string) => {
    try {
      return (await compare(path)).changed;
    } catch (err) {
      // A link now: changed here all the same, never written over.
      if (err instanceof UnsafePathError) return true;
      throw err;
    }
  };
  // Directories found missing while planning: nothing under them is a local
  // copy (a cold pull then asks once per directory, not once per file).
  // Forgotten once the plan is made (`planned`): a user may make one while
  // the pull fetches, and a file saved there is then a change here.
  const missingDirs = new Set<string>();
  let planning = true;
  const planned = () => {
    planning = false;
    missingDirs.clear();
  };
  const missing = (dir: string) => {
    try {
      return !cache.exists(dir);
    } catch {
      return false; // not known to be missing
    }
  };
  const localCopy = async (path: string) => {
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      if (missingDirs.has(path.slice(0, i))) return null;
    }
    const local = await cache.hashFile(path).catch(unlessLeftOut);
    const slash = path.lastIndexOf("/");
    if (local || !planning || slash === -1 || !missing(path.slice(0, slash))) return local;
    // The parent is missing: remember the topmost missing directory.
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      if (missing(path.slice(0, i))) {
        missingDirs.add(path.slice(0, i));
        break;
      }
    }
    return null;
  };
  /**
   * Leaves out, with a warning, a path this process may not read (the file,
   * or a directory on its way), or a symbolic link (at the path or on its
   * way, which is present, not a regular file): never taken for a deletion,
   * nor fetched over. Returns true for such an error, false for any other.
   */
  const leftOut = (path: string, e: unknown): boolean => {
    if (e instanceof UnsafePathError) {
      deps.links.push(path);
      if (deps.links.length <= UNCOMMITTED_WARNINGS) {
        events.emit("warning", {
          code: "path_skipped",
          message:
            `${path} was not pulled: it is a symbolic link or lies under one, so the datastore's copy was neither compared with it nor written over it, and it was not taken for a deletion. It was kept as it is. ${LINK_REFUSED}.`,
          path,
        });
      }
      return true;
    }
    if (!(e instanceof UnreadablePathError)) return false;
    deps.unreadable.push(path);
    if (deps.unreadable.length <= UNCOMMITTED_WARNINGS) {
      events.emit("warning", {
        code: "path_skipped",
        message:
          `${path} was not pulled: this process may not read the local copy (permission denied), so it cannot be compared with the datastore's. It was kept as it is; make it readable and run the pull again.`,
        path,
      });
    }
    return true;
  };
  /**
   * Whether the copy here changed since the last sync, with its hash when
   * it did (null: none readable); null when it may not be read, or is a
   * symbolic link (left out).
   */
  const probeHere = async (path: string) => {
    try {
      return await compare(path);
    } catch (err) {
      if (leftOut(path, err)) return null;
      throw err;
    }
  };
  return { changedLocally, localCopy, leftOut, probeHere, planned };
}

/** A copy as this cache last synced it. */
const UNCHANGED = { changed: false, local: null } as const;

/**
 * For `.catch`: null for a failed local read, but a path this process may
 * not read, or a symbolic link (or a path under one), is thrown on: either
 * is present, never an absent file.
 */
function unlessLeftOut(e: unknown): null {
  if (e instanceof UnreadablePathError || e instanceof UnsafePathError) throw e;
  return null;
}
