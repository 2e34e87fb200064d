/**
 * The reads of the local cache directory, and its path checks: no link is
 * ever followed, on the way to a path or at it. A state location
 * (`.sluice/…`) names a file in the state directory, wherever that is. The
 * writes are `LocalCache`'s (`cache.ts`), which extends this.
 *
 * @module
 */
import { UnreadablePathError, UnsafePathError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";
import { type FileIdentity, identityOf } from "./file_identity.ts";
import { unreadable } from "./cache_errors.ts";
import {
  type FoundFile,
  hashAt,
  type PushRead,
  readForPushAt,
  readWithStatAt,
  regularFileAt,
} from "./cache_read.ts";
import {
  defaultStateDir,
  exists,
  isNotFound,
  LINK_REFUSED,
  lstatOrNull,
  STATE_DIR,
  statePath,
} from "./cache_paths.ts";

/**
 * The reads of the cache directory `dir`, whose sync state is in `stateDir`.
 *
 * @example
 * ```ts
 * import { CacheReads } from "./cache_reads.ts";
 * const cache = new CacheReads(await Deno.makeTempDir());
 * console.log(await cache.read("a.txt")); // null
 * ```
 */
export class CacheReads {
  readonly dir: string;
  /** Where this cache keeps its sync state (`<dir>/.sluice` unless told otherwise). */
  readonly stateDir: string;
  /** True when the state is not in the cache's own `.sluice/` (see {@link resolveSync}). */
  readonly #stateElsewhere: boolean;
  /** Directories checked to be directories (not links), for the writes too. */
  protected readonly checked: Set<string> = new Set<string>();

  /** `stateDir` is where the sync state is kept (default `<dir>/.sluice`). */
  constructor(dir: string, stateDir?: string) {
    this.dir = dir.replace(/\/+$/, "");
    this.stateDir = stateDir?.replace(/\/+$/, "") ?? defaultStateDir(this.dir);
    this.#stateElsewhere = this.stateDir !== defaultStateDir(this.dir);
  }

  /** Absolute path of a cache-relative path, refusing unsafe paths and symlinks on the way. */
  resolve(path: string): Promise<string> {
    try {
      return Promise.resolve(this.resolveSync(path));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * {@link resolve}, synchronously (throws instead of rejecting). A state
   * location (`.sluice/…`, as records name a set-aside copy) is the file in
   * the state directory, wherever that is: the reads of this class (`read`,
   * `hashFile`, `readForPush`, `stat`, `exists`) find a set-aside copy by its
   * location, also when the state is kept outside the cache's `.sluice/`.
   */
  resolveSync(path: string): string {
    assertSafeRelPath(path);
    if (this.#stateElsewhere && (path === STATE_DIR || path.startsWith(`${STATE_DIR}/`))) {
      return statePath(this.stateDir, path);
    }
    // A directory is marked checked only once every directory above it is:
    // a checked parent (or none) leaves nothing to check. (`dir` has no
    // trailing slash: `${this.dir}/${rel}` is `abs(this.dir, rel)`.)
    const slash = path.lastIndexOf("/");
    if (slash < 0 || this.checked.has(path.slice(0, slash))) return `${this.dir}/${path}`;
    // Each directory above, from the top, sliced off the path.
    for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) {
      const rel = path.slice(0, at);
      if (this.checked.has(rel)) continue;
      try {
        const st = Deno.lstatSync(`${this.dir}/${rel}`);
        if (st.isSymlink) {
          throw new UnsafePathError(path, `${rel} is a symbolic link; ${LINK_REFUSED}`);
        }
        // Only a directory: a file here is looked at again (it may be removed,
        // and a directory made in its place, before the next write under it).
        if (st.isDirectory) this.checked.add(rel);
      } catch (e) {
        if (isNotFound(e)) break;
        throw unreadable(path, e);
      }
    }
    return `${this.dir}/${path}`;
  }

  async read(path: string): Promise<Uint8Array | null> {
    return (await this.readWithStat(path))?.body ?? null;
  }

  /**
   * The absolute file of `path` and its lstat when it is a regular file;
   * null when absent or not a file; `UnsafePathError` for a symlink (or a
   * path under one). Synchronous: a push or walk of many small files is
   * dominated by per-call overhead, not by I/O.
   */
  protected regularFile(path: string): FoundFile | null {
    return regularFileAt(this.resolveSync(path), path);
  }

  /**
   * True when `path` is a regular file in the cache (not a link, nor under
   * one: `UnsafePathError` then); false when absent or of another kind.
   */
  isRegularFileSync(path: string): boolean {
    return this.regularFile(path) !== null;
  }

  /**
   * True when `path` is a directory in the cache (not a link to one); false
   * when absent; `UnreadablePathError` when this process may not look there
   * (under a directory it may not search).
   */
  isDirectory(path: string): boolean {
    const file = this.resolveSync(path);
    try {
      const st = Deno.lstatSync(file);
      return st.isDirectory && !st.isSymlink;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw unreadable(path, e);
    }
  }

  /**
   * {@link isDirectory}, and false where it cannot be told (a link at or on
   * the way, or a directory this process may not look into).
   */
  holdsDirectory(path: string): boolean {
    try {
      return this.isDirectory(path);
    } catch (e) {
      if (e instanceof UnsafePathError || e instanceof UnreadablePathError) return false;
      throw e;
    }
  }

  /**
   * True when no file is at `path` any more: nothing is there, or a
   * directory of its name (a synced file replaced by one).
   */
  fileGone(path: string): boolean {
    return !this.exists(path) || this.holdsDirectory(path);
  }

  /**
   * True when anything is at `path`: a file, a directory, or a link (a path
   * under a link, or one this process may not look at, counts as present, so
   * it is never taken for a deletion).
   */
  exists(path: string): boolean {
    let file: string;
    try {
      file = this.resolveSync(path);
    } catch (e) {
      // Under a link, or under a directory this process may not look into:
      // present all the same, never a deletion.
      if (e instanceof UnsafePathError || e instanceof UnreadablePathError) return true;
      throw e;
    }
    return exists(file);
  }

  /**
   * A cache file's bytes with the size and mtime seen just before reading
   * (one lstat, one read); null when absent or not a regular file.
   */
  async readWithStat(
    path: string,
  ): Promise<{ body: Uint8Array; size: number; mtimeMs: number } | null> {
    const found = this.regularFile(path);
    return found ? await readWithStatAt(found, path) : null;
  }

  /**
   * A cache file ready to push: its bytes (read whole when at most
   * `streamThreshold` bytes) or a {@link BodySource} that streams it in
   * chunks and fails if the file changes under the upload, with its hex
   * SHA-256, size, and the mtime seen before reading. Null when absent or not
   * a regular file; a symlink throws `UnsafePathError`.
   */
  readForPush(
    path: string,
    streamThreshold: number,
    onBytes?: (delivered: number) => void,
  ): Promise<PushRead | null> {
    let found: FoundFile | null;
    try {
      found = this.regularFile(path);
    } catch (e) {
      return Promise.reject(e);
    }
    return found ? readForPushAt(found, path, streamThreshold, onBytes) : Promise.resolve(null);
  }

  /**
   * Hex SHA-256 and size of a cache file, read in 1 MiB chunks so the file is
   * never held whole in memory (the walk hashes every changed file); null
   * when absent or not a regular file. Refuses symlinks like {@link read}.
   */
  async hashFile(path: string): Promise<{ hash: string; size: number } | null> {
    const found = this.regularFile(path);
    return found ? await hashAt(found, path) : null;
  }

  /**
   * Size and mtime of a regular file; null when absent or not a file. A
   * symlink (or a path under one) throws `UnsafePathError`: it is not an
   * absent file, so a push must not take it for a deletion.
   */
  stat(path: string): Promise<{ size: number; mtimeMs: number; ctimeMs?: number } | null> {
    try {
      const found = this.regularFile(path);
      return Promise.resolve(
        found
          ? {
            size: found.st.size,
            mtimeMs: found.st.mtime?.getTime() ?? 0,
            ctimeMs: found.st.ctime?.getTime(),
          }
          : null,
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * What is at `path` now, as one lstat sees it (null: nothing), for a
   * write or removal to check again ({@link writeWithStat},
   * {@link removeFile}); undefined when it cannot be looked at (under a
   * link, or refused), which such a write refuses or reports by itself.
   */
  identity(path: string): FileIdentity | undefined {
    try {
      return identityOf(lstatOrNull(this.resolveSync(path)));
    } catch {
      return undefined;
    }
  }
}
