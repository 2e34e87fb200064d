/**
 * The local cache directory: its path checks and reads (`cache_reads.ts`,
 * `cache_read.ts`), atomic writes, removal, and the entry points to the
 * state directory (`cache_state.ts`), streamed I/O (`cache_stream.ts`) and
 * walks (`cache_walk.ts`); the errors it turns the filesystem's into are in
 * `cache_errors.ts`, the look again before a write in `file_identity.ts`.
 *
 * @module
 */
import { assertSafeRelPath } from "../paths.ts";
import type { CacheAccess } from "../context.ts";
import { atomicWrite, atomicWriteAsync, atomicWriteSync, SMALL_WRITE_MAX } from "./atomic_write.ts";
import {
  type FileIdentity,
  LocalChangedError,
  sameIdentity,
  targetCheck,
} from "./file_identity.ts";
import { streamToFile } from "./cache_stream.ts";
import { CacheReads } from "./cache_reads.ts";
import { refuseLink, unwritable } from "./cache_errors.ts";
import {
  createStateFile,
  putBackIn,
  readStateFile,
  removeStateFile,
  setAsideIn,
  setAsideSource,
  writeStateFile,
} from "./cache_state.ts";
import { ParentDirs } from "./cache_dirs.ts";
import { abs, exists, isNotFound, lstatOrNull } from "./cache_paths.ts";
import { walkFiles } from "./cache_walk.ts";
import { MetadataPace, type MetadataPaceOptions } from "./metadata_pace.ts";
import { TempRecords } from "./temp_records.ts";

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
export { CacheReads } from "./cache_reads.ts";

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
export class LocalCache extends CacheReads implements CacheAccess {
  readonly #clockNow: () => number;
  readonly #parents: ParentDirs;
  readonly #pace: MetadataPace;
  /** The records of the temporary files of streamed downloads (see `temp_records.ts`). */
  readonly tempRecords: TempRecords;

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
    super(dir, stateDir);
    this.#clockNow = now;
    this.#parents = new ParentDirs(this.dir, this.checked);
    this.#pace = new MetadataPace(metadata);
    this.tempRecords = new TempRecords(this.stateDir);
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

  async write(path: string, body: Uint8Array): Promise<void> {
    await this.writeWithStat(path, body);
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
  ): Promise<{ size: number; mtimeMs: number; ctimeMs?: number }> {
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
  ): Promise<{ size: number; mtimeMs: number; ctimeMs?: number }> {
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
    // The ctime of the file written, before its rename: the rename moves it
    // within the same second or into the next (the system gives it to the
    // second), and a later ctime found by a walk only costs one hash there.
    return { size: st.size, mtimeMs: st.mtime?.getTime() ?? 0, ctimeMs: st.ctime?.getTime() };
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

  /** {@link CacheAccess.keepDirectory}. */
  keepDirectory(path: string): boolean {
    if (this.exists(path)) return false;
    this.makeParents(`${path}/keep`); // the parents of a name in it: the directory itself
    return this.holdsDirectory(path);
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
   * cached copy as it was (see `streamToFile` in `cache_stream.ts`). Its
   * temporary file is recorded in the state directory while it is written
   * (see `temp_records.ts`).
   */
  async writeStream(
    path: string,
    stream: ReadableStream<Uint8Array>,
    expect: { size: number; sha256?: string },
    onBytes?: (written: number) => void,
    seen?: FileIdentity,
    signal?: AbortSignal,
  ): Promise<string> {
    const check = seen === undefined ? undefined : targetCheck(path, seen);
    try {
      return await streamToFile(
        path,
        () => this.resolve(path),
        stream,
        expect,
        onBytes,
        check,
        signal,
        this.tempRecords,
      );
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
   * {@link CacheAccess.setAside}; `conflict` and `lostTo`, when given, are
   * kept in the copy's `REASON.json` (see `SetAsideReason`).
   */
  async setAside(
    path: string,
    reason: string,
    code?: string,
    conflict?: Record<string, unknown>,
    lostTo?: string,
  ): Promise<string> {
    const from = await this.resolve(path);
    return await setAsideIn(this.stateDir, from, path, {
      reason,
      code,
      at: this.#clockNow(),
      ...(conflict ? { conflict } : {}),
      ...(lostTo !== undefined ? { lostTo } : {}),
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

  /** The state directory's identity (`<dev>:<ino>`), null where the system gives none or it is absent. */
  stateIdentity(): string | null {
    try {
      const st = Deno.statSync(this.stateDir);
      return st.ino !== null && st.dev !== null ? `${st.dev}:${st.ino}` : null;
    } catch {
      return null;
    }
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

  async writeState(
    name: string,
    value: unknown,
    options: { durable?: boolean } = {},
  ): Promise<void> {
    try {
      await writeStateFile(this.stateDir, name, value, options.durable ?? true);
    } catch (e) {
      throw unwritable(this.stateDir, name, e);
    }
  }

  /**
   * Writes the state file `name` only where none is (see
   * `createStateFile`): false when another process made it first.
   */
  async createState(name: string, value: unknown): Promise<boolean> {
    try {
      return await createStateFile(this.stateDir, name, value);
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
