/**
 * Atomic, durable file writes for the cache and its sync state: a temp file
 * beside the target, fsync, rename, then fsync of the directory.
 *
 * @module
 */
import { randomId } from "../hash.ts";
import { lstatOrNull } from "./cache_paths.ts";

/**
 * Writes `body` to `file` atomically: a temp file in the same directory,
 * fsync, rename, then fsync of the directory when `durable`.
 *
 * @example
 * ```ts
 * import { atomicWrite } from "./atomic_write.ts";
 * const dir = await Deno.makeTempDir();
 * await atomicWrite(`${dir}/state/a.json`, new TextEncoder().encode("{}"));
 * ```
 */
export async function atomicWrite(
  file: string,
  body: Uint8Array,
  durable = true,
  check?: TargetCheck,
): Promise<void> {
  const dir = file.slice(0, file.lastIndexOf("/")) || "/";
  await Deno.mkdir(dir, { recursive: true });
  const tmp = tempBeside(dir, file);
  const f = await Deno.open(tmp, { write: true, createNew: true });
  try {
    let off = 0;
    while (off < body.length) off += await f.write(body.subarray(off));
    if (durable) await f.sync();
  } finally {
    f.close();
  }
  try {
    const old = await keepModeAsync(file, tmp);
    check?.(old);
    await Deno.rename(tmp, file);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  if (durable) await fsyncDir(dir);
}

/**
 * Called with the lstat of the file a write is about to replace (null: none
 * there), just before the rename; throws to leave it as it is (the temp
 * file is removed). A pull checks that the file is still the one it looked
 * at: a user's edit saved meanwhile is never replaced.
 */
export type TargetCheck = ((old: Deno.FileInfo | null) => void) & {
  /** True when the check passes only while nothing is there. */
  readonly nothing?: boolean;
};

/**
 * For a check that expects nothing at `file`: puts the temp file `tmp` there
 * by a hard link, which never replaces anything (no look first: nothing
 * found there throws, and none can come between a look and the move), then
 * removes the temp name. True when done; false when the filesystem makes no
 * hard links, or a directory is there (the caller's rename then does as it
 * does); throws the check's error when something else is there.
 */
function linkIntoNothing(tmp: string, file: string, check: TargetCheck): boolean {
  try {
    Deno.linkSync(tmp, file);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) check(lstatOrNull(file));
    return false;
  }
  try {
    Deno.removeSync(tmp);
  } catch { /* written all the same: a temp name left beside it is the cache's to ignore */ }
  return true;
}

/** Async {@link linkIntoNothing}. */
async function linkIntoNothingAsync(
  tmp: string,
  file: string,
  check: TargetCheck,
): Promise<boolean> {
  try {
    await Deno.link(tmp, file);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) {
      check(
        await Deno.lstat(file).catch((e) => {
          if (e instanceof Deno.errors.NotFound) return null;
          throw e;
        }),
      );
    }
    return false;
  }
  await Deno.remove(tmp).catch(() => {});
  return true;
}

/**
 * The permission bits a write keeps: those of the regular file `file`
 * replaces (a file made read-only or executable by hand stays so when its
 * bytes are replaced), `undefined` when there is none or they are the new
 * file's already. Set-id bits are never carried over.
 */
function modeToKeep(old: Deno.FileInfo | null, made: Deno.FileInfo): number | undefined {
  if (!old?.isFile || old.mode === null || made.mode === null) return undefined;
  const keep = old.mode & 0o1777;
  return keep === (made.mode & 0o1777) ? undefined : keep;
}

/**
 * Gives the temp file `tmp` the permission bits of the file it replaces (see
 * {@link modeToKeep}); returns that file's lstat (null: none there).
 */
export async function keepModeAsync(
  file: string,
  tmp: string,
  made?: Deno.FileInfo,
): Promise<Deno.FileInfo | null> {
  const old = await Deno.lstat(file).catch((e) => {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  });
  const mode = modeToKeep(old, made ?? await Deno.lstat(tmp));
  if (mode !== undefined) await Deno.chmod(tmp, mode);
  return old;
}

/** Temp names: random per process, then counted (a temp file is always created new). */
const TEMP_TAG = randomId(4);
let tempSeq = 0;

/**
 * True for the name of a temporary file caught between its write and its
 * rename: Sluice's (`<name>.sluice-<id>.tmp`, from this module and from
 * a streamed download; `.sluice-<id>.tmp` for a long name; the id is
 * eight hex digits of the process's tag and a base-36 count) and the
 * tool's own (`.<uuid>.tmp`). Never pushed or pulled as a file of the
 * datastore's; any other name is (a `yarn.lock`, a `notes.tmp`, a
 * `report.20241231.tmp`).
 *
 * @example
 * ```ts
 * import { isTempFileName } from "./atomic_write.ts";
 * isTempFileName("raw.sluice-9f86d0811.tmp"); // true
 * isTempFileName("report.20241231.tmp"); // false
 * ```
 */
export function isTempFileName(base: string): boolean {
  return TEMP_NAME.test(base);
}

/**
 * True for the name of Sluice's own temporary files only
 * (`<name>.sluice-<id>.tmp`), not the tool's (`.<uuid>.tmp`).
 *
 * @example
 * ```ts
 * import { isOwnTempFileName } from "./atomic_write.ts";
 * isOwnTempFileName("raw.sluice-9f86d0811.tmp"); // true
 * isOwnTempFileName(".0b6f2c1e-1d2a-4c3b-9e8f-123456789abc.tmp"); // false
 * ```
 */
export function isOwnTempFileName(base: string): boolean {
  return OWN_TEMP_NAME.test(base);
}

/** The infix of Sluice's temporary file names (see {@link isTempFileName}). */
export const TEMP_INFIX = ".sluice-";

const OWN_TEMP_NAME = /\.sluice-[0-9a-f]{8,}[0-9a-z]*\.tmp$/;
const TEMP_NAME =
  /\.sluice-[0-9a-f]{8,}[0-9a-z]*\.tmp$|^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/**
 * A fresh temp name in `dir` (the directory of `file`). It fits the 255-byte
 * limit of one name even when the file's own name nearly fills it (a long
 * name then gets a short temp name).
 */
function tempBeside(dir: string, file: string): string {
  const name = file.slice(dir.length + 1);
  // At most 3 UTF-8 bytes per UTF-16 unit: most names need no encoding.
  const long = name.length * 3 > 200 && new TextEncoder().encode(name).length > 200;
  return `${dir}/${long ? "" : name}${TEMP_INFIX}${TEMP_TAG}${(++tempSeq).toString(36)}.tmp`;
}

/**
 * {@link atomicWrite} without fsync, in synchronous calls, into a directory
 * that exists: a temp file written in one call, then a rename. For small
 * bodies, where each asynchronous call (open, write, close, rename) cost
 * more than its I/O. Returns the lstat of the file written (taken before
 * the rename, so it is the written file's, whatever replaces it later). On
 * failure the temp file is removed and the target left as it was. The file
 * replaced keeps its permission bits, unless `keepMode` is false (the
 * caller knows there is none: its directory was just made).
 */
export function atomicWriteSync(
  file: string,
  body: Uint8Array,
  keepMode = true,
  check?: TargetCheck,
): Deno.FileInfo {
  const tmp = tempBeside(file.slice(0, file.lastIndexOf("/")) || "/", file);
  let created = false;
  try {
    Deno.writeFileSync(tmp, body, { createNew: true });
    created = true;
    const st = Deno.lstatSync(tmp);
    if (check?.nothing && linkIntoNothing(tmp, file, check)) return st;
    const old = keepMode || check ? lstatOrNull(file) : null;
    check?.(old);
    const mode = keepMode ? modeToKeep(old, st) : undefined;
    if (mode !== undefined) Deno.chmodSync(tmp, mode);
    Deno.renameSync(tmp, file);
    return st;
  } catch (e) {
    // A temp name taken already is not ours to remove.
    if (created || !(e instanceof Deno.errors.AlreadyExists)) {
      try {
        Deno.removeSync(tmp);
      } catch { /* never created, or gone */ }
    }
    throw e;
  }
}

/**
 * {@link atomicWriteSync} in asynchronous calls (on the runtime's thread
 * pool): for a filesystem slow at metadata, where synchronous calls would
 * hold up the main thread (see `metadata_pace.ts`). The same temp file, the
 * same lstat before the rename, the same clean-up on failure.
 */
export async function atomicWriteAsync(
  file: string,
  body: Uint8Array,
  keepMode = true,
  check?: TargetCheck,
): Promise<Deno.FileInfo> {
  const tmp = tempBeside(file.slice(0, file.lastIndexOf("/")) || "/", file);
  let created = false;
  try {
    await Deno.writeFile(tmp, body, { createNew: true });
    created = true;
    const st = await Deno.lstat(tmp);
    if (check?.nothing && await linkIntoNothingAsync(tmp, file, check)) return st;
    if (keepMode) {
      const old = await keepModeAsync(file, tmp, st);
      check?.(old);
    } else if (check) {
      check(
        await Deno.lstat(file).catch((e) => {
          if (e instanceof Deno.errors.NotFound) return null;
          throw e;
        }),
      );
    }
    await Deno.rename(tmp, file);
    return st;
  } catch (e) {
    // A temp name taken already is not ours to remove.
    if (created || !(e instanceof Deno.errors.AlreadyExists)) {
      await Deno.remove(tmp).catch(() => {});
    }
    throw e;
  }
}

/** Bodies up to this size are written by the cache whole, in one call (larger ones in chunks). */
export const SMALL_WRITE_MAX = 64 * 1024;

/** Fsyncs a directory (its entries); filesystems that refuse it are skipped. */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  } catch { /* some filesystems refuse fsync on directories */ }
}

/**
 * Appends `bytes` to the file at `path` (made when absent) and syncs it to
 * disk; returns the inode written to. A failure may leave part of them
 * there.
 */
export async function appendSynced(path: string, bytes: Uint8Array): Promise<number | null> {
  const f = await Deno.open(path, { append: true, create: true, write: true });
  try {
    let off = 0;
    while (off < bytes.length) off += await f.write(bytes.subarray(off));
    const ino = (await f.stat()).ino;
    await f.sync();
    return ino;
  } finally {
    f.close();
  }
}
