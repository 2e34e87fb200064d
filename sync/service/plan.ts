/**
 * The push plan: which paths a push puts, deletes or skips, from the dirty
 * set and, after a bulk mark, a walk of the cache ({@link buildPlan}).
 *
 * @module
 */
import { directoriesOf } from "../paths.ts";
import { UNREADABLE_REASON, UnreadablePathError, UnsafePathError } from "../errors.ts";
import { isInternalPath, isSafeRelPath, sortedHasUnder } from "../paths.ts";
import {
  LINK_REFUSED,
  type LocalCache,
  NOT_REGULAR_REFUSED,
  walkFiles,
} from "../transfer/cache.ts";
import type { WalkedFile } from "../transfer/cache_walk.ts";
import { isLayoutInternal, markerOfVersionFile } from "../transfer/bucket_layout.ts";
import { settledAt, type SyncState } from "./state.ts";
import { unchangedSince } from "./synced_time.ts";
import type { ClassifierRule, PlanEntry } from "../context.ts";
import type { ProgressEvent } from "../events.ts";
import { isLeftTempPath } from "./left_temps.ts";

/** What a hash of a file this process may not read gives. */
const UNREADABLE = Symbol("unreadable");

/** Why a walk checks a path it has nothing to push for (see `strandedCheck`). */
export const STRANDED_REASON =
  "an earlier push was about to write it and no commit of it followed (the push stopped, or the file was set aside); this push checks what the store holds there and settles it";

/** Why a push passes over a path named to it with nothing there that this cache never synced. */
export const NOTHING_HERE_REASON =
  "nothing is at it in the cache and this cache never synced it, so there is nothing to publish or delete there (moved or removed before the push; an upload of this cache's that an earlier push left there is withdrawn)";

/**
 * Builds plan entries from the dirty set and, after a bulk mark, a walk of the
 * cache. A dirty path that is a directory (or a removed one) stands for every
 * path under it, and for the deletion of a synced file it replaced; a dirty
 * file that replaced a synced directory stands for the deletion of the synced
 * files under it too (and for the writes an earlier push made under it
 * without committing them); such paths are added to `expandedDirs`, so that the commit
 * cleans them once everything under them is handled.
 *
 * A planned deletion of a data version's file takes the version's `latest`
 * marker along when this cache changed or removed it since its sync, marked
 * or not (see `addMarkersOfDeletions`).
 *
 * A walk never plans a deletion (a wiped or partly restored cache must never
 * empty the bucket): the synced paths it finds gone from the cache (or
 * replaced by a directory of the same name), and not planned otherwise, are
 * added to `deletedHere` instead, so that the push can
 * say they were not deleted remotely.
 *
 * A walk hashes the files whose size or mtime changed since they were
 * synced once it has listed them, calling `onProgress` (`op: "walk"`) after
 * each, against their count and bytes. `full`: a push of everything
 * pending (not of some paths only), which settles every record of an
 * earlier push's write to a never-synced path that nothing else covers.
 * The temporary files of Sluice's a walk meets are added to `leftTemps`
 * (see `left_temps.ts`), when given.
 */
export async function buildPlan(
  cache: LocalCache,
  state: SyncState,
  dirty: readonly string[],
  walk: boolean,
  onSkip: (path: string, reason: string) => void,
  expandedDirs: string[] = [],
  deletedHere: string[] = [],
  onProgress?: (p: ProgressEvent) => void,
  full = false,
  rules: readonly ClassifierRule[] = [],
  leftTemps?: WalkedFile[],
): Promise<PlanEntry[]> {
  // The layout's own files, also under a namespace or another prefix
  // (`<ns>/.push-queue.json`), as the classifier and the pull take them
  // (extra rules first): never pushed, and no file of the user's to report.
  const internal = (path: string) => isInternalPath(path, rules);
  const plan = new Map<string, PlanEntry>();
  const add = (
    path: string,
    action: PlanEntry["action"],
    hash?: string,
    size?: number,
    source: "dirty" | "walk" = "dirty",
  ) => {
    const s = state.synced(path);
    plan.set(path, {
      path,
      action,
      source,
      handledBy: [],
      hash,
      size,
      syncedVersion: s?.version,
      syncedHash: s?.hash,
      syncedSize: s?.size,
    });
  };
  // A path this process may not read: reported, kept dirty, never a deletion.
  const keepUnreadable = (path: string) => {
    onSkip(path, UNREADABLE_REASON);
    add(path, "skip");
    Object.assign(plan.get(path)!, { keepDirty: true, reason: UNREADABLE_REASON });
  };
  /** The file's hash, or {@link UNREADABLE} (after `onUnreadable`) when it may not be read. */
  const hashOrUnreadable = async (
    path: string,
    onUnreadable: (path: string) => void,
  ): Promise<{ hash: string; size: number } | null | typeof UNREADABLE> => {
    try {
      return await cache.hashFile(path);
    } catch (e) {
      if (!(e instanceof UnreadablePathError)) throw e;
      onUnreadable(path);
      return UNREADABLE;
    }
  };
  // Directories the synced paths lie in, and those the paths an earlier push
  // wrote without its commit lie in (each found on first need, so that a
  // check per path costs one lookup, not a pass over every path): a dirty
  // file at such a name replaced a directory here. The attempted paths come
  // sorted, so a binary search finds a path under a name without a set of
  // their directories (a never-synced path is recorded as attempted when
  // marked: a first push of many files has as many).
  let syncedDirs: Set<string> | undefined;
  const wasSyncedDir = (path: string): boolean =>
    (syncedDirs ??= directoriesOf(state.syncedPaths())).has(path);
  let attempted: string[] | undefined;
  const attemptedUnder = (path: string): boolean =>
    sortedHasUnder(attempted ??= state.attemptedPaths(), path);
  for (const path of dirty) {
    if (!isSafeRelPath(path)) {
      onSkip(path, "unsafe path");
      continue;
    }
    // The bucket layout's own objects (the index, its shards, locks,
    // sidecars) are never pushed as files, whatever gates run.
    if (isLayoutInternal(path)) continue;
    let st: { size: number; mtimeMs: number } | null = null;
    try {
      st = await cache.stat(path);
    } catch (e) {
      if (e instanceof UnsafePathError) {
        // A symlink, or a path under one, is not a deletion: the remote copy
        // is left alone and the path stays dirty until the link is replaced.
        const reason =
          `it is a symbolic link or lies under one; its remote copy was left as it is and it stays dirty. ${LINK_REFUSED}`;
        onSkip(path, reason);
        add(path, "skip");
        Object.assign(plan.get(path)!, { keepDirty: true, reason });
        continue;
      }
      if (e instanceof UnreadablePathError) {
        // Not a deletion either: left as it is remotely, and dirty until readable.
        keepUnreadable(path);
        continue;
      }
      // Any other failure fails the push: a file that could not be looked at
      // must never be taken for a deletion.
      throw e;
    }
    if (!st && cache.isDirectory(path)) {
      // A marked directory: every file under it that changed is put, and
      // every synced path under it that is gone is deleted.
      expandedDirs.push(path);
      for await (const f of walkFiles(cache.dir, path, onSkip)) {
        if (plan.has(f.path) || !isSafeRelPath(f.path) || internal(f.path)) continue;
        const s = state.synced(f.path);
        if (s && unchangedSince(s, f)) continue;
        const local = await hashOrUnreadable(f.path, keepUnreadable);
        if (local === UNREADABLE || !local) continue;
        if (s && s.hash === local.hash) {
          // Unchanged: its mtime recorded (once settled), so that it is not hashed again.
          if (settledAt(f.mtimeMs, state.fileClock()) !== s.mtimeMs || f.ctimeMs !== s.ctimeMs) {
            state.setSynced(f.path, { ...s, mtimeMs: f.mtimeMs, ctimeMs: f.ctimeMs });
          }
          continue;
        }
        add(f.path, "put", local.hash, local.size);
      }
      for (const synced of state.syncedPaths()) {
        // Gone, or replaced by a directory of its name: a deletion either way.
        if (
          synced.startsWith(`${path}/`) && !plan.has(synced) && cache.fileGone(synced)
        ) {
          add(synced, "delete");
        }
      }
      // A synced file replaced here by this directory: its deletion is the
      // change named too (left, the datastore would hold both `a` and `a/…`).
      if (state.synced(path) && !plan.has(path)) add(path, "delete");
      else if (state.attempted(path) && !plan.has(path)) {
        // A never-synced file an earlier push wrote here without its commit:
        // its upload is checked (only then: a read of the store per push).
        add(path, "skip");
        Object.assign(plan.get(path)!, { strandedCheck: true, reason: STRANDED_REASON });
      }
      continue;
    }
    if (!st && cache.exists(path)) {
      // A FIFO, socket or device: nothing to publish, and no deletion either.
      onSkip(path, NOT_REGULAR_REFUSED);
      add(path, "skip");
      Object.assign(plan.get(path)!, { keepDirty: true, reason: NOT_REGULAR_REFUSED });
      continue;
    }
    if (!st) {
      // A removed directory: its synced paths are deleted too, and writes
      // of an earlier push under it are settled (see below).
      const under = wasSyncedDir(path)
        ? state.syncedPaths().filter((p) =>
          p.startsWith(`${path}/`) && !plan.has(p) && !cache.exists(p)
        )
        : [];
      const written = attemptedUnder(path);
      if (under.length > 0 || written) {
        expandedDirs.push(path);
        for (const p of under) add(p, "delete");
        // A never-synced file of this name an earlier push wrote without its
        // commit (it had replaced the directory) is checked below, as any.
        if (!state.synced(path) && !state.attempted(path)) continue;
      }
    }
    if (st && (wasSyncedDir(path) || attemptedUnder(path))) {
      // A synced directory replaced here by this file: the deletion of its
      // synced files is the change named too (left, the datastore would hold
      // both `a` and `a/…`), also where this file was synced beside them (a
      // push that committed the directory's files and failed the file's
      // deletion); and writes an earlier push of this cache made under it
      // without committing them are settled (below).
      expandedDirs.push(path);
      for (const p of state.syncedPaths()) {
        if (p.startsWith(`${path}/`) && !plan.has(p)) add(p, "delete");
      }
    }
    add(path, st ? "put" : state.synced(path) ? "delete" : "skip", undefined, st?.size);
    if (!st && !state.synced(path)) {
      const e = plan.get(path)!;
      e.strandedCheck = true;
      e.reason ??= NOTHING_HERE_REASON;
    }
  }
  if (walk) {
    // Synced paths the walk meets: the others are gone from the cache (or
    // hidden from the walk, as under a link: those are checked one by one).
    const met = new Set<string>();
    // Files whose size or mtime differs from what was synced: hashed once the
    // walk has listed them all, so that the hashing (the long part) reports
    // its progress against a known total.
    const changed: { path: string; size: number; mtimeMs: number; ctimeMs?: number }[] = [];
    for await (const f of walkFiles(cache.dir, "", onSkip)) {
      if (state.synced(f.path)) met.add(f.path);
      if (plan.has(f.path) || internal(f.path)) {
        // One of Sluice's temporary files, left by a transfer cut off (or still running).
        if (leftTemps && isLeftTempPath(f.path)) leftTemps.push(f);
        continue;
      }
      if (!isSafeRelPath(f.path)) {
        // A local name no store key may carry (a control character, a
        // backslash, too long) must not fail the whole walk: skip it.
        onSkip(
          f.path,
          "its name has a character Sluice refuses in a store key (a control character or a backslash) or is too long, so it stays local only: rename it to sync it",
        );
        continue;
      }
      const s = state.synced(f.path);
      if (s && unchangedSince(s, f)) continue;
      changed.push(f);
    }
    const bytesTotal = changed.reduce((n, f) => n + f.size, 0);
    let bytesDone = 0;
    for (let i = 0; i < changed.length; i++) {
      const f = changed[i];
      // Hashed in chunks: a walk never holds a whole (possibly large) file.
      // An unreadable file is local only until readable.
      const read = await hashOrUnreadable(f.path, (p) => onSkip(p, UNREADABLE_REASON));
      const local = read === UNREADABLE ? null : read;
      bytesDone += f.size;
      onProgress?.({
        op: "walk",
        filesDone: i + 1,
        filesTotal: changed.length,
        bytesDone,
        bytesTotal,
      });
      if (!local) continue;
      const s = state.synced(f.path);
      if (s && s.hash === local.hash) {
        // Its mtime recorded once settled (a racy one is not: no record rewritten for it).
        if (settledAt(f.mtimeMs, state.fileClock()) !== s.mtimeMs || f.ctimeMs !== s.ctimeMs) {
          state.setSynced(f.path, { ...s, mtimeMs: f.mtimeMs, ctimeMs: f.ctimeMs });
        }
        continue;
      }
      add(f.path, "put", local.hash, local.size, "walk");
    }
    if (met.size < state.syncedCount) {
      for (const p of state.syncedPaths()) {
        // Gone, or replaced by a directory of the same name: a deletion here either way.
        if (
          !met.has(p) && !plan.has(p) && !isLayoutInternal(p) &&
          cache.fileGone(p)
        ) {
          deletedHere.push(p);
        }
      }
    }
  }
  // The `latest` marker beside a version this push deletes: the datastore
  // deletes a version by marking only the version's directory, then rewrites
  // the marker to the version left (or removes it with its data) without a
  // mark of its own. Its change here goes with the deletion (the gates see it
  // as any marker: it waits for the version it names, and a change of it
  // there since this cache's sync is a conflict); left out, the datastore's
  // marker would name the deleted version, and no later push would find it.
  await addMarkersOfDeletions(cache, state, plan, add);
  // Paths an earlier push wrote without committing (a walk's, or under a
  // marked directory: see `SyncState.markAttempted`) that this push covers
  // and does not plan: the store may hold this cache's own object there that
  // no index names. A file here as it was synced is written back over it; a
  // file gone from here is checked (see `strandedCheck`).
  for (const p of state.attemptedPaths()) {
    if (plan.has(p) || !isSafeRelPath(p) || isLayoutInternal(p)) continue;
    if (!walk && !expandedDirs.some((d) => p.startsWith(`${d}/`))) {
      // A push of everything pending also settles a never-synced path's
      // record that no mark names any more (its mark cleaned elsewhere: a
      // refused run's marker reset, say): this cache's upload there is
      // deleted, as for a file gone from here (see `strandedCheck`). A file
      // here still leaves a committed write of this cache's there published
      // (see `heldHere`): another process over this cache that took the
      // record over too may have published the path since.
      if (full && !state.synced(p)) {
        add(p, "skip");
        Object.assign(plan.get(p)!, {
          strandedCheck: true,
          reason: STRANDED_REASON,
          ...(cache.fileGone(p) ? {} : { heldHere: true }),
        });
      }
      continue;
    }
    let local: { hash: string; size: number } | null;
    try {
      local = cache.exists(p) ? await cache.hashFile(p) : null;
    } catch (e) {
      // A link now (the walk reports it as local only), or unreadable: left until it is a file again.
      if (e instanceof UnsafePathError || e instanceof UnreadablePathError) continue;
      throw e;
    }
    add(p, local ? "put" : "skip", local?.hash, local?.size, walk ? "walk" : "dirty");
    const e = plan.get(p)!;
    e.strandedCheck = true;
    if (!local) e.reason = STRANDED_REASON;
  }
  return [...plan.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Adds to `plan` the `latest` marker of each data version a deletion of it
 * names, when the marker is not planned already and its synced file changed
 * here (a put) or is gone (a deletion). A marker as it was synced, one this
 * cache never synced, and one it may not read are left out.
 */
async function addMarkersOfDeletions(
  cache: LocalCache,
  state: SyncState,
  plan: Map<string, PlanEntry>,
  add: (path: string, action: PlanEntry["action"], hash?: string, size?: number) => void,
): Promise<void> {
  const markers = new Set<string>();
  for (const e of plan.values()) {
    if (e.action !== "delete") continue;
    const marker = markerOfVersionFile(e.path);
    if (marker !== undefined && !plan.has(marker)) markers.add(marker);
  }
  for (const marker of markers) {
    const s = state.synced(marker);
    if (!s || !isSafeRelPath(marker)) continue;
    let st: { size: number; mtimeMs: number; ctimeMs?: number } | null;
    try {
      st = await cache.stat(marker);
    } catch (e) {
      // Under a link, or unreadable: left as it is, as any file that may not be read.
      if (e instanceof UnsafePathError || e instanceof UnreadablePathError) continue;
      throw e;
    }
    if (!st) {
      // Gone (or replaced by a directory of its name): its deletion.
      if (cache.fileGone(marker)) add(marker, "delete");
      if (plan.has(marker)) plan.get(marker)!.unmarked = true;
      continue;
    }
    if (unchangedSince(s, st)) continue;
    let local: { hash: string; size: number } | null;
    try {
      local = await cache.hashFile(marker);
    } catch (e) {
      if (e instanceof UnreadablePathError) continue;
      throw e;
    }
    if (!local || local.hash === s.hash) continue;
    add(marker, "put", local.hash, local.size);
    plan.get(marker)!.unmarked = true;
  }
}

export { directoriesOf };
