/**
 * The refused-run-eraser gate's follow-up to a refusal: erasing the versions
 * beside held ones (`eraseBeside`), deleting the `latest` markers a held
 * run's push created (`dropCreatedMarkers`), settling markers a pull left in
 * conflict (`settleMarkers`) and the best-effort refresh of the models' data
 * (`refresh`). The refusal itself is in `refused_run_steps.ts`.
 *
 * @module
 */
import {
  completeErasure,
  type ErasureJournal,
  settleSetAsideMarkers,
  type UploadRef,
} from "./erasure.ts";
import { parentOf } from "../sync/paths.ts";
import type { PushContext } from "../sync/context.ts";
import { REFUSED_RUN_ERASER, warnPending, warnRestored } from "./refused_run_hold.ts";

/**
 * Best-effort refresh: a failure is a warning and never replaces the refusal.
 *
 * @example
 * ```ts
 * import { refresh } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const after = (ctx: PushContext) => refresh(ctx, ["data/t/m"]);
 * ```
 */
export async function refresh(
  ctx: PushContext,
  prefixes: readonly string[],
  leave?: readonly string[],
): Promise<void> {
  if (prefixes.length === 0) return;
  try {
    await ctx.refresh(prefixes, leave);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "refresh_failed",
      message: `Could not refresh ${prefixes.join(", ")} from the datastore (${
        e instanceof Error ? e.message : String(e)
      }). The refused run's data was already discarded from this cache; the next pull brings the datastore's copy.`,
    });
  }
}

/**
 * {@link completeErasure}, or, when it fails, an `erasure_incomplete`
 * warning (`said` of the failure) and null: the journal keeps the rest for
 * the next push.
 *
 * @example
 * ```ts
 * import { completeOrJournaled } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal } from "./erasure.ts";
 * const finish = (ctx: PushContext, journal: ErasureJournal) =>
 *   completeOrJournaled(ctx, journal, (why) => `not yet (${why})`);
 * ```
 */
export async function completeOrJournaled(
  ctx: PushContext,
  journal: ErasureJournal,
  said: (why: string) => string,
): Promise<Awaited<ReturnType<typeof completeErasure>> | null> {
  try {
    return await completeErasure(ctx, journal);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "erasure_incomplete",
      message: said(e instanceof Error ? e.message : String(e)),
    });
    return null;
  }
}

/**
 * Deletes the journaled uploads (`created`, the markers a held run's push
 * created, among them) while each is still the push's own and named by no
 * index; what cannot be deleted now stays journaled, and the next push
 * deletes it before uploading anything. Never replaces the refusal.
 *
 * @example
 * ```ts
 * import { dropCreatedMarkers } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal, UploadRef } from "./erasure.ts";
 * const drop = (ctx: PushContext, journal: ErasureJournal, created: UploadRef[]) =>
 *   dropCreatedMarkers(ctx, journal, created);
 * ```
 */
export async function dropCreatedMarkers(
  ctx: PushContext,
  journal: ErasureJournal,
  created: readonly UploadRef[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not yet delete ${
        created.map((u) => u.path).join(", ")
      } from the datastore (${why}), created by a push refused for losing its model lock and named by no index. The deletion is journaled: the next push completes it before uploading anything.`,
  );
  if (!outcome) return;
  if (outcome.deleted.length > 0) {
    ctx.note(
      REFUSED_RUN_ERASER,
      `deleted ${
        outcome.deleted.join(", ")
      } from the datastore (created by this push, named by no index); the held versions' files were left in place`,
    );
  }
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
}

/**
 * Erases the versions a refusal does not hold (another model's, beside a
 * held one), with what the journal holds to delete; a failure is a warning
 * and the journal keeps the rest for the next push. Never replaces the refusal.
 *
 * @example
 * ```ts
 * import { eraseBeside } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal } from "./erasure.ts";
 * const erase = (ctx: PushContext, journal: ErasureJournal) =>
 *   eraseBeside(ctx, journal, ["data/t/other/versions/1"]);
 * ```
 */
export async function eraseBeside(
  ctx: PushContext,
  journal: ErasureJournal,
  erase: readonly string[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not finish discarding ${
        erase.join(", ")
      } (${why}). The erasure is journaled: the next push completes it before uploading anything, so none of this run's data is pushed.`,
  );
  if (!outcome) return;
  ctx.note(
    REFUSED_RUN_ERASER,
    `discarded ${erase.join(", ")}${
      outcome.deleted.length ? `; deleted ${outcome.deleted.join(", ")} from the datastore` : ""
    }`,
  );
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
}

/**
 * Settles on the datastore's marker each `latest` marker of the lost locks'
 * models that a pull during the run left in conflict, naming a version whose
 * copy here it set aside (see `settleSetAsideMarkers`), and says so
 * (`latest_reset`): the refresh that follows brings the datastore's marker.
 *
 * @example
 * ```ts
 * import { settleMarkers } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const settle = (ctx: PushContext) => settleMarkers(ctx, ["data/t/m"]);
 * ```
 */
export async function settleMarkers(ctx: PushContext, prefixes: readonly string[]): Promise<void> {
  for (const m of await settleSetAsideMarkers(ctx.cache, ctx.state, prefixes)) {
    const dir = parentOf(m.path);
    ctx.note(REFUSED_RUN_ERASER, `settled ${m.path} on the datastore's marker`);
    ctx.events.emit("warning", {
      code: "latest_reset",
      message:
        `${m.path} was changed here and named version ${m.was}, in conflict with the datastore's marker: another writer published version ${m.was} of ${dir} while this run held the lock it lost, and this cache's copy of it was set aside and is not published. The conflict is settled: the marker is the datastore's again (this refusal's refresh, or the next pull, brings it), so that later runs publish theirs.`,
      path: m.path,
    });
  }
}
