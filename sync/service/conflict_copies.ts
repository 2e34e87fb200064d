/**
 * The copies set aside (in `.sluice/set-aside/`) that a conflict record
 * names, and how a record that replaces another, or is saved over one
 * another process sharing the cache saved, goes on naming them (see
 * `ConflictSet` in `conflicts.ts`).
 *
 * @module
 */
import type { ConflictRecord, LocalSide } from "./conflicts.ts";
import { keptCopies } from "./conflict_file.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";

/**
 * The copies `rec` names in the set-aside area: its earlier ones, then
 * `mine` when set aside.
 *
 * @example
 * ```ts
 * import { setAsideCopies } from "./conflict_copies.ts";
 * console.log(setAsideCopies(undefined)); // []
 * ```
 */
export function setAsideCopies(rec: ConflictRecord | undefined): LocalSide[] {
  if (!rec) return [];
  const mine = rec.mine && rec.mine.location !== rec.path ? [rec.mine] : [];
  return [...keptCopies(rec.keptAside), ...mine];
}

/**
 * `rec`, also naming the set-aside copies of `old` (the record it replaces)
 * it does not name.
 *
 * @example
 * ```ts
 * import { carryAside } from "./conflict_copies.ts";
 * const rec = { path: "a", mine: null, theirs: null, foundBy: "pull" as const, at: 0, reason: "" };
 * console.log(carryAside(undefined, rec) === rec); // true
 * ```
 */
export function carryAside(old: ConflictRecord | undefined, rec: ConflictRecord): ConflictRecord {
  const seen = new Set([rec.mine?.location]);
  const kept: LocalSide[] = [];
  for (const c of [...setAsideCopies(old), ...keptCopies(rec.keptAside)]) {
    if (seen.has(c.location)) continue;
    seen.add(c.location);
    kept.push(c);
  }
  if (kept.length === 0) return rec;
  return { ...rec, keptAside: kept };
}

/**
 * `mine`, a record of a path whose record another process sharing the
 * cache (state directory `stateDir`) changed since this one last read it
 * (to `theirs`, or none: resolved there), also naming the copies set aside
 * that `theirs` names, and naming none that a resolution released, of
 * either process (`released`: this process's; a copy it resolved is the
 * user's to keep or remove, never named again). Nor one the record named as
 * this process last read it (`was`) that `theirs` no longer names: only a
 * resolution drops a copy, and its release comes after its push, so it may
 * not be marked released yet.
 *
 * @example
 * ```ts
 * import { withOthers } from "./conflict_copies.ts";
 * const rec = { path: "a", mine: null, theirs: null, foundBy: "pull" as const, at: 0, reason: "" };
 * console.log(await withOthers(await Deno.makeTempDir(), new Set(), rec, undefined)); // rec
 * ```
 */
export async function withOthers(
  stateDir: string,
  released: ReadonlySet<string>,
  mine: ConflictRecord,
  theirs: ConflictRecord | undefined,
  was?: ConflictRecord,
): Promise<ConflictRecord> {
  const dropped = new Set(setAsideCopies(was).map((c) => c.location));
  for (const c of setAsideCopies(theirs)) dropped.delete(c.location);
  const seen = new Set([mine.mine?.location]);
  const kept: LocalSide[] = [];
  for (const c of [...keptCopies(mine.keptAside), ...setAsideCopies(theirs)]) {
    if (seen.has(c.location)) continue;
    seen.add(c.location);
    if (dropped.has(c.location) || released.has(c.location)) continue;
    if (await setAsideReleased(stateDir, c.location)) continue;
    kept.push(c);
  }
  const { keptAside: _, ...rec } = mine;
  return kept.length === 0 ? rec : { ...rec, keptAside: kept };
}
