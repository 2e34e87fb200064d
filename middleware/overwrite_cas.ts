/**
 * overwrite-cas: latest markers, index files and other state are written
 * only over the version this cache last synced, so the remote index never
 * names a version the store no longer holds.
 *
 * These classes used to be overwritten (markers and indexes in the commit
 * step), and the index then recorded whatever version the put returned. Two
 * clones writing the same marker both succeeded, and the index could name
 * the version the second put had already replaced: a fresh clone then got no
 * marker at all. This gate gives each such write a compare-and-swap mode:
 * `update` on the version this cache last synced, `create` when it never
 * synced one. A write that loses the race (or meets a peer's change it never
 * pulled) is refused by the store, and the config-cas-writer turns the
 * refusal into a recorded conflict (or an `identical` success when the store
 * already holds these bytes). A crash between the write and the index commit
 * leaves the path dirty; the next push finds its own bytes there and commits
 * them.
 *
 * A snapshot (a catalog export, rewritten whole by its writer) is marked
 * as one (`PlanEntry.snapshot`): refused by a committed change, it is
 * written again over that version instead (see `snapshot_rebase.ts`).
 *
 * @module
 */
import { PutModes } from "../sync/ports.ts";
import type { PathClass, PlanEntry, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { isSnapshot } from "./snapshot_rebase.ts";

/** The gate's registered name. */
export const OVERWRITE_CAS = "overwrite-cas";

const CLASSES: ReadonlySet<PathClass | undefined> = new Set(["latest-marker", "index", "other"]);

/** True when the gate gives `entry` a compare-and-swap mode. */
export function overwriteCasApplies(entry: PlanEntry): boolean {
  return entry.action === "put" && CLASSES.has(entry.class) &&
    (entry.mode === undefined || entry.mode.kind === "overwrite");
}

/**
 * The gate (push phase `guard`).
 *
 * @example
 * ```ts
 * import { overwriteCas } from "./overwrite_cas.ts";
 * const gate = overwriteCas();
 * ```
 */
export function overwriteCas(): Middleware<PushContext> {
  return async function overwriteCasGate(ctx, next) {
    let updates = 0;
    let creates = 0;
    for (const entry of ctx.plan) {
      if (!overwriteCasApplies(entry)) continue;
      if (isSnapshot(entry)) entry.snapshot = true;
      if (entry.syncedVersion !== undefined) {
        entry.mode = PutModes.update(entry.syncedVersion);
        updates++;
      } else {
        entry.mode = PutModes.create;
        creates++;
      }
      entry.handledBy.push(OVERWRITE_CAS);
    }
    const said = [
      updates > 0 ? `${updates} to write only over the version this cache last synced` : "",
      creates > 0 ? `${creates} never synced here, to write only where none exists yet` : "",
    ].filter(Boolean);
    if (said.length > 0) ctx.note(OVERWRITE_CAS, `marker/index/other files: ${said.join("; ")}`);
    await next();
  };
}

/**
 * The gate's default registration (phase `guard`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { overwriteCasEntry } from "./overwrite_cas.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(overwriteCasEntry());
 * ```
 */
export function overwriteCasEntry(): MiddlewareEntry<PushContext> {
  return {
    name: OVERWRITE_CAS,
    phase: "guard",
    middleware: overwriteCas(),
    description:
      "markers, index files and other state are written only over the version last synced (create-only when never synced); a loser gets a conflict",
  };
}
