/**
 * Small filesystem helpers shared by the local-directory store.
 *
 * @module
 */
import { SluiceError, UnreachableError } from "../../sync/errors.ts";

/** True when `e` says the path (or one of its parents) does not exist. */
export function isAbsent(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}

/** Wraps a filesystem failure as `UnreachableError` (typed errors pass through). */
export function ioError(what: string, path: string, e: unknown): SluiceError {
  if (e instanceof SluiceError) return e;
  const detail = e instanceof Error ? e.message : String(e);
  return new UnreachableError(`${what} ${path} failed (${detail})`, { cause: e });
}

/** Makes a rename or link durable; best effort (not every platform can sync a directory). */
export async function syncDir(dir: string): Promise<void> {
  try {
    using d = await Deno.open(dir, { read: true });
    await d.sync();
  } catch {
    // durability hint only
  }
}

/**
 * Keys of the files under `top/rel` that start with `prefix`, in key order
 * (UTF-16 code units, as `Array.prototype.sort`). A directory sorts as
 * `name/`, which makes the depth-first walk yield global key order; only
 * directories that can hold matching keys are entered.
 *
 * @example
 * ```ts
 * import { walkKeys } from "./fs_helpers.ts";
 * const dir = await Deno.makeTempDir();
 * for await (const key of walkKeys(dir, "", "")) console.log(key);
 * ```
 */
export async function* walkKeys(top: string, rel: string, prefix: string): AsyncGenerator<string> {
  const dir = rel === "" ? top : `${top}/${rel}`;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (e) {
    if (isAbsent(e)) return;
    throw ioError("listing", dir, e);
  }
  const sorted = entries
    .filter((e) => e.isFile || e.isDirectory)
    .map((e) => ({ e, sortKey: e.isDirectory ? `${e.name}/` : e.name }))
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  for (const { e } of sorted) {
    const key = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory) {
      const asDir = `${key}/`;
      if (asDir.startsWith(prefix) || prefix.startsWith(asDir)) yield* walkKeys(top, key, prefix);
    } else if (key.startsWith(prefix)) {
      yield key;
    }
  }
}
