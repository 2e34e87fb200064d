/**
 * A push's commit step: the writes deferred to it (`latest` markers, index
 * files) and the deletions, after every upload. A marker the plan took
 * along for a version's deletion (see `PlanEntry.unmarked`) goes after the
 * deletions, and only once every one under its data directory went
 * through: one refused (a peer's version there, met as a conflict) leaves
 * the marker as it is on the datastore, naming that version. (On S3 a
 * peer's marker set back to the bytes this cache synced has the version it
 * synced: its compare-and-swap alone would not tell.) A deletion a gate
 * left out after the plan (before the commit: version-under-marker's look
 * once the uploads are made) is not made.
 *
 * @module
 */
import type { PlanEntry } from "../context.ts";

/**
 * Why a `latest` marker taken along with its version's deletion was left
 * out: a deletion under its data directory did not go through.
 */
export const MARKER_WITH_REFUSED_DELETION =
  "taken along with a version's deletion that did not go through (a conflict, or another writer's upload in the way): the datastore's marker stays as it is until that deletion is resolved";

/** How the commit step writes and deletes (the push's own), and what it deleted. */
export interface CommitStepIo {
  write(entries: PlanEntry[]): Promise<unknown>;
  remove(entries: PlanEntry[]): Promise<void>;
  /** The paths deleted so far. */
  deleted(): readonly string[];
}

/**
 * Writes `due` and deletes `deletes`, the markers taken along last and
 * only where their version's deletions went through (see the module).
 *
 * @example
 * ```ts
 * import { commitStep } from "./push_commit_step.ts";
 * await commitStep([], [], {
 *   write: () => Promise.resolve(),
 *   remove: () => Promise.resolve(),
 *   deleted: () => [],
 * });
 * ```
 */
export async function commitStep(
  due: readonly PlanEntry[],
  deletes: readonly PlanEntry[],
  io: CommitStepIo,
): Promise<void> {
  await io.write(due.filter((e) => !e.unmarked));
  // A deletion a gate left out since the plan (a hook run before the
  // commit: see version-under-marker) is not made.
  await io.remove(deletes.filter((e) => !e.unmarked && e.action !== "skip"));
  const along = [...due, ...deletes].filter((e) => e.unmarked);
  if (along.length === 0) return;
  const gone = new Set(io.deleted());
  for (const m of along) {
    const dir = `${m.path.slice(0, m.path.lastIndexOf("/"))}/`;
    const refused = deletes.some((d) => !d.unmarked && d.path.startsWith(dir) && !gone.has(d.path));
    if (!refused) continue;
    m.action = "skip";
    m.reason = MARKER_WITH_REFUSED_DELETION;
  }
  await io.write(due.filter((e) => e.unmarked && e.action !== "skip"));
  await io.remove(deletes.filter((e) => e.unmarked && e.action !== "skip"));
}
