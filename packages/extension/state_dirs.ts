/**
 * Where a datastore cache keeps Sluice's sync state. The tool's existing S3
 * and GCS extensions upload every file of the cache but the few names they
 * keep local (`isInternalCacheFile`): a `.sluice/` directory in the cache or
 * in a namespace directory would be uploaded by one of them working on the
 * same cache (a datastore switched back, or a clone still on them), and
 * pulled by every other, which would take that cache's records for its own.
 * So the state is kept under `_control/` at the cache's root, the one
 * directory they keep local in both their solo and namespaced walks
 * (`sharedStateDir`: `_control/.sluice/` for the solo layout,
 * `_control/.sluice-ns/<ns>/` for a namespace). A cache synced before keeps
 * its state: the `.sluice/` of its root or namespace directory is moved
 * there once, in one rename.
 *
 * @module
 */
import { SluiceError, UnsafePathError } from "../../sync/errors.ts";
import { shellWord } from "../../sync/shell_word.ts";
import { STATE_DIR } from "../../sync/transfer/cache.ts";

/**
 * Refuses a state directory reached through a link under the cache
 * `cachePath` (`_control`, `_control/.sluice-ns`, or the state directory
 * itself a symbolic link): Sluice never writes its state outside the cache.
 */
export async function refuseLinkedStateDir(cachePath: string, stateDir: string): Promise<void> {
  const root = `${cachePath.replace(/\/+$/, "")}/`;
  if (!stateDir.startsWith(root)) return;
  const parts = stateDir.slice(root.length).split("/");
  for (let i = 1; i <= parts.length; i++) {
    const rel = parts.slice(0, i).join("/");
    const st = await Deno.lstat(`${root}${rel}`).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    });
    if (st === null) return;
    if (st.isSymlink || !st.isDirectory) {
      throw new UnsafePathError(
        rel,
        `Sluice keeps this cache's sync state in ${stateDir}, but ${root}${rel} is ${
          st.isSymlink ? "a symbolic link" : "not a directory"
        }, and Sluice never writes its state outside the cache: move it out of the way (the state is made again there), then run the command again`,
      );
    }
  }
}

/** What {@link adoptEarlierState} did. */
export type StateAdoption = "none" | "moved" | "both";

/**
 * Moves the sync state a cache kept in its sync root (`<syncRoot>/.sluice`,
 * where releases before this layout kept it) to `stateDir`, once: in one
 * rename, so an interrupted move leaves it either where it was or where it
 * goes. `"none"` when there was nothing to move, `"moved"`, or `"both"` when
 * `stateDir` exists already: the earlier directory is then left as it is
 * (the caller says so; nothing of either is merged or removed).
 */
export async function adoptEarlierState(
  syncRoot: string,
  stateDir: string,
): Promise<StateAdoption> {
  const earlier = `${syncRoot.replace(/\/+$/, "")}/${STATE_DIR}`;
  const st = await Deno.lstat(earlier).catch((e) => {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  });
  if (st === null) return "none";
  if (!st.isDirectory) {
    throw new SluiceError(
      "cache_unwritable",
      `${earlier} is ${
        st.isSymlink ? "a symbolic link" : "not a directory"
      }, but earlier releases kept this cache's sync state there, and it is moved from there to ${stateDir}. Nothing was moved, read, pushed or pulled. Move it out of the cache (\`mv ${
        shellWord(earlier)
      } ${
        shellWord(`${syncRoot.replace(/\/+$/, "")}.sluice-moved`)
      }\`; beside the state, inside the cache, it would be a file of the cache, which the next push publishes), then run the command again.`,
    );
  }
  const there = () =>
    Deno.lstat(stateDir).then(() => true, (e) => {
      if (e instanceof Deno.errors.NotFound) return false;
      throw e;
    });
  if (await there()) {
    // Another opening of this cache may have moved it between the two looks.
    const still = await Deno.lstat(earlier).then(() => true, (e) => {
      if (e instanceof Deno.errors.NotFound) return false;
      throw e;
    });
    return still ? "both" : "moved";
  }
  const parent = stateDir.slice(0, stateDir.lastIndexOf("/"));
  try {
    await Deno.mkdir(parent, { recursive: true });
    await Deno.rename(earlier, stateDir);
  } catch (e) {
    // Another process moved it first: done all the same.
    if (e instanceof Deno.errors.NotFound && await there()) return "moved";
    throw new SluiceError(
      "cache_unwritable",
      `Could not move this cache's sync state from ${earlier} to ${stateDir} (${
        e instanceof Error ? e.message : String(e)
      }), where the tool's existing extensions never upload it. Nothing was moved, read, pushed or pulled. Make the cache directory writable by this user, or move the directory by hand (\`mkdir -p ${
        shellWord(parent)
      } && mv ${shellWord(earlier)} ${shellWord(stateDir)}\`), then run the command again.`,
      { cause: e },
    );
  }
  return "moved";
}
