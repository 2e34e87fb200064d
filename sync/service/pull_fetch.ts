/**
 * How a pull reads one object into the cache: whole, or streamed in chunks
 * ({@link fetchers}). Either checks the object against its index entry and
 * writes nothing for an object that is not the version the entry names.
 *
 * @module
 */
import { hasCode, SluiceError } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import { withRetry } from "../retry.ts";
import { openObject } from "../transfer/body.ts";
import { isUnversioned } from "../transfer/bucket_layout.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import type { FileIdentity } from "../transfer/file_identity.ts";
import type { PullDeps } from "./pull.ts";

/**
 * The two ways a pull reads an object (`fetchWhole`, `fetchStreamed`). Each
 * returns the version read and the bytes' hash (empty, and nothing written,
 * when the version is not the entry's; a version ending in `~` for another
 * client's entry whose object does not match it). `moving` and `progress`
 * follow a large object's bytes as they come.
 */
export function fetchers(
  deps: Pick<PullDeps, "store" | "cache" | "config" | "signal">,
  moving: Map<string, number>,
  progress: () => void,
): {
  fetchWhole: (
    path: string,
    e: IndexEntry,
    seen?: FileIdentity,
  ) => Promise<[string, string, number?, number?]>;
  fetchStreamed: (path: string, e: IndexEntry, seen?: FileIdentity) => Promise<[string, string]>;
} {
  const { store, cache, config, signal } = deps;
  /**
   * Reads the object whole and writes it; returns the version read, the
   * bytes' hash and the mtime of the file written (nothing written if the
   * version is not `e.v`). With `seen`, the local file is replaced only
   * while it is what was seen there (else `LocalChangedError`).
   */
  const fetchWhole = async (
    path: string,
    e: IndexEntry,
    seen?: FileIdentity,
  ): Promise<[string, string, number?, number?]> => {
    const got = await withRetry(() => store.get(path, { signal }), config.retry, signal);
    if (!isUnversioned(e) && got.version !== e.v) return [got.version, ""];
    const hash = sha256HexSync(got.body);
    const badSize = got.body.length !== e.s;
    // An entry of another client whose object no longer matches it: that
    // client's push is in flight (its objects go before its index).
    if (isUnversioned(e) && (badSize || (e.h && hash !== e.h))) return [`${got.version}~`, ""];
    if (!isUnversioned(e) && (badSize || hash !== e.h)) {
      const what = badSize
        ? `size ${got.body.length}, expected ${e.s}`
        : `SHA-256 ${hash.slice(0, 12)}…, expected ${e.h.slice(0, 12)}…`;
      throw new SluiceError(
        "corrupt_download",
        `The download of ${path} does not match the remote index (${what}). Nothing was written for it; the cached copy was kept. Run the pull again.`,
        { retryable: true },
      );
    }
    const written = await cache.writeWithStat(path, got.body, seen);
    return [got.version, hash, written.mtimeMs, written.ctimeMs];
  };
  /**
   * Streams a large object into the cache in chunks (never held whole); a
   * transfer that breaks off is retried from the start.
   */
  const fetchStreamed = async (
    path: string,
    e: IndexEntry,
    seen?: FileIdentity,
  ): Promise<[string, string]> => {
    let corrupt: unknown;
    let hash = e.h;
    const version = await withRetry(
      async () => {
        const got = await openObject(store, path, { signal });
        if (!isUnversioned(e) && got.version !== e.v) {
          await got.body.cancel().catch(() => {});
          return got.version;
        }
        try {
          const expect = { size: e.s, sha256: e.h || undefined };
          hash = await cache.writeStream(
            path,
            got.body,
            expect,
            (written) => {
              moving.set(path, written);
              progress();
            },
            seen,
            signal,
          );
        } catch (err) {
          // Reported like a corrupt whole read: not retried here.
          if (!hasCode(err, "corrupt_download")) throw err;
          corrupt = err;
        }
        return got.version;
      },
      config.retry,
      signal,
    );
    if (corrupt) {
      // Another client's entry whose object does not match it: its push is in flight.
      if (isUnversioned(e)) return [`${version}~`, ""];
      throw corrupt;
    }
    return [version, hash];
  };
  return { fetchWhole, fetchStreamed };
}
