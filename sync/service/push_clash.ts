/**
 * A store that cannot hold a key and keys under it at once (files on disk)
 * refuses a file written where the other kind is ({@link KeyClashError}).
 * When the push deletes that other kind too (a synced file replaced here by
 * a directory of its name, or the reverse), or checks an upload of this
 * cache's left there (a never-synced file, see `settleStrays`), those
 * deletions and checks go first and the refused writes are made again.
 *
 * @module
 */
import { KeyClashError } from "../errors.ts";
import type { PlanEntry } from "../context.ts";

/** A write or deletion of the push that failed. */
export interface PushFailureEntry {
  readonly entry: PlanEntry;
  readonly error: unknown;
}

/**
 * Finds the writes `failures` holds that a key clash refused, and the
 * deletions (in `deletes`) and stranded-upload checks (in `plan`) near them;
 * when there are any, takes those writes out of `failures` and those
 * deletions out of `deletes`, and calls `run(first, strays, again)`, which
 * makes the deletions and checks and then the writes again, and says
 * whether it got that far (if not, the writes go back into `failures`).
 *
 * @example
 * ```ts
 * import { clashesFirst } from "./push_clash.ts";
 * await clashesFirst([], [], [], () => Promise.resolve(true)); // no clash: run is not called
 * ```
 */
export async function clashesFirst(
  plan: readonly PlanEntry[],
  failures: PushFailureEntry[],
  deletes: PlanEntry[],
  run: (first: PlanEntry[], strays: Set<PlanEntry>, again: PlanEntry[]) => Promise<boolean>,
): Promise<void> {
  const clashed = failures.filter((f) => f.error instanceof KeyClashError);
  if (clashed.length === 0) return;
  const near = (a: string, b: string) => a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const nearClash = (e: PlanEntry) => clashed.some((f) => near(e.path, f.entry.path));
  const first = deletes.filter(nearClash);
  const strays = new Set(
    plan.filter((e) =>
      e.strandedCheck && e.action === "skip" && e.syncedVersion === undefined && nearClash(e)
    ),
  );
  if (first.length === 0 && strays.size === 0) return;
  const firstPaths = [...first, ...strays];
  const again = clashed.filter((f) => firstPaths.some((d) => near(d.path, f.entry.path)));
  for (const f of again) failures.splice(failures.indexOf(f), 1);
  for (const d of first) deletes.splice(deletes.indexOf(d), 1);
  if (!(await run(first, strays, again.map((f) => f.entry)))) failures.push(...again);
}
