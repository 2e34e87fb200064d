/**
 * What a pull leaves as it is for other processes over the same cache that
 * still run: the paths they marked and have not pushed, by name or under a
 * directory they marked (swamp's runs mark their version's directory before
 * they write it). A run of theirs writing its version there may be refused
 * yet, or publish it with its own flush: a pull here that set its files
 * aside for another writer's copy of that version, or took that copy over
 * them, would leave the run's flush finding nothing of its own to push, and
 * acknowledging it. Read after the index read, as the pull plans, and again
 * for a file that changed while the pull fetched it (a mark made after the
 * plan: the tool marks before it writes).
 *
 * @module
 */
import type { SyncState } from "./state.ts";

/**
 * True when `path` is one of `marks` or lies under one of them (a marked
 * directory). One set lookup per directory of the path.
 *
 * @example
 * ```ts
 * import { underMarks } from "./pull_elsewhere.ts";
 * underMarks(new Set(["data/m/out"]), "data/m/out/1/raw"); // true
 * ```
 */
export function underMarks(marks: ReadonlySet<string>, path: string): boolean {
  if (marks.size === 0) return false;
  if (marks.has(path)) return true;
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    if (marks.has(path.slice(0, i))) return true;
  }
  return false;
}

/** The marks of other running processes over the cache, as paths without a trailing slash. */
export async function marksElsewhere(state: SyncState): Promise<Set<string>> {
  const out = new Set<string>();
  for (const p of await state.markedElsewhere()) out.add(p.replace(/\/+$/, ""));
  return out;
}

/**
 * Whether `path` lies under a directory another running process marked
 * (`marks`, as read by {@link marksElsewhere}); a path marked by name is
 * not (it is a change made here, which the pull keeps as any local change).
 */
export function underMarkedDirectory(marks: ReadonlySet<string>, path: string): boolean {
  if (marks.size === 0) return false;
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    if (marks.has(path.slice(0, i))) return true;
  }
  return false;
}
