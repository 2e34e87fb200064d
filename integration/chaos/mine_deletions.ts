/**
 * I39: a `resolve --mine` whose side here is a deletion, answered resolved
 * or held back (the path left dirty for its next push), is published by
 * the final sync, or leaves a conflict open at the path. A resolution that
 * drops the conflict while no push will ever publish the deletion (a data
 * version its marker here names, which version-under-marker holds) leaves
 * the path waiting for good, with nothing saying it is in conflict and no
 * `--theirs` left to take.
 *
 * @module
 */
import type { Violation } from "./invariants.ts";

/** A `--mine` of a deletion here that dropped its conflict. */
export interface MineDeletion {
  readonly clone: number;
  readonly path: string;
  /** The `resolve` operation's id. */
  readonly op: number;
  /** How many of the users' changes were recorded as it ended (`touchedIn`'s length). */
  readonly touched: number;
}

/** A clone as the final sync left it, for {@link checkMineDeletions}. */
export interface MineDeletionClone {
  readonly dir: string;
  /** The paths marked dirty. */
  readonly dirty: readonly string[];
  /** The paths of its open conflicts. */
  readonly conflicts: readonly string[];
}

/**
 * I39 after the final sync over the index `entries`: each deletion in
 * `mine` that its clone still holds marked, nothing at the path here, while
 * the index names the path and no conflict is open there, unless a user of
 * that clone changed the path since (`touchedIn`, a clone's user changes in
 * order).
 */
export async function checkMineDeletions(
  mine: readonly MineDeletion[],
  clones: readonly MineDeletionClone[],
  entries: Readonly<Record<string, unknown>>,
  touchedIn: readonly { readonly clone: number; readonly path: string }[],
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const m of mine) {
    const slot = clones[m.clone];
    if (!slot || !Object.hasOwn(entries, m.path)) continue;
    if (!slot.dirty.includes(m.path) || slot.conflicts.includes(m.path)) continue;
    if (touchedIn.slice(m.touched).some((t) => t.clone === m.clone && t.path === m.path)) continue;
    if (await Deno.lstat(`${slot.dir}/${m.path}`).then(() => true, () => false)) continue;
    out.push({
      invariant: "I39",
      message:
        `c${m.clone}'s resolve --mine of its deletion of ${m.path} (op #${m.op}) dropped the conflict, and after the final sync the deletion is still marked here, unpublished (the index names ${m.path}): nothing says the path is in conflict, and no --theirs is left to take`,
      afterOp: -1,
    });
  }
  return out;
}
