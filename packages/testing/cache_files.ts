/**
 * Writing files into a cache the way a datastore's repositories do.
 *
 * @module
 */

/**
 * Writes `text` to `<dir>/<path>`, creating parent directories.
 *
 * @example
 * ```ts
 * import { writeCacheFile } from "./cache_files.ts";
 * await writeCacheFile(await Deno.makeTempDir(), "data/t/m/d/1/raw", "v1");
 * ```
 */
export async function writeCacheFile(dir: string, path: string, text: string): Promise<void> {
  const file = `${dir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}

/**
 * Writes a cache file of `svc` and marks it dirty, as a repository write does.
 *
 * @example
 * ```ts
 * import { writeAndMark } from "./cache_files.ts";
 * import type { SyncService } from "../../sync/service/service.ts";
 * async function run(svc: SyncService) {
 *   await writeAndMark(svc, "logs/run.log", "ok");
 * }
 * ```
 */
export async function writeAndMark(
  svc: {
    readonly cacheDir: string;
    markDirty(options: { relPath: string }): Promise<void>;
  },
  path: string,
  text: string,
): Promise<void> {
  await writeCacheFile(svc.cacheDir, path, text);
  await svc.markDirty({ relPath: path });
}
