/**
 * Snapshots: files their writer rewrites whole each time, from state of its
 * own (a catalog export, `.catalog-export.json` at the root of the cache or
 * directly under a namespace, is the whole catalog of that writer's cache).
 * Another writer's snapshot is not a change to build on, only an older or a
 * newer picture: the last writer's stands. The overwrite-cas gate marks them
 * (`PlanEntry.snapshot`); when their compare-and-swap on the version this
 * cache last synced is refused by a committed change, the config-cas-writer
 * hands them here instead of recording a conflict: the write is made again
 * over the version the datastore holds now, still as a compare-and-swap, so
 * two writers racing still make one winner and nothing is written blindly.
 * The loser of such a race keeps its copy dirty; its next push does the same
 * again.
 *
 * @module
 */
import type { PlanEntry, WriteContext } from "../sync/context.ts";
import type { ObjectInfo } from "../sync/ports.ts";
import { writeOverCommitted } from "./own_writes.ts";

/** The file name of a catalog export. */
export const CATALOG_EXPORT = ".catalog-export.json";

/** Why a snapshot that lost the race to another writer was left dirty. */
export const SNAPSHOT_RACE_REASON =
  "a snapshot written whole: another writer replaced the datastore's copy while this push wrote it; the local copy stays dirty and the next push writes it over the newer one";

/**
 * True when `entry` is a snapshot: a catalog export, at the root or directly
 * under a namespace, classified as an index file.
 *
 * @example
 * ```ts
 * import { isSnapshot } from "./snapshot_rebase.ts";
 * import { planEntry } from "../packages/testing/mod.ts";
 * isSnapshot(planEntry("prod/.catalog-export.json", { class: "index" })); // true
 * ```
 */
export function isSnapshot(entry: Pick<PlanEntry, "path" | "class">): boolean {
  const segs = entry.path.split("/");
  return entry.class === "index" && segs.length <= 2 && segs[segs.length - 1] === CATALOG_EXPORT;
}

/**
 * Writes a snapshot over `remote`, the committed object the datastore holds
 * at its key (null: none), with a compare-and-swap on that version; the
 * write's mode is then that version, so the index commit checks against it.
 * Refused (another writer got there first), the entry is left out and kept
 * dirty, with no conflict; `gate` names the caller in the notes.
 *
 * @example
 * ```ts
 * import { rebaseSnapshot } from "./snapshot_rebase.ts";
 * import type { WriteContext } from "../sync/context.ts";
 * async function _example(ctx: WriteContext) {
 *   await rebaseSnapshot(ctx, null, "config-cas-writer");
 * }
 * ```
 */
export async function rebaseSnapshot(
  ctx: WriteContext,
  remote: ObjectInfo | null,
  gate: string,
): Promise<void> {
  const base = remote?.version ?? null;
  await writeOverCommitted(ctx, base, gate, {
    written: `a snapshot, written whole over ${
      base === null ? "no copy" : `the datastore's version ${base}`
    }`,
    lost: "a snapshot, replaced meanwhile by another writer",
    reason: SNAPSHOT_RACE_REASON,
  });
}
