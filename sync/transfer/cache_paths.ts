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

/** Why a link is refused: said once, for reads, writes and walks alike. */
export const LINK_REFUSED =
  "Sluice never follows links out of the cache: replace the link with a real file or directory, then run the sync again";

/** True when something (of any kind) is at `path`; links are not followed. */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
