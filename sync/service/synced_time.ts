/**
 * When a synced record may keep a file's mtime (a file edited within its
 * timestamp's tick after its sync, to the same size, would go unseen by a
 * walk that trusts it), and the index token a cache took from its own v2
 * commit.
 *
 * @module
 */
import type { SyncedEntry } from "./manifest_log.ts";

/**
 * Marks an index token a cache took from its own v2 commit: the shard
 * versions that commit derived are checked against a listing before a pull
 * skips the read (see `pull.ts`).
 */
export const UNCHECKED = "?";

/** The token without its {@link UNCHECKED} mark. */
export function checkedToken(token: string | undefined): string | undefined {
  return token?.endsWith(UNCHECKED) ? token.slice(0, -UNCHECKED.length) : token;
}

/**
 * How long after its last write a file's mtime is kept out of its synced
 * record: an edit within the same tick of the filesystem's timestamps (1 s
 * on some filesystems, 2 s on FAT, whose timestamps are even seconds) to the
 * same size leaves size and mtime as they were, and a walk that trusts them
 * would never see it (a "racily clean" file).
 */
export function racyWindowMs(mtimeMs: number): number {
  return mtimeMs % 2000 === 0 ? 2000 : 1000;
}

/**
 * `entry` as recorded at `seenAt`: its mtime kept only once the file was
 * last written longer ago than {@link racyWindowMs} (by the filesystem's
 * clock, the system's unless a service is given another); a record without
 * one makes a walk hash the file, and the walk then records its mtime once
 * it has settled.
 */
export function settledMtime(entry: SyncedEntry, seenAt: number = Date.now()): SyncedEntry {
  if (settledAt(entry.mtimeMs, seenAt) !== undefined) return entry;
  const { mtimeMs: _racy, ...rest } = entry;
  return rest;
}

/**
 * True when a file's lstat (`f`) says it is unchanged since `s` was
 * recorded: the same size, mtime and, where both have one, ctime (an edit
 * that puts size and mtime back still moves the ctime). Anything else is
 * hashed.
 */
export function unchangedSince(
  s: SyncedEntry,
  f: { readonly size: number; readonly mtimeMs: number; readonly ctimeMs?: number },
): boolean {
  return s.size === f.size && s.mtimeMs === f.mtimeMs &&
    (s.ctimeMs === undefined || f.ctimeMs === undefined || s.ctimeMs === f.ctimeMs);
}

/**
 * `mtimeMs` when a file last written then was settled at `seenAt` (both by
 * the filesystem's clock, the system's): older than {@link racyWindowMs}.
 * Undefined otherwise (also for an mtime in the future): its record then
 * keeps none, and a walk hashes the file. A push judges it at its read, as
 * an edit after the read in the same tick would go unseen.
 */
export function settledAt(mtimeMs: number | undefined, seenAt: number): number | undefined {
  if (mtimeMs === undefined) return undefined;
  const age = seenAt - mtimeMs;
  return age >= racyWindowMs(mtimeMs) ? mtimeMs : undefined;
}
