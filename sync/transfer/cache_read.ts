/**
 * Reads of one cache file already resolved (no link on its way): the lstat
 * that finds it a regular file, then its bytes, its hash, or a body to push,
 * each taken with the size and mtime that lstat saw.
 *
 * @module
 */
import { UnsafePathError } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import type { PutBody } from "../ports.ts";
import { fileSource } from "./body.ts";
import { unreadable } from "./cache_errors.ts";
import { isNotFound, LINK_REFUSED } from "./cache_paths.ts";
import { hashChecked } from "./cache_stream.ts";

/** Files up to this size are read synchronously (one call instead of an async op). */
const SYNC_READ_MAX = 64 * 1024;

/** A cache file ready to push (see {@link readForPushAt}). */
export interface PushRead {
  /** The bytes, or a source streaming them. */
  readonly body: PutBody;
  /** Hex SHA-256 of the bytes. */
  readonly hash: string;
  /** Size in bytes. */
  readonly size: number;
  /** Modification time seen before reading. */
  readonly mtimeMs: number;
  /** Change time seen before reading (undefined where the system gives none). */
  readonly ctimeMs?: number;
}

/** A regular file found at its absolute path, with the lstat that found it. */
export interface FoundFile {
  readonly file: string;
  readonly st: Deno.FileInfo;
}

/**
 * The lstat of `file` (the resolved `path`) when it is a regular file; null
 * when absent or not a file; `UnsafePathError` for a symlink. Synchronous:
 * a push or walk of many small files is dominated by per-call overhead.
 */
export function regularFileAt(file: string, path: string): FoundFile | null {
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(file);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw unreadable(path, e);
  }
  if (st.isSymlink) throw new UnsafePathError(path, `it is a symbolic link; ${LINK_REFUSED}`);
  return st.isFile ? { file, st } : null;
}

/** `read` run on `found`; null when the file went meanwhile, `UnreadablePathError` when refused. */
async function reading<T>(path: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (isNotFound(e)) return null;
    throw unreadable(path, e);
  }
}

/** The bytes of `found`, with the size read and the mtime its lstat saw. */
export function readWithStatAt(
  found: FoundFile,
  path: string,
): Promise<{ body: Uint8Array; size: number; mtimeMs: number } | null> {
  return reading(path, async () => {
    const body = await Deno.readFile(found.file);
    return { body, size: body.length, mtimeMs: found.st.mtime?.getTime() ?? 0 };
  });
}

/**
 * `found` ready to push: its bytes (read whole when at most `streamThreshold`
 * bytes) or a source that streams it in chunks and fails if the file
 * changes under the upload, with its hex SHA-256 and size.
 */
export async function readForPushAt(
  found: FoundFile,
  path: string,
  streamThreshold: number,
  onBytes?: (delivered: number) => void,
): Promise<PushRead | null> {
  // No helper in between: this runs once per file a push reads.
  const { file, st } = found;
  try {
    const mtimeMs = st.mtime?.getTime() ?? 0;
    const ctimeMs = st.ctime?.getTime();
    if (st.size <= streamThreshold) {
      const body = st.size <= SYNC_READ_MAX ? Deno.readFileSync(file) : await Deno.readFile(file);
      return { body, hash: sha256HexSync(body), size: body.length, mtimeMs, ctimeMs };
    }
    const hashed = await hashChecked(file, st.size);
    if (!hashed) return null;
    const body = fileSource(file, hashed.size, { sha256: hashed.hash, label: path, onBytes });
    return { body, hash: hashed.hash, size: hashed.size, mtimeMs, ctimeMs };
  } catch (e) {
    if (isNotFound(e)) return null;
    throw unreadable(path, e);
  }
}

/** Hex SHA-256 and size of `found`, a large file read in 1 MiB chunks (never held whole). */
export function hashAt(
  found: FoundFile,
  path: string,
): Promise<{ hash: string; size: number } | null> {
  const { file, st } = found;
  return reading(path, async () => {
    if (st.size <= SYNC_READ_MAX) {
      const body = Deno.readFileSync(file);
      return { hash: sha256HexSync(body), size: body.length };
    }
    return await hashChecked(file, st.size);
  });
}
