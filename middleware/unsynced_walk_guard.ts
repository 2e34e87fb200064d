/**
 * unsynced-walk-guard: a walk push (after a bulk markDirty) never overwrites
 * a remote copy this cache never synced.
 *
 * A walk finds every file whose content differs from the synced manifest. A
 * file with no manifest entry at all is ambiguous: a new local file, a file
 * copied in by hand, or, after the sync state was lost, a stale copy of a
 * file peers have since changed. Uploading it in overwrite mode could roll a
 * peer's newer copy back. So, for the overwrite classes (markers, indexes,
 * other state), the gate reads the remote index once: a path absent remotely
 * is pushed as usual; a path the remote holds with the same bytes is recorded
 * as synced and left out; a path the remote holds with other bytes is left
 * out with a warning and counted as unpublished (the push left work behind:
 * the command line exits 2), and the next pull sets the local copy aside and
 * takes the datastore's. Paths marked dirty by name keep their own rule (the
 * caller said it wrote them); data versions and config files have their own
 * gates.
 *
 * @module
 */
import type { PathClass, PlanEntry, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { UnreachableError } from "../sync/errors.ts";
import { shellWord } from "../sync/shell_word.ts";

/** The gate's registered name. */
export const UNSYNCED_WALK_GUARD = "unsynced-walk-guard";

/** Why a walk-found file the datastore holds with the same bytes is not written (recorded as synced). */
export const ALREADY_THERE_REASON = "the datastore already holds these bytes";

/** Warning code for a walk-found file left out because the remote holds other bytes. */
export const UNSYNCED_DIFFERS = "unsynced_differs";

const OVERWRITE_CLASSES: ReadonlySet<PathClass | undefined> = new Set([
  "latest-marker",
  "index",
  "other",
]);

function guarded(e: PlanEntry): boolean {
  return e.source === "walk" && e.action === "put" && e.syncedVersion === undefined &&
    OVERWRITE_CLASSES.has(e.class);
}

/**
 * The gate (push phase `guard`).
 *
 * @example
 * ```ts
 * import { unsyncedWalkGuard } from "./unsynced_walk_guard.ts";
 * const gate = unsyncedWalkGuard();
 * ```
 */
export function unsyncedWalkGuard(): Middleware<PushContext> {
  return async function unsyncedWalkGuardGate(ctx, next) {
    // A dry run (`status`) reads the index too, so that it says what a push
    // would do with these paths; it records and tells nothing.
    const candidates = ctx.plan.filter(guarded);
    // A dry run whose datastore does not answer lists them as they are
    // (`status` then says it shows this cache's side only).
    const index = candidates.length === 0 ? null : await readIndex(
      ctx.store,
      ctx.config.retry,
      ctx.signal,
      ctx.config.concurrency,
    ).catch((e) => {
      if (ctx.dryRun && e instanceof UnreachableError) return undefined;
      throw e;
    });
    if (index !== undefined && candidates.length > 0) {
      for (const e of candidates) {
        const remote = index?.entries[e.path];
        if (!remote) continue; // new here and absent remotely: push it
        e.action = "skip";
        e.keepDirty = false;
        if (remote.h === e.hash) {
          e.reason = ALREADY_THERE_REASON;
          if (!ctx.dryRun) {
            ctx.state.setSynced(e.path, { hash: remote.h, version: remote.v, size: remote.s });
          }
          ctx.note(UNSYNCED_WALK_GUARD, `${e.path}: already on the datastore`, e);
          continue;
        }
        e.unpublished = true;
        e.reason =
          `never synced by this cache, and the datastore holds other bytes (\`sluice pull\` sets this copy aside and takes theirs; \`sluice push ${
            shellWord(e.path)
          }\` meets theirs as a conflict)`;
        ctx.note(UNSYNCED_WALK_GUARD, `${e.path}: left out, the datastore holds other bytes`, e);
        if (ctx.dryRun) continue;
        ctx.events.emit("warning", {
          code: UNSYNCED_DIFFERS,
          message:
            `${e.path} was left out of the push: this cache never synced it, and the datastore holds a different copy that may be newer (a peer's). The datastore's copy was kept. The next pull sets your copy aside and takes the datastore's; to publish your copy over it, push the path by name (\`sluice push ${
              shellWord(e.path)
            }\`, or markDirty({relPath}) and a push), which records a conflict that \`sluice resolve ${
              shellWord(e.path)
            } --mine\` settles.`,
          path: e.path,
        });
      }
    }
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
 * import { unsyncedWalkGuardEntry } from "./unsynced_walk_guard.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(unsyncedWalkGuardEntry());
 * ```
 */
export function unsyncedWalkGuardEntry(): MiddlewareEntry<PushContext> {
  return {
    name: UNSYNCED_WALK_GUARD,
    phase: "guard",
    middleware: unsyncedWalkGuard(),
    description:
      "a walk push never overwrites a remote copy this cache never synced (e.g. after its sync state was lost)",
  };
}
