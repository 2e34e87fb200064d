/**
 * The cache's state directory (`.sluice/`): its JSON state files, the
 * directories moved into it, and the set-aside area, where a local copy
 * that must not be overwritten is kept with a `REASON.json` beside it. That
 * file's format is this module's: written by {@link setAsideIn}, read back
 * by {@link readSetAsideReason} (every set-aside: {@link setAsideReasons}),
 * marked released by {@link releaseSetAside}.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import { randomId } from "../hash.ts";
import { atomicWrite, fsyncDir } from "./atomic_write.ts";
import { abs, isNotFound, lstatOrNull, STATE_DIR, statePath } from "./cache_paths.ts";

/** Why a copy was set aside, and when. */
export interface SetAsideReason {
  readonly reason: string;
  /** The stable code of what set it aside (e.g. `version_exists`), when there is one. */
  readonly code?: string;
  readonly at: number;
  /**
   * The conflict the copy is set aside for, as its record will say (a
   * pull's): kept beside the copy so that a conflict record lost before it
   * was saved (the process stopped) can be made again from it.
   */
  readonly conflict?: Record<string, unknown>;
  /**
   * The datastore's version a lost data version's copy (`version_exists`)
   * lost to: the set-aside speaks for that version only, not for a later
   * one written at the path (the version deleted, and written again).
   */
  readonly lostTo?: string;
}

/** The set-aside area in the state directory. */
const SET_ASIDE = "set-aside";
/** The name of the file beside each set-aside copy saying why it was set aside. */
export const SET_ASIDE_REASON_FILE = "REASON.json";

/**
 * A set-aside's `REASON.json` as read back: each field {@link setAsideIn}
 * writes (and `released`, which {@link releaseSetAside} adds) that holds a
 * value of its kind; one that does not is left out, as if absent.
 */
export interface StoredSetAsideReason {
  /** The cache path the copy was set aside from. */
  readonly path?: string;
  readonly reason?: string;
  /** The stable code of what set it aside (e.g. `version_exists`). */
  readonly code?: string;
  readonly at?: number;
  /** The conflict it was set aside for (see {@link SetAsideReason.conflict}), unchecked. */
  readonly conflict?: Record<string, unknown>;
  /** True once a resolution released the copy (it names no conflict any more). */
  readonly released?: boolean;
  /** The datastore's version a lost data version's copy lost to (see {@link SetAsideReason.lostTo}). */
  readonly lostTo?: string;
}

/**
 * The location, as records name it (see {@link setAsideIn}), of the copy of
 * `path` in the set-aside directory `dir`.
 *
 * @example
 * ```ts
 * import { setAsideLocation } from "./cache_state.ts";
 * setAsideLocation("2026-01-01T00-00-00-000Z-a1b2c3", "n.txt"); // ".sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/n.txt"
 * ```
 */
export function setAsideLocation(dir: string, path: string): string {
  return `${STATE_DIR}/${SET_ASIDE}/${dir}/${path}`;
}

/** The reason file of the set-aside directory `dir` in the state directory `stateDir`. */
function reasonFile(stateDir: string, dir: string): string {
  return `${stateDir}/${SET_ASIDE}/${dir}/${SET_ASIDE_REASON_FILE}`;
}

/**
 * The `REASON.json` of the set-aside directory `dir` (a name in the
 * set-aside area of the state directory `stateDir`), as
 * {@link StoredSetAsideReason}; undefined when there is none, or it is no
 * JSON object (damaged, or being written).
 *
 * @example
 * ```ts
 * import { readSetAsideReason } from "./cache_state.ts";
 * console.log(await readSetAsideReason(await Deno.makeTempDir(), "none")); // undefined
 * ```
 */
export async function readSetAsideReason(
  stateDir: string,
  dir: string,
): Promise<StoredSetAsideReason | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(reasonFile(stateDir, dir)));
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const why = raw as Record<string, unknown>;
  const c = why.conflict;
  return {
    ...(typeof why.path === "string" ? { path: why.path } : {}),
    ...(typeof why.reason === "string" ? { reason: why.reason } : {}),
    ...(typeof why.code === "string" ? { code: why.code } : {}),
    ...(typeof why.at === "number" ? { at: why.at } : {}),
    ...(typeof c === "object" && c !== null && !Array.isArray(c)
      ? { conflict: c as Record<string, unknown> }
      : {}),
    ...(typeof why.released === "boolean" ? { released: why.released } : {}),
    ...(typeof why.lostTo === "string" ? { lostTo: why.lostTo } : {}),
  };
}

/**
 * The directories of the set-aside area of the state directory `stateDir`,
 * oldest first (by name: each begins with its time), each with its
 * `REASON.json` as {@link readSetAsideReason} reads it; none when there is
 * no area.
 *
 * @example
 * ```ts
 * import { setAsideReasons } from "./cache_state.ts";
 * console.log(await setAsideReasons(await Deno.makeTempDir())); // []
 * ```
 */
export async function setAsideReasons(
  stateDir: string,
): Promise<{ readonly dir: string; readonly why: StoredSetAsideReason | undefined }[]> {
  const dirs: string[] = [];
  try {
    for await (const d of Deno.readDir(`${stateDir}/${SET_ASIDE}`)) {
      if (d.isDirectory) dirs.push(d.name);
    }
  } catch {
    return []; // no set-aside area
  }
  dirs.sort();
  return await Promise.all(
    dirs.map(async (dir) => ({ dir, why: await readSetAsideReason(stateDir, dir) })),
  );
}

/**
 * True when the `REASON.json` of the copy set aside at `location` (as
 * {@link setAsideIn} returns it) says a resolution released it (see
 * {@link releaseSetAside}); false when there is none, it cannot be read, or
 * it does not say so.
 */
export async function setAsideReleased(stateDir: string, location: string): Promise<boolean> {
  const area = `${STATE_DIR}/${SET_ASIDE}/`;
  const dir = location.startsWith(area) ? location.slice(area.length).split("/")[0] : "";
  if (dir === "" || dir === "." || dir === "..") return false;
  return (await readSetAsideReason(stateDir, dir))?.released === true;
}

/**
 * Marks the `REASON.json` of the copy of `path` set aside at `location`
 * (as {@link setAsideIn} returns it) released, every other field kept;
 * nothing when it is gone, cannot be read, or says so already.
 */
export async function releaseSetAside(
  stateDir: string,
  location: string,
  path: string,
): Promise<void> {
  const file = statePath(
    stateDir,
    `${location.slice(0, location.length - path.length)}${SET_ASIDE_REASON_FILE}`,
  );
  try {
    const why = JSON.parse(await Deno.readTextFile(file));
    if (why?.released === true) return;
    await atomicWrite(
      file,
      new TextEncoder().encode(JSON.stringify({ ...why, released: true }, null, 2)),
    );
  } catch { /* gone, or no reason: nothing names it again */ }
}

/**
 * The bytes of the `REASON.json` of a copy of `path` set aside for `why`
 * (read back by {@link readSetAsideReason}).
 *
 * @example
 * ```ts
 * import { setAsideReasonBytes } from "./cache_state.ts";
 * setAsideReasonBytes("n.txt", { reason: "kept", at: 0 });
 * ```
 */
export function setAsideReasonBytes(path: string, why: SetAsideReason): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify(
      {
        path,
        reason: why.reason,
        ...(why.code ? { code: why.code } : {}),
        at: why.at,
        ...(why.conflict ? { conflict: why.conflict } : {}),
        ...(why.lostTo !== undefined ? { lostTo: why.lostTo } : {}),
      },
      null,
      2,
    ),
  );
}

/**
 * The copy to set aside was gone when it was moved (deleted here after it
 * was looked at): nothing was set aside, and no reason was left behind.
 */
export class CopyVanishedError extends SluiceError {
  /** The cache path. */
  readonly path: string;
  constructor(path: string, cause?: unknown) {
    super(
      "file_changed",
      `${path} vanished while it was being set aside (deleted here meanwhile): nothing was set aside and nothing else changed. Look at ${path}, then run the command again.`,
      { cause },
    );
    this.path = path;
  }
}

/**
 * Moves the cache file `path` (resolved and checked: `from`) to
 * `set-aside/<stamp>/<path>` in the state directory `stateDir`, with a
 * `REASON.json` beside it (written first); returns its location as records
 * name it (`.sluice/set-aside/<stamp>/<path>`: see `statePath`). A copy
 * gone by then throws {@link CopyVanishedError}, its reason removed.
 */
export async function setAsideIn(
  stateDir: string,
  from: string,
  path: string,
  why: SetAsideReason,
): Promise<string> {
  const stamp = new Date(why.at).toISOString().replace(/[:.]/g, "-");
  const target = setAsideLocation(`${stamp}-${randomId(3)}`, path);
  const to = statePath(stateDir, target);
  await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  // The reason first: a copy is never in the area without it.
  await atomicWrite(
    statePath(stateDir, `${target.slice(0, target.length - path.length)}${SET_ASIDE_REASON_FILE}`),
    setAsideReasonBytes(path, why),
  );
  try {
    await Deno.rename(from, to);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await Deno.remove(statePath(stateDir, target.slice(0, target.length - path.length - 1)), {
      recursive: true,
    });
    throw new CopyVanishedError(path, e);
  }
  return target;
}

/**
 * Removes the copy {@link setAsideIn} moved to `location` (in the state
 * directory `stateDir`), its set-aside directory with it (`REASON.json`
 * included); nothing when it is gone. Only for a copy whose bytes may be
 * kept nowhere: a refused run's (see `refused_lost_copies.ts`).
 */
export async function removeSetAside(stateDir: string, location: string): Promise<void> {
  const area = `${STATE_DIR}/${SET_ASIDE}/`;
  const name = location.startsWith(area) ? location.slice(area.length).split("/")[0] : "";
  if (name === "" || name === "." || name === ".." || !location.startsWith(`${area}${name}/`)) {
    throw new Error(`${JSON.stringify(location)} names no set-aside copy`);
  }
  try {
    await Deno.remove(statePath(stateDir, `${area}${name}`), { recursive: true });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/**
 * Moves the copy {@link setAsideIn} moved to `location` (in the state
 * directory `stateDir`) back to its path in the cache `root`, only while nothing is there: each
 * directory on its way is looked at again (one may have been replaced since:
 * a link or a file there leaves the copy where it is) and made where
 * missing; then a hard link, which never replaces anything, and the
 * set-aside name's removal (on a filesystem without hard links, a look
 * whether the path is free right before a rename). The rest of its set-aside
 * directory (`REASON.json`) is removed too. True when moved back; false when
 * something is at the path or in its way: the copy then stays where it is.
 * Synchronous, so no other write of this process comes between the look and
 * the move.
 */
export function putBackIn(root: string, stateDir: string, location: string): boolean {
  const path = setAsideSource(location);
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    const dir = abs(root, path.slice(0, i));
    let st = lstatOrNull(dir);
    if (st === null) {
      try {
        Deno.mkdirSync(dir);
        continue;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
        st = Deno.lstatSync(dir);
      }
    }
    if (st.isSymlink || !st.isDirectory) return false;
  }
  const to = abs(root, path);
  const from = statePath(stateDir, location);
  try {
    Deno.linkSync(from, to);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists || isNotFound(e)) return false;
    if (!noHardLinks(e)) throw e;
    try {
      Deno.lstatSync(to);
      return false;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) return false;
    }
    Deno.renameSync(from, to);
  }
  // Back at its path: what is left in the set-aside area is a duplicate of it, removed (best effort).
  try {
    Deno.removeSync(statePath(stateDir, location.slice(0, location.length - path.length)), {
      recursive: true,
    });
  } catch { /* an unnamed duplicate left in the set-aside area: nothing lost */ }
  return true;
}

/** True for a hard link the filesystem does not make (FAT, some network filesystems). */
function noHardLinks(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof Deno.errors.PermissionDenied || code === "EPERM" ||
    code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "EMLINK";
}

/**
 * The cache path a set-aside location (`.sluice/set-aside/<stamp>/<path>`,
 * as {@link setAsideIn} returns it) holds a copy of.
 *
 * @example
 * ```ts
 * import { setAsideSource } from "./cache_state.ts";
 * setAsideSource(".sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/notes/n.txt"); // "notes/n.txt"
 * ```
 */
export function setAsideSource(location: string): string {
  return location.split("/").slice(3).join("/");
}

/** Reads the state file `name` of the state directory `stateDir` (null when absent); a corrupted one is a coded error. */
export async function readStateFile<T>(stateDir: string, name: string): Promise<T | null> {
  const file = `${stateDir}/${name}`;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new SluiceError(
      "internal",
      `The sync state file ${file} is corrupted (${
        (e as Error).message
      }). Nothing was changed. Restore the file from a backup, or check what it recorded and remove it by hand, then run the command again.`,
      { cause: e },
    );
  }
}

/**
 * Writes the state file `name` of the state directory `stateDir` atomically,
 * as JSON; synced to disk unless `durable` is false.
 */
export async function writeStateFile(
  stateDir: string,
  name: string,
  value: unknown,
  durable = true,
): Promise<void> {
  await atomicWrite(
    `${stateDir}/${name}`,
    new TextEncoder().encode(JSON.stringify(value)),
    durable,
  );
}

/**
 * Writes `value` as the state file `name` only where none is: durably, by a
 * hard link of a synced temp file, which never replaces anything. True when
 * written; false when a file of that name is there already (another process
 * made it first). Where the filesystem makes no hard links, written as
 * {@link writeStateFile} does when none is there after a look.
 */
export async function createStateFile(
  stateDir: string,
  name: string,
  value: unknown,
): Promise<boolean> {
  const file = `${stateDir}/${name}`;
  await Deno.mkdir(stateDir, { recursive: true });
  const tmp = `${file}.${randomId(6)}.tmp`;
  const f = await Deno.open(tmp, { write: true, createNew: true });
  try {
    await f.write(new TextEncoder().encode(JSON.stringify(value)));
    await f.sync();
  } finally {
    f.close();
  }
  try {
    await Deno.link(tmp, file);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    if (await Deno.lstat(file).then(() => true, () => false)) return false;
    await Deno.rename(tmp, file);
    await fsyncDir(stateDir);
    return true;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  await fsyncDir(stateDir);
  return true;
}

/** Removes `name` (a file or directory) from the state directory `stateDir`; absent is fine. */
export async function removeStateFile(stateDir: string, name: string): Promise<void> {
  try {
    await Deno.remove(`${stateDir}/${name}`, { recursive: true });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
