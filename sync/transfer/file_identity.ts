/**
 * What a pull saw at a cache path when it decided to write or remove it,
 * checked again just before it does: a user's edit (or deletion, or new
 * file) saved in between is never replaced or removed.
 *
 * @module
 */
import type { TargetCheck } from "./atomic_write.ts";

/** The file at a path, as one lstat saw it; null: nothing there. */
export type FileIdentity = {
  readonly kind: "file" | "dir" | "link" | "other";
  readonly ino: number | null;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
} | null;

/** The identity of what `st` describes (null: nothing there). */
export function identityOf(st: Deno.FileInfo | null): FileIdentity {
  if (!st) return null;
  return {
    kind: st.isSymlink ? "link" : st.isFile ? "file" : st.isDirectory ? "dir" : "other",
    ino: st.ino ?? null,
    size: st.size,
    mtimeMs: st.mtime?.getTime() ?? null,
    ctimeMs: st.ctime?.getTime() ?? null,
  };
}

/**
 * True when `st` is what `seen` describes: nothing there both times, or the
 * same kind, inode, size, mtime and ctime (an edit in place changes the
 * ctime, a save by rename the inode).
 */
export function sameIdentity(seen: FileIdentity, st: Deno.FileInfo | null): boolean {
  const now = identityOf(st);
  if (seen === null || now === null) return seen === now;
  return seen.kind === now.kind && seen.ino === now.ino && seen.size === now.size &&
    seen.mtimeMs === now.mtimeMs && seen.ctimeMs === now.ctimeMs;
}

/**
 * Thrown by a cache write or removal whose path no longer holds what the
 * caller saw there: nothing was written or removed.
 */
export class LocalChangedError extends Error {
  constructor(readonly path: string) {
    super(`${path} changed in the cache since it was looked at; it was left as it is.`);
    this.name = "LocalChangedError";
  }
}

/**
 * A check, for the write that replaces the file at `path`, that it is still
 * what `seen` describes (else `LocalChangedError`, nothing written). A
 * directory passes: the rename fails over it anyway (the path is blocked).
 */
export function targetCheck(path: string, seen: FileIdentity): TargetCheck {
  const check = (old: Deno.FileInfo | null) => {
    if (old?.isDirectory) return;
    if (!sameIdentity(seen, old)) throw new LocalChangedError(path);
  };
  return Object.assign(check, { nothing: seen === null });
}
