/**
 * {@link FsStore}: the embedded default {@link ObjectStore}, a local
 * directory that several processes may share.
 *
 * Layout under `root`:
 *
 * - `objects/<key>`: one file per object, its version and metadata in a
 *   header line before the body (see `object_file.ts`), so bytes and version
 *   change together;
 * - `tmp/`: bodies being written (fsynced, then linked or renamed into
 *   place); leftovers of a crashed writer are safe to delete while no writer
 *   runs;
 * - `locks/<sha256(key)>.lock`: short-lived per-key lock files that make
 *   `update`, `overwrite` and `delete` linearisable across processes.
 *
 * A directory cannot hold both a key `a` and keys under `a/`; such a write is
 * refused with `UnsafePathError` (keys that mirror a cache directory never do
 * this). On case-insensitive filesystems keys differing only in case collide.
 *
 * @module
 */
import { resolve } from "node:path";
import {
  AbortedError,
  AlreadyExistsError,
  KeyClashError,
  NotFoundError,
  PreconditionFailedError,
  UnreachableError,
} from "../../sync/errors.ts";
import type {
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";
import { bodySize, CHUNK_BYTES, isBodySource, sourceSizeError } from "../../sync/transfer/body.ts";
import { systemClock } from "../../sync/clock.ts";
import { assertSafeRelPath, parentOf } from "../../sync/paths.ts";
import { randomId, sha256Hex } from "../../sync/hash.ts";
import {
  CorruptObjectError,
  decodeObject,
  encodeHeader,
  encodeObject,
  infoOf,
  readHeaderOf,
  readObjectHeader,
} from "./object_file.ts";
import { FileLocks } from "./file_lock.ts";
import { ioError, isAbsent, syncDir, walkKeys } from "./fs_helpers.ts";

/** Options of {@link FsStore}. */
export interface FsStoreOptions {
  /** The store's directory; created on first write. Relative paths resolve against the cwd. */
  readonly root: string;
  /** Clock for recorded last-modified times; default the system clock. */
  readonly clock?: Clock;
  /** Page size of `list` when the caller gives none; default 1000. */
  readonly pageSize?: number;
  /** Age after which an abandoned per-key lock file is broken; default 10 000 ms. */
  readonly staleLockMs?: number;
  /** How long a write waits for a per-key lock; default 30 000 ms. */
  readonly lockWaitMs?: number;
}

/** Retries of a link/rename whose parent directory a concurrent delete pruned. */
const MAX_PLACE_ATTEMPTS = 5;

/**
 * An {@link ObjectStore} on a local directory, safe across processes.
 * `create` is a hard link that fails if the target exists; `update`,
 * `overwrite` and `delete` hold a per-key lock file around "check the
 * version, rename into place". Versions are random ids; `lastModified` is
 * the writer's clock at write time.
 *
 * @example
 * ```ts
 * import { FsStore } from "./store.ts";
 * import { PutModes } from "../../sync/ports.ts";
 * const store = new FsStore({ root: await Deno.makeTempDir() });
 * const v1 = await store.put("a.txt", new TextEncoder().encode("1"), PutModes.create);
 * await store.put("a.txt", new TextEncoder().encode("2"), PutModes.update(v1.version));
 * ```
 */
export class FsStore implements ObjectStore {
  /** `file://<root>`. */
  readonly endpoint: string;
  /** Absolute path of the store's directory. */
  readonly root: string;
  readonly #clock: Clock;
  readonly #pageSize: number;
  readonly #locks: FileLocks;

  constructor(options: FsStoreOptions) {
    this.root = resolve(options.root).replace(/[\\/]+$/, "") || "/";
    this.endpoint = `file://${this.root}`;
    this.#clock = options.clock ?? systemClock;
    this.#pageSize = Math.max(1, options.pageSize ?? 1000);
    this.#locks = new FileLocks(`${this.root}/locks`, {
      staleMs: options.staleLockMs,
      waitMs: options.lockWaitMs,
    });
  }

  /** Path of the file holding `key`. */
  objectPath(key: string): string {
    return `${this.root}/objects/${key}`;
  }

  /** Reads the object; `NotFoundError` when absent, `CorruptObjectError` for a damaged file. */
  async get(key: string, options: CallOptions = {}): Promise<GetResult> {
    this.#begin("get", key, options.signal);
    const path = this.objectPath(key);
    let file: Uint8Array;
    try {
      file = await Deno.readFile(path);
    } catch (e) {
      // A directory there holds other keys (`key/…`): no object at `key`.
      if (isAbsent(e) || e instanceof Deno.errors.IsADirectory) throw new NotFoundError(key);
      throw ioError("reading", path, e);
    }
    const { header, body } = decodeObject(path, file);
    return { ...infoOf(key, header), body: body.slice() };
  }

  /**
   * Streams the object's body in chunks from an open file (a concurrent
   * replace does not change what an open stream reads).
   */
  async getStream(key: string, options: CallOptions = {}): Promise<GetStreamResult> {
    this.#begin("get", key, options.signal);
    const path = this.objectPath(key);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (e) {
      if (isAbsent(e)) throw new NotFoundError(key);
      throw ioError("reading", path, e);
    }
    let header, bodyOffset;
    try {
      ({ header, bodyOffset } = await readHeaderOf(path, file));
      await file.seek(bodyOffset, Deno.SeekMode.Start);
    } catch (e) {
      file.close();
      if (e instanceof Deno.errors.IsADirectory) throw new NotFoundError(key); // as `get`
      throw e;
    }
    let left = header.size;
    const signal = options.signal;
    const close = () => {
      try {
        file.close();
      } catch { /* already closed */ }
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          if (signal?.aborted) throw new AbortedError(`The read of ${key}`);
          if (left === 0) {
            close();
            return controller.close();
          }
          const buf = new Uint8Array(Math.min(CHUNK_BYTES, left));
          const n = await file.read(buf);
          if (n === null) throw new CorruptObjectError(path, "body ended early");
          left -= n;
          controller.enqueue(buf.subarray(0, n));
        } catch (e) {
          close();
          controller.error(e);
        }
      },
      cancel: close,
    });
    return { ...infoOf(key, header), body };
  }

  /** The object's info from its header; `null` when absent. */
  async head(key: string, options: CallOptions = {}): Promise<ObjectInfo | null> {
    this.#begin("head", key, options.signal);
    return await this.#info(key);
  }

  /** Writes the object under `mode` (create: hard link; update/overwrite: locked rename). */
  async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    this.#begin("put", key, options.signal);
    const header = {
      version: randomId(12),
      size: bodySize(body),
      lastModified: this.#clock.now(),
      metadata: { ...(options.metadata ?? {}) },
    };
    const temp = isBodySource(body)
      ? await this.#writeTempStream(
        key,
        encodeHeader(header),
        body.size,
        body.stream(),
        options.signal,
      )
      : await this.#writeTemp(encodeObject(header, body));
    try {
      if (mode.kind === "create") {
        // A streamed body takes a while: the caller may have given up meanwhile.
        if (options.signal?.aborted) {
          throw new AbortedError(`The put of ${key}`, { cause: options.signal.reason });
        }
        await this.#place(key, temp, "link");
      } else {
        await this.#withKeyLock(key, options.signal, async (fence) => {
          if (mode.kind === "update") {
            const cur = await this.#info(key);
            if (!cur) throw new PreconditionFailedError(key, "it does not exist");
            if (cur.version !== mode.version) {
              throw new PreconditionFailedError(
                key,
                `version ${cur.version}, expected ${mode.version}`,
              );
            }
          }
          await fence();
          await this.#place(key, temp, "rename");
        });
      }
    } finally {
      await Deno.remove(temp).catch(() => {});
    }
    return infoOf(key, header);
  }

  /** Deletes the object (under the key's lock); prunes directories left empty. */
  async delete(key: string, options: DeleteOptions = {}): Promise<void> {
    this.#begin("delete", key, options.signal);
    const ifVersion = options.ifVersion;
    if (ifVersion === undefined && (await this.#info(key)) === null) return;
    await this.#withKeyLock(key, options.signal, async (fence) => {
      const cur = await this.#info(key);
      if (ifVersion !== undefined) {
        if (!cur) throw new PreconditionFailedError(key, "it does not exist");
        if (cur.version !== ifVersion) {
          throw new PreconditionFailedError(key, `version ${cur.version}, expected ${ifVersion}`);
        }
      }
      if (!cur) return;
      await fence();
      const path = this.objectPath(key);
      try {
        await Deno.remove(path);
      } catch (e) {
        if (!isAbsent(e)) throw ioError("deleting", path, e);
      }
      await this.#prune(parentOf(key));
    });
  }

  /** Objects whose key starts with `prefix`, page by page, in key order. */
  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<readonly ObjectInfo[]> {
    if (options.signal?.aborted) throw new AbortedError(`The list of ${prefix}`);
    const base = parentOf(prefix);
    if (base !== "") assertSafeRelPath(base);
    const size = Math.max(1, options.pageSize ?? this.#pageSize);
    let page: ObjectInfo[] = [];
    for await (const key of walkKeys(`${this.root}/objects`, base, prefix)) {
      if (options.signal?.aborted) throw new AbortedError(`The list of ${prefix}`);
      const info = await this.#info(key);
      if (!info) continue;
      page.push(info);
      if (page.length === size) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  #begin(op: string, key: string, signal: AbortSignal | undefined): void {
    assertSafeRelPath(key);
    if (signal?.aborted) throw new AbortedError(`The ${op} of ${key}`);
  }

  /** The object's info, or null when absent (a directory counts as absent). */
  async #info(key: string): Promise<ObjectInfo | null> {
    const path = this.objectPath(key);
    try {
      return infoOf(key, await readObjectHeader(path));
    } catch (e) {
      if (isAbsent(e) || e instanceof Deno.errors.IsADirectory) return null;
      throw ioError("reading", path, e);
    }
  }

  async #withKeyLock(
    key: string,
    signal: AbortSignal | undefined,
    fn: (fence: () => Promise<void>) => Promise<void>,
  ): Promise<void> {
    const lock = await this.#locks.acquire(await sha256Hex(new TextEncoder().encode(key)), signal);
    try {
      await fn(async () => {
        if (!(await lock.stillHeld())) {
          throw new UnreachableError(
            `the write lock on ${key} (${lock.path}) was broken while this write held it; nothing was written`,
          );
        }
      });
    } finally {
      await lock.release();
    }
  }

  /**
   * Writes a header and a streamed body to a temp file. The source's own
   * error propagates unchanged; a body of the wrong length is refused. Either
   * way the temp file is removed and nothing is placed.
   */
  async #writeTempStream(
    key: string,
    header: Uint8Array,
    size: number,
    stream: ReadableStream<Uint8Array>,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const dir = `${this.root}/tmp`;
    const path = `${dir}/${randomId(10)}.tmp`;
    const reader = stream.getReader();
    let file: Deno.FsFile | undefined;
    try {
      try {
        await Deno.mkdir(dir, { recursive: true });
        file = await Deno.open(path, { write: true, createNew: true });
        for (let off = 0; off < header.length;) off += await file.write(header.subarray(off));
      } catch (e) {
        throw ioError("writing", path, e);
      }
      let written = 0;
      for (;;) {
        const { done, value } = await reader.read(); // a source error propagates as is
        if (signal?.aborted) throw new AbortedError(`The put of ${key}`, { cause: signal.reason });
        if (done) break;
        written += value.length;
        if (written > size) break;
        try {
          for (let off = 0; off < value.length;) off += await file.write(value.subarray(off));
        } catch (e) {
          throw ioError("writing", path, e);
        }
      }
      if (written !== size) throw sourceSizeError(key, size, written);
      try {
        await file.sync();
      } catch (e) {
        throw ioError("writing", path, e);
      }
      return path;
    } catch (e) {
      await reader.cancel().catch(() => {});
      file?.close();
      file = undefined;
      await Deno.remove(path).catch(() => {});
      throw e;
    } finally {
      file?.close();
      reader.releaseLock();
    }
  }

  async #writeTemp(bytes: Uint8Array): Promise<string> {
    const dir = `${this.root}/tmp`;
    const path = `${dir}/${randomId(10)}.tmp`;
    try {
      await Deno.mkdir(dir, { recursive: true });
      using file = await Deno.open(path, { write: true, createNew: true });
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      await file.sync();
    } catch (e) {
      await Deno.remove(path).catch(() => {});
      throw ioError("writing", path, e);
    }
    return path;
  }

  /** Links (create-only) or renames `temp` to the key's path. */
  async #place(key: string, temp: string, how: "link" | "rename"): Promise<void> {
    const target = this.objectPath(key);
    const parent = target.slice(0, target.lastIndexOf("/"));
    for (let attempt = 1;; attempt++) {
      try {
        await Deno.mkdir(parent, { recursive: true });
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists || e instanceof Deno.errors.NotADirectory) {
          throw collision(key);
        }
        throw ioError("creating the directory", parent, e);
      }
      try {
        if (how === "link") await Deno.link(temp, target);
        else await Deno.rename(temp, target);
        await syncDir(parent);
        return;
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists && how === "link") {
          const cur = await this.#info(key);
          if (cur) throw new AlreadyExistsError(key, cur.version);
          if (await isDir(target)) throw collision(key);
        } else if (
          e instanceof Deno.errors.IsADirectory || e instanceof Deno.errors.NotADirectory
        ) {
          throw collision(key);
        } else if (!(e instanceof Deno.errors.NotFound)) {
          throw ioError("writing", target, e);
        }
        // The target vanished or a concurrent delete pruned the parent: try again.
        if (attempt >= MAX_PLACE_ATTEMPTS) throw ioError("writing", target, e);
      }
    }
  }

  /** Removes now-empty directories from `rel` upwards (a non-empty one stops it). */
  async #prune(rel: string): Promise<void> {
    for (let dir = rel; dir !== ""; dir = parentOf(dir)) {
      try {
        await Deno.remove(this.objectPath(dir));
      } catch {
        return;
      }
    }
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isDirectory;
  } catch {
    return false;
  }
}

function collision(key: string): KeyClashError {
  return new KeyClashError(
    key,
    "a local store cannot hold both a key and keys beneath it, and this key or one of its parents is taken by the other kind (a file where a directory of that name is on the datastore, or the reverse): delete the one on the datastore first (`sluice push <path>` of its deletion from a cache that has it), or rename the local one",
  );
}
