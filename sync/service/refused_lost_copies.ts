/**
 * A push under the global lock whose preparation lost data versions of the
 * run to another writer's (`version_exists`: their copies set aside) and
 * whose commit was then refused for a lost model lock (`model_lock_lost`):
 * the refusal discards the run's versions, and a refused run leaves no
 * byte of its run anywhere, its lost versions' copies in the set-aside
 * area included. The refusal's erasure, made in the commit, never met them:
 * the preparation had moved them out of the cache.
 *
 * @module
 */
import { VersionConflictError } from "../errors.ts";
import { ModelLockLostError } from "../lock_errors.ts";
import { removeSetAside, setAsideSource } from "../transfer/cache_state.ts";

/**
 * Removes the copies `lost` names (set aside by a preparation, in the state
 * directory `stateDir`) of the data versions the refusal `refused`
 * discarded (`ModelLockLostError.discarded`, set by the refused-run eraser);
 * returns their locations. Nothing for any other failure: a run held
 * (`erasure_refused`) keeps its versions, and these copies with them.
 *
 * @example
 * ```ts
 * import { dropRefusedCopies } from "./refused_lost_copies.ts";
 * console.log(await dropRefusedCopies(await Deno.makeTempDir(), new Error("x"), new Error("y"))); // []
 * ```
 */
export async function dropRefusedCopies(
  stateDir: string,
  lost: Error,
  refused: unknown,
): Promise<string[]> {
  if (!(refused instanceof ModelLockLostError) || !(lost instanceof VersionConflictError)) {
    return [];
  }
  const dirs = refused.discarded.map((d) => `${d.replace(/\/+$/, "")}/`);
  const gone = lost.setAsideTo.filter((l) => dirs.some((d) => setAsideSource(l).startsWith(d)));
  for (const l of gone) await removeSetAside(stateDir, l);
  return gone;
}

/**
 * What a refusal's message says of the versions `lost` (`version_exists`)
 * when every copy of them was discarded with the run ({@link dropRefusedCopies}).
 */
export function lostAndDiscarded(lost: VersionConflictError): string {
  return `Data version file(s) ${
    lost.keys.join(", ")
  } already existed on the datastore with other bytes and were not pushed; the copies this push set aside were discarded with the run.`;
}
