/**
 * The local cache directory: path checks (no link is ever followed), reads
 * (`cache_read.ts`) and atomic writes, removal, and the entry points to the
 * state directory (`cache_state.ts`), streamed I/O (`cache_stream.ts`) and
 * walks (`cache_walk.ts`); the errors it turns the filesystem's into are in
 * `cache_errors.ts`, the look again before a write in `file_identity.ts`.
 *
 * @module
 */
import { UnreadablePathError, UnsafePathError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";
import type { CacheAccess } from "../context.ts";
import { atomicWrite, atomicWriteAsync, atomicWriteSync, SMALL_WRITE_MAX } from "./atomic_write.ts";
import {
  type FileIdentity,
  identityOf,
  LocalChangedError,
  sameIdentity,
  targetCheck,
} from "./file_identity.ts";
import { streamToFile } from "./cache_stream.ts";
import { refuseLink, unreadable, unwritable } from "./cache_errors.ts";
import {
  type FoundFile,
  hashAt,
  type PushRead,
  readForPushAt,
  readWithStatAt,
  regularFileAt,
} from "./cache_read.ts";
import {
  putBackIn,
  readStateFile,
  removeStateFile,
  setAsideIn,
  setAsideSource,
  writeStateFile,
} from "./cache_state.ts";
import { ParentDirs } from "./cache_dirs.ts";
import {
  abs,
  defaultStateDir,
  exists,
  isNotFound,
  LINK_REFUSED,
  lstatOrNull,
  STATE_DIR,
  statePath,
} from "./cache_paths.ts";
import { walkFiles } from "./cache_walk.ts";
import { MetadataPace, type MetadataPaceOptions } from "./metadata_pace.ts";

export {
  defaultStateDir,
  findStateDir,
  LINK_REFUSED,
  NOT_REGULAR_REFUSED,
  sharedStateDir,
  shownStatePath,
  STATE_DIR,
  statePath,
} from "./cache_paths.ts";
export { type WalkedFile, walkFiles } from "./cache_walk.ts";
export { setAsideSource } from "./cache_state.ts";
export { unwritable } from "./cache_errors.ts";
export type { PushRead } from "./cache_read.ts";

/**
 * The cache directory seen through {@link CacheAccess}.
 *
 * @example
 * ```ts
 * import { LocalCache } from "./cache.ts";
 * const cache = new LocalCache(await Deno.makeTempDir());
 * await cache.write("a/b.txt", new TextEncoder().encode("x"));
 * ```
 */
export class LocalCache implements CacheAccess {
  readonly dir: string;
  /** Where this cache keeps its sync state (`<dir>/.sluice` unless told otherwise). */
  readonly stateDir: string;
  /** True when the state is not in the cache's own `.sluice/` (see {@link resolveSync}). */
  readonly #stateElsewhere: boolean;
  readonly #clockNow: () => number;
  readonly #checked = new Set<string>();
  readonly #parents: ParentDirs;
  readonly #pace: MetadataPace;

  /**
   * `now` stamps set-aside copies; `metadata` says how directories and small
   * files are made (synchronous calls until the filesystem proves slow at
   * them, by default: see `metadata_pace.ts`); `stateDir` is where the
   * sync state is kept (default `<dir>/.sluice`).
   */
  constructor(
    dir: string,
    now: () => number = Date.now,
    metadata: MetadataPaceOptions = {},
    stateDir?: string,
  ) {
    this.dir = dir.replace(/\/+$/, "");
    this.stateDir = stateDir?.replace(/\/+$/, "") ?? defaultStateDir(this.dir);
    this.#stateElsewhere = this.stateDir !== defaultStateDir(this.dir);
    this.#clockNow = now;
    this.#parents = new ParentDirs(this.dir, this.#checked);
    this.#pace = new MetadataPace(metadata);
  }

  /**
   * Forgets which directories were checked (call when the cache may have
   * changed underneath), and starts a new run of writes (synchronous again,
   * unless asynchronous is forced).
   */
  resetChecks(): void {
    this.#parents.reset();
    this.#pace.reset();
  }

  /** How the next small write is made: `"sync"` or `"async"` calls. */
  get writeCalls(): "sync" | "async" {
    return this.#pace.async ? "async" : "sync";
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
    // trailing slash: this is `abs(this.dir, path)`.)
    const slash = path.lastIndexOf("/");
    if (slash < 0 || this.#checked.has(path.slice(0, slash))) return `${this.dir}/${path}`;
    const parts = path.split("/");
    let rel = "";
    for (let i = 0; i < parts.length - 1; i++) {
      rel = rel ? `${rel}/${parts[i]}` : parts[i];
      if (this.#checked.has(rel)) continue;
      try {
        const st = Deno.lstatSync(abs(this.dir, rel));
        if (st.isSymlink) {
          throw new UnsafePathError(path, `${rel} is a symbolic link; ${LINK_REFUSED}`);
        }
        // Only a directory: a file here is looked at again (it may be removed,
        // and a directory made in its place, before the next write under it).
        if (st.isDirectory) this.#checked.add(rel);
      } catch (e) {
        if (isNotFound(e)) break;
        throw unreadable(path, e);
      }
    }
    return abs(this.dir, path);
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
  #regularFile(path: string): FoundFile | null {
    return regularFileAt(this.resolveSync(path), path);
  }

  /**
   * True when `path` is a regular file in the cache (not a link, nor under
   * one: `UnsafePathError` then); false when absent or of another kind.
   */
  isRegularFileSync(path: string): boolean {
    return this.#regularFile(path) !== null;
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
    const found = this.#regularFile(path);
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
      found = this.#regularFile(path);
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
    const found = this.#regularFile(path);
    return found ? await hashAt(found, path) : null;
  }

  /**
   * Size and mtime of a regular file; null when absent or not a file. A
   * symlink (or a path under one) throws `UnsafePathError`: it is not an
   * absent file, so a push must not take it for a deletion.
   */
  stat(path: string): Promise<{ size: number; mtimeMs: number } | null> {
    try {
      const found = this.#regularFile(path);
      return Promise.resolve(
        found ? { size: found.st.size, mtimeMs: found.st.mtime?.getTime() ?? 0 } : null,
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async write(path: string, body: Uint8Array): Promise<void> {
    await this.writeWithStat(path, body);
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

  /**
   * {@link write}, returning the size and mtime of the file written. Missing
   * parent directories are made; a link on the way is refused. With
   * `expect` (see {@link identity}), the file is replaced only while the
   * path still holds what was seen there, else `LocalChangedError` and
   * nothing written.
   */
  async writeWithStat(
    path: string,
    body: Uint8Array,
    expect?: FileIdentity,
  ): Promise<{ size: number; mtimeMs: number }> {
    try {
      return await this.#writeWithStat(path, body, expect);
    } catch (e) {
      throw e instanceof LocalChangedError ? e : unwritable(this.dir, path, e);
    }
  }

  async #writeWithStat(
    path: string,
    body: Uint8Array,
    expect?: FileIdentity,
  ): Promise<{ size: number; mtimeMs: number }> {
    assertSafeRelPath(path);
    const file = abs(this.dir, path);
    let st: Deno.FileInfo;
    // In a directory this cache just made there is no file to keep the mode
    // of. Checked all the same: a user may have saved one there since (the
    // directory may be one this pull made for another file).
    const inNew = () => this.#parents.firstInNew(path);
    const check = expect === undefined ? undefined : targetCheck(path, expect);
    if (body.length <= SMALL_WRITE_MAX && !this.#pace.async) {
      // Timed: where these calls prove slow, the rest of the run makes them asynchronously.
      st = this.#pace.timed(() => {
        refuseLink(path, this.#parents.make(path));
        return atomicWriteSync(file, body, !inNew(), check);
      });
    } else {
      refuseLink(path, await this.#parents.makeAsync(path));
      if (body.length <= SMALL_WRITE_MAX) {
        st = await atomicWriteAsync(file, body, !inNew(), check);
      } else {
        await atomicWrite(file, body, false, check);
        st = await Deno.lstat(file);
      }
    }
    return { size: st.size, mtimeMs: st.mtime?.getTime() ?? 0 };
  }

  /**
   * Makes the missing parent directories of `path`, best effort: a link or
   * a file on the way is left as it is (a write there is refused later).
   */
  makeParents(path: string): void {
    assertSafeRelPath(path);
    try {
      this.#parents.make(path);
    } catch {
      // Something in the way: the write that needs the directory says so.
    }
  }

  /**
   * Removes the file at `path` while it still holds what `expect` saw there
   * (else `LocalChangedError`, nothing removed; undefined: not checked), then each directory above
   * it that this left empty (never the cache's root): an emptied directory
   * would be in the way of a file of its name the datastore may hold.
   * Never removes a directory's contents.
   */
  async removeFile(path: string, expect: FileIdentity | undefined): Promise<void> {
    const file = this.resolveSync(path);
    if (expect !== undefined && !sameIdentity(expect, lstatOrNull(file))) {
      throw new LocalChangedError(path);
    }
    try {
      await Deno.remove(file);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    await this.removeEmptyParents(path);
  }

  /**
   * Removes each directory above `path` that is empty, nearest first, up to
   * the first that is not (never the cache's root): once `path` was moved or
   * removed, an emptied directory would be in the way of a file of its name
   * the datastore may hold. Never removes a directory's contents.
   */
  async removeEmptyParents(path: string): Promise<void> {
    assertSafeRelPath(path);
    for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
      const dir = path.slice(0, at);
      try {
        await Deno.remove(abs(this.dir, dir));
      } catch {
        return; // not empty (or not ours to remove): the directories above are not either
      }
      this.#parents.forget(dir); // a later write there makes it again
    }
  }

  /**
   * Writes a stream to a cache file atomically, hashing as it goes, never
   * holding the whole body; a size or hash other than `expect` leaves the
   * cached copy as it was (see `streamToFile` in `cache_stream.ts`).
   */
  async writeStream(
    path: string,
    stream: ReadableStream<Uint8Array>,
    expect: { size: number; sha256?: string },
    onBytes?: (written: number) => void,
    seen?: FileIdentity,
  ): Promise<string> {
    const check = seen === undefined ? undefined : targetCheck(path, seen);
    try {
      return await streamToFile(path, () => this.resolve(path), stream, expect, onBytes, check);
    } catch (e) {
      throw e instanceof LocalChangedError ? e : unwritable(this.dir, path, e);
    }
  }

  async remove(path: string): Promise<void> {
    try {
      await Deno.remove(await this.resolve(path.replace(/\/+$/, "")), { recursive: true });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  async listFiles(dir: string): Promise<string[]> {
    const clean = dir.replace(/\/+$/, "");
    if (clean) await this.resolve(clean);
    const out: string[] = [];
    for await (const f of walkFiles(this.dir, clean)) out.push(f.path);
    return out;
  }

  /**
   * {@link CacheAccess.setAside}; `conflict`, when given, is kept in the
   * copy's `REASON.json` (see `SetAsideReason`).
   */
  async setAside(
    path: string,
    reason: string,
    code?: string,
    conflict?: Record<string, unknown>,
  ): Promise<string> {
    const from = await this.resolve(path);
    return await setAsideIn(this.stateDir, from, path, {
      reason,
      code,
      at: this.#clockNow(),
      ...(conflict ? { conflict } : {}),
    });
  }

  /**
   * Moves a copy {@link setAside} moved to `location` back to the path it
   * came from, only while nothing is there (never over a file, directory or
   * link: see `putBackIn` in `cache_state.ts`). Each directory on its way is
   * looked at again (none is taken as checked: one may have been replaced
   * since), and made where missing. True when moved back; false when
   * something is at the path or in its way (a file where a directory must
   * be, a link): the copy then stays where it is.
   */
  putBack(location: string): boolean {
    assertSafeRelPath(setAsideSource(location));
    return putBackIn(this.dir, this.stateDir, location);
  }

  async moveToState(path: string, name: string): Promise<void> {
    const from = await this.resolve(path.replace(/\/+$/, ""));
    const to = `${this.stateDir}/${name}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    try {
      await Deno.rename(from, to);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await Deno.mkdir(to, { recursive: true });
    }
    this.#parents.reset(); // the directories checked under it are gone
  }

  hasState(name: string): boolean {
    return exists(`${this.stateDir}/${name}`);
  }

  removeState(name: string): Promise<void> {
    return removeStateFile(this.stateDir, name);
  }

  readState<T>(name: string): Promise<T | null> {
    return readStateFile<T>(this.stateDir, name);
  }

  async readStateBytes(name: string): Promise<Uint8Array | null> {
    try {
      return await Deno.readFile(`${this.stateDir}/${name}`);
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async writeState(name: string, value: unknown): Promise<void> {
    try {
      await writeStateFile(this.stateDir, name, value);
    } catch (e) {
      throw unwritable(this.stateDir, name, e);
    }
  }

  async writeStateBytes(name: string, body: Uint8Array): Promise<void> {
    try {
      await atomicWrite(`${this.stateDir}/${name}`, body);
    } catch (e) {
      throw unwritable(this.stateDir, name, e);
    }
  }
}
