/**
 * A data version a run's push lost to another writer's (`version_exists`)
 * that is no version of that run: a leftover of an earlier run in the cache
 * (one that crashed before its commit, say), there before the run took its
 * lock. The create-only writer set its local copy aside, as for any lost
 * version; the run is not refused for it (a refusal says "run again to
 * write a new version", while the run's own versions, left dirty, would be
 * published by the next push anyway). The push goes on with the run's own
 * versions, lists the leftover's files as skipped, and warns
 * `version_exists`, naming them and where their copies were set aside.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../context.ts";
import { VersionConflictError } from "../errors.ts";
import { listPaths } from "../left_behind.ts";

/** Why a leftover's file is in `skipped`. */
export const LEFTOVER_REASON =
  "a data version of an earlier run in this cache (not this run's) that another writer published first with other bytes: the datastore's copy stands, and this copy was set aside (see `sluice status`)";

/**
 * True when `error`, met by the write of `entry` in `ctx`, is a data version
 * lost to another writer's that the run pushing (a push under model locks)
 * did not write: its version directory was in the cache before the run
 * (`preexisting`), and is not among the run's `written`.
 *
 * @example
 * ```ts ignore
 * import { isLeftoverLoss } from "./push_leftover.ts";
 * declare const ctx: import("../context.ts").PushContext;
 * declare const entry: import("../context.ts").PlanEntry;
 * isLeftoverLoss(ctx, entry, new Error("x")); // false: no version_exists
 * ```
 */
export function isLeftoverLoss(ctx: PushContext, entry: PlanEntry, error: unknown): boolean {
  if (!(error instanceof VersionConflictError) || ctx.locks.length === 0) return false;
  const under = (d: string) => entry.path.startsWith(`${d.replace(/\/+$/, "")}/`);
  if (ctx.written.some(under)) return false;
  for (const d of ctx.preexisting) if (under(d)) return true;
  return false;
}

/**
 * Leaves `entry` out of the push as a leftover's file (see
 * {@link isLeftoverLoss}): skipped, its mark gone with its set-aside copy.
 */
export function leaveLeftover(entry: PlanEntry): void {
  entry.action = "skip";
  entry.keepDirty = false;
  entry.reason = LEFTOVER_REASON;
}

/**
 * The warning for the leftovers a run's push lost (their errors), or
 * undefined when none.
 *
 * @example
 * ```ts
 * import { leftoverWarning } from "./push_leftover.ts";
 * console.log(leftoverWarning([])); // undefined
 * ```
 */
export function leftoverWarning(
  lost: readonly VersionConflictError[],
): { code: string; message: string; path: string } | undefined {
  const keys = [...new Set(lost.flatMap((e) => e.keys))].sort();
  if (keys.length === 0) return undefined;
  const shown = lost.flatMap((e) => e.setAsideShown);
  const one = keys.length === 1;
  return {
    code: "version_exists",
    message: `Data version file${one ? "" : "s"} ${listPaths(keys, 3)} ${
      one ? "is" : "are"
    } not this run's: an earlier run in this cache wrote ${
      one ? "it" : "them"
    } (one that stopped before its commit, say), and another writer published that version first with other bytes. The datastore's copy was kept; the local copy was not pushed${
      shown.length ? ` and was set aside in ${listPaths(shown, 4)}` : ""
    } (see \`sluice status\`). This run's push went on with its own versions: it is not refused for this one.`,
    path: keys[0],
  };
}
