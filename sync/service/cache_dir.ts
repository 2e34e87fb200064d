/**
 * The cache directory and its sync state directory, made or refused before
 * a service is built on them: a directory this user may not write, a state
 * directory that is no directory, or state files this process may not
 * read fail here, with what to do, before anything is read or written.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import { shellWord } from "../shell_word.ts";
import { isPermissionDenied, isWriteRefused } from "../transfer/cache_paths.ts";
import { defaultStateDir } from "../transfer/cache.ts";

/**
 * Makes the cache directory `cacheDir` (and its parents) when absent;
 * `cache_unwritable` when this user may not.
 *
 * @example
 * ```ts
 * import { makeCacheDir } from "./cache_dir.ts";
 * await makeCacheDir(await Deno.makeTempDir());
 * ```
 */
export async function makeCacheDir(cacheDir: string): Promise<void> {
  try {
    await Deno.mkdir(cacheDir, { recursive: true });
  } catch (e) {
    if (!isWriteRefused(e)) throw e;
    throw new SluiceError(
      "cache_unwritable",
      `Could not create the cache directory ${cacheDir}: ${
        e instanceof Error ? e.message : String(e)
      }. Nothing was created, pushed or pulled. Choose a directory this user may write (or create it with the right owner), then run the command again.`,
      { cause: e },
    );
  }
}

/**
 * Each state file of the state directory `dir` that this process may not
 * read is refused (`path_unreadable`): loaded, it would pass for a lost or
 * corrupt one, and the cache for one whose sync state, conflict records
 * among it, was dropped.
 */
async function refuseUnreadableStateFiles(dir: string): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile) continue;
    const file = `${dir}/${e.name}`;
    try {
      (await Deno.open(file, { read: true })).close();
    } catch (err) {
      if (!isPermissionDenied(err)) continue; // gone meanwhile, or read later with its own error
      throw new SluiceError(
        "path_unreadable",
        `This process may not read the cache's sync state file ${file} (permission denied), part of what Sluice keeps of what is synced, dirty and in conflict; read as missing, the cache would lose that state. Nothing was read, pushed or pulled, and nothing in the cache was changed. Make it readable by this user (\`chmod u+rw ${file}\`, or run as its owner), then run the command again.`,
        { cause: err },
      );
    }
  }
}

/**
 * Refuses a cache whose state directory (`stateDir`, default
 * `<cacheDir>/.sluice`) is something other than a directory: every read of
 * the state would fail, and the service would take the cache for one never
 * synced.
 */
export async function refuseStateNotADirectory(
  cacheDir: string,
  stateDir: string = defaultStateDir(cacheDir),
): Promise<void> {
  const dir = stateDir.replace(/\/+$/, "");
  let st: Deno.FileInfo;
  try {
    st = await Deno.stat(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return; // a new cache: made on the first write
    if (isPermissionDenied(e)) {
      // The cache directory (or one above it) may not be searched: nothing in it can be read.
      throw new SluiceError(
        "path_unreadable",
        `This process may not look inside the cache directory ${cacheDir} (permission denied on ${dir}), so its sync state (what is synced, dirty and in conflict) cannot be read. Nothing was read, pushed or pulled, and nothing in the cache was changed. Make the cache directory readable and searchable by this user (\`chmod u+rwx ${cacheDir}\`, or run as its owner), then run the command again.`,
        { cause: e },
      );
    }
    throw e;
  }
  if (st.isDirectory) {
    try {
      // Listed (read) and looked into (search): else every state file would
      // pass for missing, the cache for one never synced, its conflicts for none.
      for await (const _ of Deno.readDir(dir)) break;
      await Deno.stat(`${dir}/.`);
    } catch (e) {
      if (!isPermissionDenied(e)) throw e;
      throw new SluiceError(
        "path_unreadable",
        `This process may not read the cache's sync state directory ${dir} (permission denied), where Sluice keeps what is synced, dirty and in conflict; without it the cache would pass for one never synced. Nothing was read, pushed or pulled, and nothing in the cache was changed. Make it readable and searchable by this user (\`chmod u+rwx ${dir}\`, or run as its owner), then run the command again.`,
        { cause: e },
      );
    }
    await refuseUnreadableStateFiles(dir);
    return;
  }
  // Moved out of the cache, never beside the state inside it: a file there
  // (`.sluice.moved`) is a file of the cache like any other, which the next
  // push would publish to every peer.
  const cache = cacheDir.replace(/\/+$/, "");
  const aside = dir.startsWith(`${cache}/`) ? `${cache}.sluice-moved` : `${dir}.moved`;
  throw new SluiceError(
    "cache_unwritable",
    `${dir} is not a directory, but Sluice keeps this cache's sync state there (what is synced, dirty and in conflict). Nothing was read, pushed or pulled, and nothing in the cache was changed. Move it out of the cache (\`mv ${
      shellWord(dir)
    } ${
      shellWord(aside)
    }\`), then run the command again (on the command line with --init and the store: the cache then has no sync state and is started anew), so the next pull sets aside each local file that differs from the datastore's copy before taking it.`,
  );
}
