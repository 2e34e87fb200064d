/**
 * The cache's state directory (`.sluice/`): its JSON state files, the
 * directories moved into it, and the set-aside area, where a local copy
 * that must not be overwritten is kept with a `REASON.json` beside it.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import { randomId } from "../hash.ts";
import { atomicWrite } from "./atomic_write.ts";
import { abs, isNotFound, STATE_DIR } from "./cache_paths.ts";

/** Why a copy was set aside, and when. */
export interface SetAsideReason {
  readonly reason: string;
  /** The stable code of what set it aside (e.g. `version_exists`), when there is one. */
  readonly code?: string;
  readonly at: number;
}

/**
 * Moves the cache file `path` of the cache `root` (resolved and checked:
 * `from`) to `.sluice/set-aside/<stamp>/<path>` with a `REASON.json` beside
 * it; returns the cache-relative location.
 */
export async function setAsideIn(
  root: string,
  from: string,
  path: string,
  why: SetAsideReason,
): Promise<string> {
  const stamp = new Date(why.at).toISOString().replace(/[:.]/g, "-");
  const target = `${STATE_DIR}/set-aside/${stamp}-${randomId(3)}/${path}`;
  const to = abs(root, target);
  await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  await Deno.rename(from, to);
  await atomicWrite(
    abs(root, `${target.slice(0, target.length - path.length)}REASON.json`),
    new TextEncoder().encode(
      JSON.stringify(
        { path, reason: why.reason, ...(why.code ? { code: why.code } : {}), at: why.at },
        null,
        2,
      ),
    ),
  );
  return target;
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

/** Reads the state file `name` of the cache `root` (null when absent); a corrupted one is a coded error. */
export async function readStateFile<T>(root: string, name: string): Promise<T | null> {
  const file = abs(root, `${STATE_DIR}/${name}`);
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

/** Writes the state file `name` of the cache `root` atomically, as JSON. */
export async function writeStateFile(root: string, name: string, value: unknown): Promise<void> {
  await atomicWrite(
    abs(root, `${STATE_DIR}/${name}`),
    new TextEncoder().encode(JSON.stringify(value)),
  );
}

/** Removes `name` (a file or directory) from the state directory of the cache `root`; absent is fine. */
export async function removeStateFile(root: string, name: string): Promise<void> {
  try {
    await Deno.remove(abs(root, `${STATE_DIR}/${name}`), { recursive: true });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
