/**
 * Small path helpers of the local cache, shared by the cache and its walk.
 *
 * @module
 */

/** Name of the internal state directory inside the cache (never synced). */
export const STATE_DIR = ".sluice";

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

/** True for a write the filesystem refused: permission denied, or a read-only filesystem. */
export function isWriteRefused(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return isPermissionDenied(e) || code === "EACCES" || code === "EPERM" || code === "EROFS";
}

/** Why a link is refused: said once, for reads, writes and walks alike. */
export const LINK_REFUSED =
  "Sluice never follows links out of the cache: replace the link with a real file or directory, then run the sync again";

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
