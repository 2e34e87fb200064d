/**
 * What a finished push, pull or resolution left behind (conflicts, files for
 * a later run, local deletions, files no push can publish), and the error a
 * command line turns it into (`conflicts_left`, `sync_incomplete`).
 *
 * @module
 */
import { SluiceError } from "./errors.ts";
import { isManagedLockfilePath } from "./locks/lockfile_change.ts";
import { pushBothCommand } from "./version_marker.ts";

/** A data version file deleted here whose `latest` marker here (`marker`) names its version (`n`). */
export interface DeletedUnderMarker {
  readonly path: string;
  readonly marker: string;
  readonly n: string;
}

/** What a push or pull left behind: unresolved conflicts, and files left for a later run. */
export interface LeftBehind {
  /** Paths with an unresolved conflict (both versions kept). */
  readonly conflicts: readonly string[];
  /** Paths left out and kept for a later run (with why). */
  readonly left: readonly { readonly path: string; readonly reason: string }[];
  /** Synced paths deleted here that a push of the whole cache did not delete remotely. */
  readonly localDeletions?: readonly string[];
  /**
   * Of `localDeletions`, those a directory of their name now stands at: a
   * pull with `--restore-deleted` does not write over it. Given by a caller
   * that can look at the cache.
   */
  readonly directoriesNow?: readonly string[];
  /**
   * Of `localDeletions`, the data version files whose `latest` marker here
   * names their version: a push naming them alone holds their deletion back
   * (`version-under-marker`), so the way to delete them there moves the
   * marker first. Given by a caller that can look at the cache.
   */
  readonly underMarker?: readonly DeletedUnderMarker[];
  /** Files in the cache a push cannot publish (a symbolic link, a name no key may carry, an unreadable file). */
  readonly localOnly?: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * `paths` for a message: the first `shown`, then how many more.
 *
 * @example
 * ```ts
 * import { listPaths } from "./left_behind.ts";
 * console.log(listPaths(["a", "b", "c", "d"], 2)); // a, b and 2 more
 * ```
 */
export function listPaths(paths: readonly string[], shown = 5): string {
  return `${paths.slice(0, shown).join(", ")}${
    paths.length > shown ? ` and ${paths.length - shown} more` : ""
  }`;
}

const listed = (paths: readonly string[]) => listPaths(paths);

/**
 * How to take local deletions back: a pull with `--restore-deleted`, once
 * the directory of its name that stands at any of them is moved away.
 */
function restoreAdvice(deletions: readonly string[], directoriesNow: readonly string[]): string {
  const dirs = deletions.filter((p) => directoriesNow.includes(p));
  if (dirs.length === 0) {
    return "to take the datastore's copies back, run `sluice pull --restore-deleted`";
  }
  if (dirs.length === deletions.length) {
    return "each has a directory of its name here now, whose files that push publishes and which `sluice pull --restore-deleted` does not write over: to take the datastore's copy back, move the directory away first, then run `sluice pull --restore-deleted`";
  }
  return `to take the datastore's copies back, run \`sluice pull --restore-deleted\`, after moving away the directory of its name now at ${dirs.length} of them (${
    listed(dirs)
  }), which it does not write over`;
}

/**
 * How to delete local deletions on the datastore too: a push naming them,
 * save for a data version whose marker here names it, which a push naming
 * it alone keeps there: its marker is set to another version first and
 * pushed with it.
 */
function deleteAdvice(
  deletions: readonly string[],
  underMarker: readonly DeletedUnderMarker[],
): string {
  const held = underMarker.filter((u) => deletions.includes(u.path));
  if (held.length === 0) return "To delete them there too, run `sluice push <path>…` naming them";
  const unique = (xs: string[]) => [...new Set(xs)];
  const markers = unique(held.map((u) => u.marker));
  const names = unique(held.map((u) => `${u.marker} names their version (${u.n})`));
  const pushes = unique(held.map((u) => `\`${pushBothCommand(u.marker, u.n)}\``));
  const them = held.length === 1 ? "it" : "them";
  const why = `the latest marker ${
    names.join(", ")
  } here, and a version is never deleted from the datastore while its marker names it, so a push naming ${them} alone keeps ${them} there: set ${
    markers.length === 1 ? "the marker" : "each marker"
  } to another version here, then push both (${pushes.join(", ")})`;
  return held.length === deletions.length
    ? `To delete them there too: ${why}`
    : `To delete them there too, run \`sluice push <path>…\` naming the others; for ${
      listed(held.map((u) => u.path))
    }, ${why}`;
}

/**
 * A push or pull that finished but left work behind. It is not thrown by the
 * library (the result lists what was left); the command line turns a result
 * into it so that scripts can tell it from a clean run: `conflicts_left`
 * (exit 3) when conflicts remain, else `sync_incomplete` (exit 2).
 *
 * @example
 * ```ts
 * import { SyncIncompleteError } from "./left_behind.ts";
 * const e = new SyncIncompleteError("push", { conflicts: ["config/a.yaml"], left: [] });
 * console.log(e.code, e.exitCode); // conflicts_left 3
 * ```
 */
export class SyncIncompleteError extends SluiceError {
  /** What was left behind. */
  readonly leftBehind: LeftBehind;
  /**
   * `next`, when given, closes the message: where to run the commands it
   * names (a datastore extension names the cache and the store).
   */
  constructor(
    op: "push" | "pull" | "resolve" | "status",
    leftBehind: LeftBehind,
    next?: string,
  ) {
    const { conflicts, left } = leftBehind;
    const deletions = leftBehind.localDeletions ?? [];
    const localOnly = leftBehind.localOnly ?? [];
    const parts: string[] = [];
    if (conflicts.length) {
      parts.push(
        `${conflicts.length} conflict(s) are unresolved (${
          listed(conflicts)
        }): each path changed both here and on the datastore (or is gone from the datastore while this cache holds a copy it synced: the status says which), and neither copy was overwritten (the local copy is kept in the cache or in the set-aside area). ${
          op === "status"
            ? "The status lists both versions; run"
            : "Run `sluice status` to see both versions, then"
        } \`sluice resolve <path> --mine|--theirs|--merged\``,
      );
    }
    // The managed lockfile a push left out is never published by another
    // push: its way out is the transaction.
    const lockfiles = op === "pull" ? [] : left.filter((l) => isManagedLockfilePath(l.path));
    const later = left.filter((l) => !lockfiles.includes(l));
    if (later.length) {
      parts.push(
        `${later.length} file(s) were left for a later run (${
          listed(later.map((l) => `${l.path}: ${l.reason}`))
        }); nothing of them was lost. ${
          // What a pull leaves is told here only (a status plans the push):
          // the reason beside each path says what to do.
          op === "pull"
            ? "Do what the reason beside each says, then run the pull again"
            : "Run `sluice status`, then the push again"}`,
      );
    }
    if (lockfiles.length) {
      parts.push(
        `The managed lockfile changed here was left out (${
          listed(lockfiles.map((l) => l.path))
        }), as every push leaves it out (a stale copy would erase entries other checkouts added); nothing of it was lost. Publish your entries with \`sluice lockfile add <name> '<entry JSON>'\` (or \`sluice lockfile remove <name>\`; a change one of them could not publish is kept pending, and \`sluice lockfile retry\` publishes it), or take the datastore's copy back: delete it here, then run \`sluice pull --restore-deleted\``,
      );
    }
    if (deletions.length) {
      parts.push(
        `${deletions.length} file(s) deleted here were not deleted on the datastore (${
          listed(deletions)
        }): ${
          op === "pull"
            ? "a pull keeps a deletion made here, as it keeps any local change"
            : "a push of the whole cache never deletes, so that a wiped or partial cache never empties the bucket"
        }. ${deleteAdvice(deletions, leftBehind.underMarker ?? [])}; ${
          restoreAdvice(deletions, leftBehind.directoriesNow ?? [])
        }`,
      );
    }
    if (localOnly.length) {
      parts.push(
        `${localOnly.length} file(s) in the cache were not pushed and stay local only (${
          listed(localOnly.map((l) => `${l.path}: ${l.reason}`))
        }): a symbolic link, a name no store key may carry and a file this process may not read are never published. Replace each link with a real file, rename the file or make it readable, as its reason says, then run \`sluice push\` again`,
      );
    }
    super(
      conflicts.length ? "conflicts_left" : "sync_incomplete",
      `${
        op === "status" ? "The cache has open work." : `The ${op} finished but left work behind.`
      } ${parts.join(". ")}.${next ? ` ${next}` : ""}`,
    );
    this.leftBehind = leftBehind;
  }
}

/** The error a result with conflicts or files left behind maps to; null when the run was clean. */
export function leftBehindError(
  op: "push" | "pull" | "resolve",
  leftBehind: LeftBehind,
  next?: string,
): SyncIncompleteError | null {
  if (
    leftBehind.conflicts.length === 0 && leftBehind.left.length === 0 &&
    !leftBehind.localDeletions?.length && !leftBehind.localOnly?.length
  ) return null;
  return new SyncIncompleteError(op, leftBehind, next);
}
