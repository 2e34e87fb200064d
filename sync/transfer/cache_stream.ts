/**
 * Streamed reads and writes of cache files: a file hashed in chunks, never
 * held whole, and a download written to a temp file beside its target,
 * checked against its expected size and hash, then renamed into place.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { SluiceError, UnreachableError } from "../errors.ts";
import { randomId } from "../hash.ts";
import { keepModeAsync, type TargetCheck, TEMP_INFIX } from "./atomic_write.ts";
import { CHUNK_BYTES } from "./body.ts";
import { notADirectory } from "./cache_dirs.ts";
import { isNotFound } from "./cache_paths.ts";
import type { TempRecords } from "./temp_records.ts";

/**
 * Hex SHA-256 and size of a file already checked to be a regular file,
 * read in chunks; null when it vanished meanwhile. `sizeHint` (the size seen
 * by lstat) sizes the read buffer: a walk hashes many small files, and a
 * zeroed 1 MiB buffer for each cost more than the file's whole read.
 */
export async function hashChecked(
  file: string,
  sizeHint: number,
): Promise<{ hash: string; size: number } | null> {
  let f: Deno.FsFile;
  try {
    f = await Deno.open(file, { read: true });
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  try {
    const h = createHash("sha256");
    // One byte over the hint, so that a file of the size seen ends in one read.
    const buf = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(sizeHint + 1, 16 * 1024)));
    let size = 0;
    for (;;) {
      const n = await f.read(buf);
      if (n === null) break;
      h.update(buf.subarray(0, n));
      size += n;
    }
    return { hash: h.digest("hex"), size };
  } finally {
    f.close();
  }
}

/**
 * Writes `stream` to the cache file of `path` (its absolute name from
 * `resolve`, which checks the path) through a temp file beside it, hashing
 * as it goes; returns the hex SHA-256. A size or hash other than `expect`
 * throws `corrupt_download`, a stream that breaks off a retryable
 * `unreachable` error; either way the temp file is removed and the cached
 * copy left as it was. `onBytes` hears the bytes written so far. Aborting
 * `signal` cancels the stream (also one whose source does not stop by
 * itself) and throws its reason, the temp file removed first. With
 * `records`, the temp file is recorded (cache-relative) before it is made,
 * and the record removed once it is in place or removed: a download killed
 * part way leaves the record, by which a later pull finds the file.
 */
export async function streamToFile(
  path: string,
  resolve: () => Promise<string>,
  stream: ReadableStream<Uint8Array>,
  expect: { size: number; sha256?: string },
  onBytes?: (written: number) => void,
  check?: TargetCheck,
  signal?: AbortSignal,
  records?: TempRecords,
): Promise<string> {
  // The stream is taken at once, so that every failure below, also one
  // before the first read, cancels it (a store's file or connection).
  const reader = stream.getReader();
  // Cancelled: a read waiting on the stream ends at once (as done).
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  const hash = createHash("sha256");
  let size = 0;
  let tmp: string | undefined;
  let placed = false;
  let unrecord: (() => Promise<void>) | undefined;
  try {
    // Cancelled before this download began (its store's open does not stop
    // at the signal): the listener above never hears an abort that came
    // first, and a stream that sends nothing would be waited on for good.
    signal?.throwIfAborted();
    const file = await resolve();
    const dir = file.slice(0, file.lastIndexOf("/")) || "/";
    // A file at the parent itself fails as "already exists": told as the
    // "not a directory" it is, a path blocked (as a whole write's is).
    await Deno.mkdir(dir, { recursive: true }).catch((e) => {
      throw notADirectory(path.slice(0, path.lastIndexOf("/")), e);
    });
    const name = file.slice(dir.length + 1);
    const stem = new TextEncoder().encode(name).length > 200 ? "" : name;
    // A name `isTempFileName` (atomic_write.ts) knows: never pushed nor pulled if left behind.
    const tmpName = `${stem}${TEMP_INFIX}${randomId(6)}.tmp`;
    unrecord = await records?.record(`${path.slice(0, path.lastIndexOf("/") + 1)}${tmpName}`);
    tmp = `${dir}/${tmpName}`;
    {
      using out = await Deno.open(tmp, { write: true, createNew: true });
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          if (e instanceof SluiceError) throw e;
          throw new UnreachableError(
            `the download of ${path} broke off after ${size} bytes (${
              e instanceof Error ? e.message : String(e)
            }); nothing was written for it and the cached copy was kept`,
            { cause: e },
          );
        }
        signal?.throwIfAborted();
        if (chunk.done) break;
        size += chunk.value.length;
        if (size > expect.size) break;
        hash.update(chunk.value);
        for (let off = 0; off < chunk.value.length;) {
          off += await out.write(chunk.value.subarray(off));
        }
        onBytes?.(size);
      }
    }
    const got = size === expect.size ? hash.digest("hex") : null;
    if (got === null || (expect.sha256 !== undefined && got !== expect.sha256)) {
      const what = got === null
        ? `size ${size > expect.size ? `more than ${expect.size}` : size}, expected ${expect.size}`
        : `SHA-256 ${got.slice(0, 12)}…, expected ${expect.sha256?.slice(0, 12)}…`;
      throw new SluiceError(
        "corrupt_download",
        `The download of ${path} does not match the remote index (${what}). Nothing was written for it; the cached copy was kept. Run the pull again.`,
        { retryable: true },
      );
    }
    const old = await keepModeAsync(file, tmp);
    check?.(old);
    await Deno.rename(tmp, file);
    placed = true;
    return got;
  } finally {
    signal?.removeEventListener("abort", stop);
    await reader.cancel().catch(() => {});
    if (!placed && tmp) await Deno.remove(tmp).catch(() => {});
    // Best effort: a record left names a file gone, which the next pull drops.
    await unrecord?.().catch(() => {});
  }
}
