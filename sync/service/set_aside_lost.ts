/**
 * Whether a cache's copy of a path went into its set-aside area as a lost
 * data version's (`version_exists`): gone from the cache for that, not
 * deleted there.
 *
 * @module
 */
import { setAsideReasons } from "../transfer/cache_state.ts";

/**
 * True when the set-aside area of the state directory `stateDir` holds a
 * copy of `path` a lost data version's set-aside moved there (its reason,
 * as `readSetAsideReason` reads it back, names the path with the code
 * `version_exists`), lost to `version` (a copy that names none, set aside
 * before copies named it, is taken for one): the file is gone from the cache
 * for that, not deleted here. A copy lost to another version (one deleted
 * since, the path written again here later) says nothing of this one. A
 * reason that cannot be read names nothing. Read only where a push is about
 * to take back an upload of this cache's that the index names, or a pull
 * about to leave such an upload to that push.
 *
 * @example
 * ```ts
 * import { setAsideAsLost } from "./set_aside_lost.ts";
 * const dir = await Deno.makeTempDir();
 * console.log(await setAsideAsLost(dir, "data/m/d/1/raw", "v1")); // false: no set-aside area
 * ```
 */
export async function setAsideAsLost(
  stateDir: string,
  path: string,
  version: string,
): Promise<boolean> {
  return (await setAsideReasons(stateDir)).some(({ why }) =>
    why?.path === path && why.code === "version_exists" &&
    (why.lostTo === undefined || why.lostTo === version)
  );
}
