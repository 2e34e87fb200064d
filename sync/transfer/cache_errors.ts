/**
 * The errors a cache read or write turns the filesystem's into: a link on
 * the way, a path this process may not read, a write the filesystem refused
 * or that something in the cache is in the way of.
 *
 * @module
 */
import { PathBlockedError, SluiceError, UnreadablePathError, UnsafePathError } from "../errors.ts";
import {
  diskFullWords,
  isDiskFull,
  isPermissionDenied,
  isWriteRefused,
  LINK_REFUSED,
} from "./cache_paths.ts";

/** Throws `UnsafePathError` for `path` when `link` (a directory on its way) is a link. */
export function refuseLink(path: string, link: string | undefined): void {
  if (link !== undefined) {
    throw new UnsafePathError(path, `${link} is a symbolic link; ${LINK_REFUSED}`);
  }
}

/** `e` as an {@link UnreadablePathError} of `path` when it is "permission denied"; else `e`. */
export function unreadable(path: string, e: unknown): unknown {
  return isPermissionDenied(e) ? new UnreadablePathError(path) : e;
}

/**
 * `cache_unwritable` for a write the filesystem refused (permission denied,
 * a read-only filesystem, a full disk or quota); {@link PathBlockedError} for a write that a file
 * or directory in the cache is in the way of; any other error as it is.
 */
export function unwritable(dir: string, path: string, e: unknown): unknown {
  if (e instanceof Deno.errors.IsADirectory || e instanceof Deno.errors.NotADirectory) {
    return new PathBlockedError(
      path,
      e instanceof Deno.errors.IsADirectory
        ? "a directory is at that path in the cache"
        : "a file is in the cache where a directory on its way must be",
      { cause: e },
    );
  }
  if (!isWriteRefused(e)) return e;
  const full = isDiskFull(e) ? diskFullWords(e) : undefined;
  const why = full?.why ??
    ((e as { code?: unknown }).code === "EROFS"
      ? "the filesystem is read-only"
      : "permission denied");
  const todo = full?.todo ??
    "Make the cache directory writable by this user (or run as its owner)";
  return new SluiceError(
    "cache_unwritable",
    `Could not write ${path} into the cache at ${dir}: ${why}. Files written before it were kept, and nothing was removed; what was not written is fetched by the next run. ${todo}, then run the command again.`,
    { cause: e },
  );
}
