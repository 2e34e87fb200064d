/**
 * Small path helpers of the local cache, shared by the cache and its walk.
 *
 * @module
 */

/**
 * Name of the sync state directory inside a cache (never synced), where a
 * cache keeps it by default; and the prefix its records name state files by
 * (`.sluice/set-aside/<stamp>/<path>`), wherever the directory is
 * ({@link statePath}).
 */
export const STATE_DIR = ".sluice";

/** Where the cache `dir` keeps its sync state unless told otherwise: `<dir>/.sluice`. */
export function defaultStateDir(dir: string): string {
  return `${dir.replace(/\/+$/, "")}/${STATE_DIR}`;
}

/**
 * Where a cache shared with the layout's other clients keeps its sync state:
 * under `_control/` at the cache's root, the one directory those clients keep
 * local both in their solo and in their namespaced walks (every other file
 * of the cache they upload, a `.sluice/` directory among them):
 * `_control/.sluice` for the solo layout, `_control/.sluice-ns/<ns>` for the
 * namespace `ns` (whose files are under `<cacheRoot>/<ns>/`).
 *
 * @example
 * ```ts
 * import { sharedStateDir } from "./cache_paths.ts";
 * sharedStateDir("/home/me/.swamp/repos/r1", ""); // "/home/me/.swamp/repos/r1/_control/.sluice"
 * sharedStateDir("/home/me/.swamp/repos/r1", "prod"); // "/home/me/.swamp/repos/r1/_control/.sluice-ns/prod"
 * ```
 */
export function sharedStateDir(cacheRoot: string, namespace: string): string {
  const root = cacheRoot.replace(/\/+$/, "");
  return namespace
    ? `${root}/_control/${STATE_DIR}-ns/${namespace}`
    : `${root}/_control/${STATE_DIR}`;
}

/**
 * The state directory of the cache `dir`, as found on disk. A cache a
 * datastore shares with the layout's other clients ({@link sharedStateDir})
 * keeps it under `_control/`: the solo state under its own `_control/`, or,
 * for a namespace directory, the namespace's state under the `_control/`
 * beside it; those win, as the datastore reads them (an earlier `.sluice/`
 * left beside them is not read). Else `<dir>/.sluice`, where any other cache
 * keeps it.
 */
export function findStateDir(dir: string): string {
  const root = dir.replace(/\/+$/, "");
  const solo = sharedStateDir(root, "");
  if (exists(solo)) return solo;
  const slash = root.lastIndexOf("/");
  if (slash > 0) {
    const ns = sharedStateDir(root.slice(0, slash), root.slice(slash + 1));
    if (exists(ns)) return ns;
  }
  return defaultStateDir(root);
}

/**
 * Where the state location `location` (`.sluice/…`) of the cache `dir`,
 * whose state is in `stateDir`, is on disk, as a user finds it: relative to
 * the cache when the state is in it (`.sluice/set-aside/…` by default),
 * else absolute (a datastore namespace's state is beside the namespace
 * directory: see {@link sharedStateDir}).
 *
 * @example
 * ```ts
 * import { shownStatePath } from "./cache_paths.ts";
 * shownStatePath("/c", "/c/.sluice", ".sluice/set-aside/s/n.txt"); // ".sluice/set-aside/s/n.txt"
 * shownStatePath("/c/prod", "/c/_control/.sluice-ns/prod", ".sluice/set-aside/s/n.txt");
 * // "/c/_control/.sluice-ns/prod/set-aside/s/n.txt"
 * ```
 */
export function shownStatePath(dir: string, stateDir: string, location: string): string {
  const file = statePath(stateDir, location);
  const root = `${dir.replace(/\/+$/, "")}/`;
  return file.startsWith(root) ? file.slice(root.length) : file;
}

/**
 * The file a state location (`.sluice/<rest>`, as records and reports name
 * it) is, for a cache whose state directory is `stateDir`.
 *
 * @example
 * ```ts
 * import { statePath } from "./cache_paths.ts";
 * statePath("/c/_control/.sluice", ".sluice/set-aside/s/n.txt"); // "/c/_control/.sluice/set-aside/s/n.txt"
 * ```
 */
export function statePath(stateDir: string, location: string): string {
  if (location !== STATE_DIR && !location.startsWith(`${STATE_DIR}/`)) {
    throw new Error(
      `${JSON.stringify(location)} names no state file (it must start with ${STATE_DIR}/)`,
    );
  }
  return `${stateDir.replace(/\/+$/, "")}${location.slice(STATE_DIR.length)}`;
}

/** Joins an absolute directory and a validated relative path. */
export function abs(dir: string, rel: string): string {
  return `${dir.replace(/\/+$/, "")}/${rel}`;
}

/**
 * True for a "no such file" error of the runtime, and for a path under a
 * file (`NotADirectory`): nothing can be there either.
 */
export function isNotFound(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}

/** True for the runtime's "permission denied" (the process may not read or search there). */
export function isPermissionDenied(e: unknown): boolean {
  return e instanceof Deno.errors.PermissionDenied;
}

/**
 * True for a write the filesystem refused: permission denied, a read-only
 * filesystem, or a full disk or quota ({@link isDiskFull}).
 */
export function isWriteRefused(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return isPermissionDenied(e) || code === "EACCES" || code === "EPERM" || code === "EROFS" ||
    isDiskFull(e);
}

/** True for a write that found no space left: the disk (`ENOSPC`) or the user's quota (`EDQUOT`) full. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** Why a write of the cache that found no space left failed, and the way on, in words. */
export function diskFullWords(e: unknown): { why: string; todo: string } {
  const quota = (e as { code?: unknown } | null)?.code === "EDQUOT";
  return {
    why: quota
      ? "no space is left in this user's disk quota"
      : "no space is left on the disk that holds it",
    todo: quota
      ? "Free space on the disk within this user's quota (or raise the quota)"
      : "Free space on the disk that holds the cache",
  };
}

/** Why a link is refused: said once, for reads, writes and walks alike. */
export const LINK_REFUSED =
  "Sluice never follows a symbolic link, whether it points inside the cache or out of it: replace the link with a real file or directory, then run the sync again";

/** Why a FIFO, socket or device in the cache is left out: said for walks and named paths alike. */
export const NOT_REGULAR_REFUSED =
  "it is not a regular file (a FIFO, socket or device), so it has no bytes to sync and stays local only; its datastore copy, if any, is left as it is: replace it with a regular file or remove it, then run the sync again";

/**
 * True when something (of any kind) is at `path`; links are not followed. A
 * path this process may not look at (permission denied) counts as present:
 * it must never be taken for a deletion.
 */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    if (isPermissionDenied(e)) return true;
    throw e;
  }
}

/** The lstat of `file`; null when nothing is there (or a file is where a directory on its way must be). */
export function lstatOrNull(file: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(file);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}
