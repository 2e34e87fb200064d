/**
 * What a pull did (its result), and what it left behind for a later run.
 *
 * @module
 */
import type { LeftBehind } from "../left_behind.ts";
import { DROPPED_REASON } from "./dropped_entries.ts";
import { classifyPath } from "../path_class.ts";
import type { PathClass } from "../context.ts";
import { LINK_REFUSED } from "../transfer/cache_paths.ts";
import type { PullDeps } from "./pull.ts";
import { under } from "./pull_paths.ts";

/** Files skipped as uncommitted that get a warning each (the rest get one together). */
export const UNCOMMITTED_WARNINGS = 10;

/** What a pull did. */
export interface PullResult {
  /** Paths fetched into the cache. */
  readonly fetched: string[];
  /** Paths removed locally because a peer deleted them. */
  readonly removed: string[];
  /**
   * Every unresolved conflict (under the pulled prefixes) after the pull:
   * paths changed here since this cache last synced them (marked dirty or
   * not, a deletion included) and changed on the datastore too. The local
   * copy was not overwritten (or, for a copy this cache never synced, was set
   * aside); `sluice status` shows both versions.
   */
  readonly conflicts: string[];
  /**
   * Where unsynced local copies that differed from the datastore's were set
   * aside, and stay. A copy whose path the pull then wrote nothing at is put
   * back there while nothing is there, and is not listed (see `pull_aside.ts`).
   */
  readonly setAside: string[];
  /** Paths skipped because the object was replaced but its writer has not committed it. */
  readonly uncommitted: string[];
  /**
   * The class the cache's classifier rules give each of `uncommitted` that
   * is no `other` (a data version is never adopted, a marker only once its
   * version is committed): what the way out of each depends on.
   */
  uncommittedClass?: Record<string, PathClass>;
  /**
   * Paths the datastore changed that were neither compared nor fetched:
   * this process may not read the local copy (or a directory on its way).
   * Kept as they are; the next pull takes them up once they are readable.
   */
  readonly unreadable: string[];
  /**
   * Paths the datastore changed or deleted where the cache holds a symbolic
   * link (at the path, or a directory on its way): Sluice never follows one,
   * so they were neither compared, fetched over nor removed, and never taken
   * for a local deletion. Kept as they are; each pull looks at them again.
   */
  readonly links?: string[];
  /**
   * Paths the datastore holds that could not be placed in the cache: a file
   * here is where a directory on their way must be, or a directory is at
   * them (the datastore holds both `a` and `a/b`). Nothing was written for
   * them, and what is in the way was kept; each pull tries them again.
   */
  readonly blocked?: string[];
  /**
   * Synced paths the index no longer names while the store still holds the
   * version this cache synced (another client rewrote the index without
   * them): kept here and marked dirty, so the next push publishes them
   * again (see `dropped_entries.ts`).
   */
  readonly dropped: string[];
  /**
   * Synced paths deleted here (or replaced by a directory of their name),
   * the deletion not marked, whose index entry another client dropped while
   * the store still holds the version this cache synced: the datastore did
   * not delete them. Their records are kept, as local deletions (nothing is
   * marked): a push of their names deletes them on the datastore, and a pull
   * with `restoreDeleted` takes them back (see `dropped_entries.ts`).
   */
  readonly droppedHere?: string[];
  /**
   * Paths the datastore holds and this cache has nothing at, not fetched
   * because the pull was asked to defer them (`defer` of `pullChanged`):
   * not left behind, fetched by a later pull of them.
   */
  readonly deferred?: string[];
  /**
   * Paths the index names whose object the store no longer holds (deleted
   * outside Sluice, or a deletion still on its way to the index): nothing
   * was fetched for them and a local copy was kept. Each pull looks again;
   * a pull that has seen an entry so for 15 minutes removes it
   * (`index_entry_dangling`), and does not list it here.
   */
  readonly vanished?: string[];
  /**
   * Of `conflicts`, the files the datastore lost (their objects deleted
   * outside Sluice, their entries removed as naming nothing) whose synced
   * copy this cache keeps: it may be the last (`vanished_record.ts`).
   */
  readonly lost?: string[];
  /**
   * Of `conflicts`, synced files whose entries were removed while the record
   * of lost files could not be read: kept, since a peer's deletion could not
   * be told from a loss (`vanished_record.ts`).
   */
  readonly undecided?: string[];
  /**
   * Of `conflicts`, data versions this cache's push created that were
   * deleted on the datastore, kept in place: this copy may be the only one
   * (`pull_removals.ts`).
   */
  readonly ownKept?: string[];
  /**
   * Paths this pull was asked to adopt (`adoptUncommitted` of
   * `pullChanged`) whose uncommitted object it published in the index as
   * its writer's change, then fetched (see `pull_adopt.ts`).
   */
  readonly adopted?: string[];
  /** Paths this pull was asked to adopt and did not, with why (they stay in `uncommitted`). */
  readonly notAdopted?: { readonly path: string; readonly why: string }[];
  /** True when the remote had not changed since the last pull. */
  unchanged: boolean;
  /** Bytes fetched. */
  bytes: number;
}

/**
 * What a pull left behind: its unresolved conflicts, and the paths it
 * skipped because their writer has not committed them yet.
 */
export function pullLeftBehind(r: PullResult): LeftBehind {
  return {
    conflicts: r.conflicts,
    left: [
      ...r.uncommitted.map((path) => ({
        path,
        reason: uncommittedReason(path, r.uncommittedClass?.[path]),
      })),
      ...r.dropped.map((path) => ({ path, reason: DROPPED_REASON })),
      ...(r.unreadable ?? []).map((path) => ({
        path,
        reason: "this process may not read the local copy (permission denied): make it readable",
      })),
      ...(r.links ?? []).map((path) => ({ path, reason: LINK_REASON })),
      ...(r.blocked ?? []).map((path) => ({ path, reason: BLOCKED_REASON })),
      ...(r.vanished ?? []).map((path) => ({ path, reason: VANISHED_REASON })),
    ],
  };
}

/** Why a pull left `path` out as uncommitted, with the way out by its class. */
function uncommittedReason(path: string, given?: PathClass): string {
  const cls = given ?? classifyPath(path);
  return `another writer's push has not committed it yet (${
    cls === "data-version"
      ? "a data version a run never finished publishing is never adopted: it goes once that writer pushes again or its objects are deleted"
      : cls === "managed-lockfile"
      ? "if that writer is gone for good, the next lockfile change of any cache (`sluice lockfile add` or `remove`) takes its entries in (the lockfile is published only by its transaction, never adopted)"
      : cls === "latest-marker"
      ? "if that writer is gone for good, `sluice pull --adopt-uncommitted <path>` publishes the marker it left once the version it names is committed"
      : "if that writer is gone for good, `sluice pull --adopt-uncommitted <path>` publishes the object it left as its change, and takes it"
  })`;
}

/** Why a pull fetched nothing for a path the index names and the store holds no object at. */
export const VANISHED_REASON =
  "the datastore's index names it, but the store holds no object there (deleted outside Sluice, or a deletion still on its way to the index): nothing was fetched and any local copy was kept; each pull looks again, and a pull that has seen it so for 15 minutes removes the entry (index_entry_dangling), recording it as lost: a clone that holds its synced copy keeps that copy, as a conflict to resolve";

/** Why a pull left a path out that a file or directory in the cache is in the way of. */
export const BLOCKED_REASON =
  "a file or directory in the cache is in its way: either one the datastore does not hold (made here, or deleted there), then move it to another name and pull again (a push of it is held back meanwhile: it would leave the datastore holding a file and files under a directory of one name), or the datastore holds both shapes of one name and a cache holds only one, then remove one of the two from the datastore (`sluice push <path>` of its deletion from a cache that has it)";

/** Why a pull left a path out that is a symbolic link here, or lies under one. */
export const LINK_REASON = `it is a symbolic link or lies under one; ${LINK_REFUSED}`;

/** The result of a pull that has done nothing yet, its set-aside copies told in `setAside`. */
export function emptyPullResult(setAside: PullResult["setAside"]): PullResult {
  return {
    fetched: [],
    removed: [],
    conflicts: [],
    setAside,
    uncommitted: [],
    unreadable: [],
    links: [],
    blocked: [],
    dropped: [],
    droppedHere: [],
    deferred: [],
    vanished: [],
    lost: [],
    undecided: [],
    ownKept: [],
    unchanged: false,
    bytes: 0,
  };
}

/** The unresolved conflicts under `prefixes` (internal paths left out). */
export function standingConflicts(deps: PullDeps, prefixes?: readonly string[]): string[] {
  return deps.state.conflicts.list().map((c) => c.path).filter((p) =>
    under(p, prefixes) && !deps.isInternal(p)
  );
}
