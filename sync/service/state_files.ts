/**
 * Writes of the sync state's files (`.sluice/`): a failure becomes a coded
 * error that says what to do, instead of a bare OS error.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import { diskFullWords, isDiskFull, isWriteRefused } from "../transfer/cache_paths.ts";

/**
 * Runs `write` of the state file `name` in `dir`; a failure (the file turned
 * into a directory, a read-only or full disk…) becomes `cache_unwritable` (or
 * `internal`) naming the file and the way on.
 */
export async function writingState(
  dir: string,
  name: string,
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (e instanceof SluiceError) throw e;
    const file = `${dir}/${name}`;
    const full = isDiskFull(e) ? diskFullWords(e) : undefined;
    throw new SluiceError(
      isWriteRefused(e) ? "cache_unwritable" : "internal",
      `Could not write the sync state file ${file} (${full ? `${full.why}: ` : ""}${
        e instanceof Error ? e.message : String(e)
      }). No file in the cache was lost, and what the command had already published or fetched stays so (a push's files may be on the datastore already), but this cache's record of what is dirty or synced may be out of date. ${
        full
          ? full.todo
          : `Make ${file} a writable regular file again (move a directory or a damaged file out of the way)`
      }, then push the whole cache (\`sluice push\`, or markDirty() with no path and a push): the walk uploads only files that differ from the datastore's.`,
      { cause: e },
    );
  }
}
