/**
 * The walk of a cache directory: every regular file, links reported and
 * never followed.
 *
 * @module
 */
import {
  abs,
  exists,
  isNotFound,
  isPermissionDenied,
  LINK_REFUSED,
  NOT_REGULAR_REFUSED,
  STATE_DIR,
} from "./cache_paths.ts";
import { UNREADABLE_REASON } from "../errors.ts";

/**
 * The control plane's directory at the cache root: never synced (the layout
 * keeps it local), and where a cache shared with other clients of the layout
 * keeps its sync state (see `packages/extension/state_dirs.ts`).
 */
const CONTROL_DIR = "_control";

/** Why a walk skips a name that is not valid UTF-8. */
const NOT_UTF8 =
  "its name is not valid UTF-8, so it cannot be a store key and stays local only: rename it to sync it";

/** A file found by {@link walkFiles}. */
export interface WalkedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Undefined where the system gives no change time. */
  readonly ctimeMs?: number;
}

/**
 * Walks `root/dir` recursively, yielding regular files (cache-relative),
 * skipping the state directory (`.sluice/`) and the control plane's `_control/` at its root. Symlinks are not followed: a symlink is
 * reported through `onSkip` and never read, as is a FIFO, socket or device.
 */
export async function* walkFiles(
  root: string,
  dir = "",
  onSkip?: (path: string, reason: string) => void,
): AsyncGenerator<WalkedFile> {
  // Synchronous directory reads and lstat calls: a walk of 100 000 files is
  // dominated by per-call overhead, and the sync calls are several times cheaper.
  const base = dir ? abs(root, dir) : root;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(base)];
  } catch (e) {
    if (isNotFound(e)) return;
    if (isPermissionDenied(e)) {
      // Reported, never passed over: what it holds is neither pushed nor deleted.
      onSkip?.(dir || ".", UNREADABLE_REASON);
      return;
    }
    throw e;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (!dir && (e.name === STATE_DIR || e.name === CONTROL_DIR)) continue;
    // A name that is not valid UTF-8 arrives with U+FFFD in place of the bad
    // bytes and then names no file: report it rather than fail the walk (or,
    // for a directory, silently never sync what it holds).
    if (e.name.includes("\uFFFD") && !exists(abs(root, rel))) {
      onSkip?.(rel, NOT_UTF8);
      continue;
    }
    if (e.isSymlink) {
      onSkip?.(rel, `it is a symbolic link; ${LINK_REFUSED}`);
      continue;
    }
    if (e.isDirectory) {
      yield* walkFiles(root, rel, onSkip);
    } else if (e.isFile) {
      let st: Deno.FileInfo;
      try {
        st = Deno.lstatSync(abs(root, rel));
      } catch (err) {
        if (isNotFound(err)) continue; // removed during the walk
        if (isPermissionDenied(err)) {
          onSkip?.(rel, UNREADABLE_REASON);
          continue;
        }
        throw err;
      }
      yield {
        path: rel,
        size: st.size,
        mtimeMs: st.mtime?.getTime() ?? 0,
        ctimeMs: st.ctime?.getTime(),
      };
    } else {
      // A FIFO, socket or device: never read (a FIFO's read would wait for a
      // writer), never passed over in silence either.
      onSkip?.(rel, NOT_REGULAR_REFUSED);
    }
  }
}
