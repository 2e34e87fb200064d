/**
 * What a pull of the tool leaves as it is: the model directories of the
 * other model locks this process holds on the namespace, and the data paths
 * other processes of the tool over the same cache marked for runs of theirs
 * still going. Each is a run's unpublished version until that run's own
 * flush; a peer's version taken there would set it aside, and the run's
 * flush, finding nothing of it to push, would acknowledge it.
 *
 * @module
 */
import type { SyncService } from "../../sync/service/service.ts";
import type { HeldLocks } from "./held_locks.ts";
import { inNamespace } from "./push_locks.ts";

/**
 * The model directories a pull for `models` (none: a pull naming no
 * model, a structural command's) leaves as they are: those of the other
 * model locks this process holds on namespace `ns`, each that run's until
 * its own flush (a peer's version taken there would set aside the run's
 * unpublished one, which its flush would then never push, nor be refused
 * for), but one holding a directory of the pull's own models.
 */
export function heldBack(heldLocks: HeldLocks, ns: string, models: readonly string[]): string[] {
  const strip = (p: string) => inNamespace(ns, p);
  const held = heldLocks.models(ns);
  const own = held.filter((l) => models.includes(l.model)).map((l) => strip(l.prefix));
  const ownDirs = [...own, ...models.map((m) => `data/${m}`)];
  return held.filter((l) => !models.includes(l.model)).map((l) => strip(l.prefix))
    .filter((d) => !ownDirs.some((o) => o === d || o.startsWith(`${d}/`)));
}

/**
 * The data paths that other processes of the tool over the same cache
 * marked and have not pushed, while they still run (a run of theirs under
 * its model lock, whose version is that run's until its own flush), outside
 * the directories of `models` (a pull's own): a pull in this process leaves
 * them as they are, as it leaves what is under this process's other held
 * model locks (see `heldBack`). A peer's version of that number taken there
 * would set the run's unpublished one aside, and the run's flush, finding
 * nothing of it to push, would acknowledge it.
 */
export async function runsElsewhere(
  svc: SyncService,
  models: readonly string[],
): Promise<string[]> {
  const own = models.map((m) => `data/${m}`);
  return [...await svc.state.markedElsewhere()].filter((p) =>
    p.startsWith("data/") && !own.some((o) => p === o || p.startsWith(`${o}/`))
  ).sort();
}
