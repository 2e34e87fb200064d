/**
 * Temporary files a transfer left in the cache (`<name>.sluice-<id>.tmp`,
 * written before their rename into place): a pull or write cut off between
 * the two (killed, interrupted, the machine down) leaves one behind, which
 * no push or pull takes (they are internal). The walk of a push finds them:
 * one untouched for {@link LEFT_TEMP_AGE_MS} is no transfer's any more
 * (a download writes its file as its bytes come, and gives up long before)
 * and is removed; a younger one may still be written (another process over
 * the cache) and is left, told of, for a later push.
 *
 * A pull walks no cache: it finds the temporary files of streamed downloads
 * (the large ones, written as their bytes come) by the records those
 * downloads keep in the state directory (`temp_records.ts`), and clears them
 * as a push's walk does ({@link clearRecordedTemps}).
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { WalkedFile } from "../transfer/cache_walk.ts";
import { isOwnTempFileName, TEMP_INFIX } from "../transfer/atomic_write.ts";
import {
  type FileIdentity,
  identityOf,
  LocalChangedError,
  sameIdentity,
} from "../transfer/file_identity.ts";
import { lstatOrNull } from "../transfer/cache_paths.ts";
import { isSafeRelPath } from "../paths.ts";
import { STATE_DIR } from "../transfer/cache_paths.ts";

/** How long a temporary file must be untouched to be taken as left behind: one hour. */
export const LEFT_TEMP_AGE_MS = 60 * 60 * 1000;

/** True for a path whose name is one of Sluice's own temporary files. */
export function isLeftTempPath(path: string): boolean {
  return isOwnTempFileName(path.slice(path.lastIndexOf("/") + 1));
}

/** What {@link clearLeftTemps} did. */
export interface LeftTemps {
  /** Removed: untouched for an hour or more. */
  readonly removed: string[];
  /** Left: younger (a transfer may still write them). */
  readonly young: string[];
}

/**
 * Removes the temporary files of `temps` (found by a walk) untouched for
 * {@link LEFT_TEMP_AGE_MS} at `now` (ms since the epoch, as file times are),
 * each only while it is still the file the walk saw; tells of them, and of
 * those left, in one `temp_files_left` warning. A dry run removes nothing
 * and tells what a push would do.
 *
 * @example
 * ```ts
 * import { clearLeftTemps } from "./left_temps.ts";
 * import { LocalCache } from "../transfer/cache.ts";
 * import { createEmitter } from "../events.ts";
 * const cache = new LocalCache(await Deno.makeTempDir());
 * console.log(await clearLeftTemps(cache, [], Date.now(), createEmitter(), false)); // { removed: [], young: [] }
 * ```
 */
export async function clearLeftTemps(
  cache: LocalCache,
  temps: readonly WalkedFile[],
  now: number,
  events: SluiceEmitter,
  dryRun: boolean,
  later = "a push",
): Promise<LeftTemps> {
  const removed: string[] = [];
  const young: string[] = [];
  let bytes = 0;
  for (const f of temps) {
    if (now - f.mtimeMs < LEFT_TEMP_AGE_MS) {
      young.push(f.path);
      continue;
    }
    // A path the cache takes as it is; else (see `longTempFile`) one beside such a file.
    const long = isSafeRelPath(f.path) ? undefined : longTempFile(cache, f.path);
    const seen = long ? identityOf(lstatOrNull(long.file)) : cache.identity(f.path);
    // Written to since the walk saw it: a transfer's still.
    if (!seen || seen.kind !== "file" || seen.mtimeMs !== f.mtimeMs) {
      young.push(f.path);
      continue;
    }
    if (!dryRun) {
      try {
        if (long) await removeLong(cache, long, seen);
        else await cache.removeFile(f.path, seen);
      } catch (e) {
        if (e instanceof LocalChangedError) {
          young.push(f.path);
          continue;
        }
        throw e;
      }
    }
    removed.push(f.path);
    bytes += f.size;
  }
  if (removed.length + young.length > 0) {
    const parts: string[] = [];
    if (removed.length > 0) {
      parts.push(
        `${dryRun ? "A push would remove" : "Removed"} ${removed.length} temporary ${
          removed.length === 1 ? "file" : "files"
        } (${
          (bytes / 1048576).toFixed(1)
        } MiB) that interrupted transfers left in the cache, untouched for an hour or more (${
          named(removed)
        }); no synced file is among them`,
      );
    }
    if (young.length > 0) {
      parts.push(
        `Left ${young.length} temporary ${
          young.length === 1 ? "file" : "files"
        } written to within the hour (${named(young)}): a transfer may still be writing ${
          young.length === 1 ? "it" : "them"
        }, and ${later} after that hour removes ${young.length === 1 ? "it" : "them"} if none is`,
      );
    }
    events.emit("warning", { code: "temp_files_left", message: `${parts.join(". ")}.` });
  }
  return { removed, young };
}

/**
 * How long a record whose temporary file is not there is kept: its download
 * may be about to make it (the record is written first).
 */
const RECORD_AHEAD_MS = 60 * 1000;

/**
 * Clears the temporary files streamed downloads recorded (see
 * `temp_records.ts`) and left: one read of the records' directory, nothing
 * more when it is empty or missing. A file gone drops its record; one
 * untouched for {@link LEFT_TEMP_AGE_MS} is removed with its record, while
 * it is still the file looked at; a younger one (another process's download
 * may still write it) is left with its record; both are told of in one
 * `temp_files_left` warning ({@link clearLeftTemps}). A record naming no
 * temporary file of the cache (damaged, or a path not one of Sluice's
 * temporary names) is dropped and nothing else touched. The records of this
 * process's downloads under way are not read. After a push's walk
 * (`walked`), which found and cleared the files themselves, only the
 * records of files gone are dropped.
 *
 * @example
 * ```ts
 * import { clearRecordedTemps } from "./left_temps.ts";
 * import { LocalCache } from "../transfer/cache.ts";
 * import { createEmitter } from "../events.ts";
 * const cache = new LocalCache(await Deno.makeTempDir());
 * console.log(await clearRecordedTemps(cache, Date.now(), createEmitter())); // { removed: [], young: [] }
 * ```
 */
export async function clearRecordedTemps(
  cache: LocalCache,
  now: number,
  events: SluiceEmitter,
  dryRun = false,
  later = "a pull or push",
  walked = false,
): Promise<LeftTemps> {
  const records = await cache.tempRecords.list();
  if (records.length === 0) return { removed: [], young: [] };
  const temps: WalkedFile[] = [];
  const recordOf = new Map<string, string[]>();
  const drop: string[] = [];
  for (const r of records) {
    const path = r.path;
    if (path === null || !isRecordedTemp(path)) {
      // Cut short by its writer's end, or never one of ours: names nothing to clear.
      if (path !== null || now - r.mtimeMs >= RECORD_AHEAD_MS) drop.push(r.name);
      continue;
    }
    const long = isSafeRelPath(path) ? undefined : longTempFile(cache, path);
    const seen = long ? identityOf(lstatOrNull(long.file)) : cache.identity(path);
    if (!seen || seen.kind !== "file") {
      if (seen === null && now - r.mtimeMs < RECORD_AHEAD_MS) continue;
      drop.push(r.name); // gone (renamed into place, removed), or not a file: nothing to clear
      continue;
    }
    const names = recordOf.get(path);
    if (names) {
      names.push(r.name);
      continue;
    }
    recordOf.set(path, [r.name]);
    temps.push({ path, size: seen.size, mtimeMs: seen.mtimeMs ?? now });
  }
  const left = walked
    ? { removed: [], young: [] }
    : await clearLeftTemps(cache, temps, now, events, dryRun, later);
  if (dryRun) return left;
  for (const p of left.removed) drop.push(...recordOf.get(p) ?? []);
  for (const name of drop) await cache.tempRecords.drop(name);
  return left;
}

/**
 * True for a path a record may name: one of Sluice's temporary names, not
 * in the state directory (a path the cache refuses, `..` or a link on the
 * way, is looked at as nothing there).
 */
function isRecordedTemp(path: string): boolean {
  return isLeftTempPath(path) && path !== STATE_DIR && !path.startsWith(`${STATE_DIR}/`);
}

/**
 * A temporary file written beside a file whose path is near the longest a
 * cache path may be has a longer path than that, which the cache does not
 * resolve: its directory is resolved instead (refusing a link on the way;
 * the walk met the file itself as a file), with the path of the file it was
 * written for (its name without the temporary suffix), above which emptied
 * directories are removed. Undefined where neither is a cache path.
 */
function longTempFile(
  cache: LocalCache,
  path: string,
): { file: string; target: string; path: string } | undefined {
  const at = path.lastIndexOf("/");
  const suffix = path.lastIndexOf(TEMP_INFIX);
  if (at <= 0 || suffix <= at) return undefined;
  const target = path.slice(0, suffix);
  if (!isSafeRelPath(target)) return undefined;
  try {
    return { file: `${cache.resolveSync(path.slice(0, at))}${path.slice(at)}`, target, path };
  } catch {
    return undefined;
  }
}

/** {@link LocalCache.removeFile} of such a file (see {@link longTempFile}). */
async function removeLong(
  cache: LocalCache,
  long: { file: string; target: string; path: string },
  seen: FileIdentity,
): Promise<void> {
  if (!sameIdentity(seen, lstatOrNull(long.file))) throw new LocalChangedError(long.path);
  try {
    await Deno.remove(long.file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  await cache.removeEmptyParents(long.target);
}

/** Up to three paths, then how many more. */
function named(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
