/**
 * refused-run-eraser: a run refused for losing its model lock never surfaces
 * later. Wrapping the lock fence, on `ModelLockLostError` it journals the
 * run's `written` versions durably, checks each is provably this run's,
 * deletes what the push already uploaded under them (only while still its
 * own), erases them from the cache, the dirty set and the manifest,
 * recomputes their `latest` markers, tries a best-effort refresh and
 * rethrows. A version it cannot attribute is never deleted (`erasure_refused`)
 * and is held out of every push; only a `latest` marker object its push
 * created, named by no index, is deleted from the datastore (the cache keeps
 * it, held). Each push first completes an erasure a crash interrupted.
 *
 * @module
 */
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { journalPending, readErasureJournal } from "./erasure.ts";
import type { PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { hold, refuse, REFUSED_RUN_ERASER, resume } from "./refused_run_steps.ts";
import { refresh } from "./refused_run_cleanup.ts";

export { REFUSED_RUN_ERASER } from "./refused_run_steps.ts";

/**
 * The gate: completes interrupted erasures, holds unresolved runs, and erases
 * a refused run's data before its `ModelLockLostError` leaves the push.
 *
 * @example
 * ```ts
 * import { refusedRunEraser } from "./refused_run_eraser.ts";
 * const gate = refusedRunEraser();
 * ```
 */
export function refusedRunEraser(): Middleware<PushContext> {
  return async function refusedRunEraserGate(ctx, next) {
    const journal = await readErasureJournal(ctx.cache);
    const resumed = !ctx.dryRun && journalPending(journal) ? await resume(ctx, journal) : [];
    await hold(ctx, journal);
    try {
      await next();
    } catch (e) {
      if (!(e instanceof ModelLockLostError) || ctx.dryRun) throw e;
      await refuse(ctx, e, journal, resumed);
    }
    await refresh(ctx, resumed);
  };
}

/**
 * The gate's default registration (phase `erase`, so it wraps the fence).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { refusedRunEraserEntry } from "./refused_run_eraser.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(refusedRunEraserEntry());
 * ```
 */
export function refusedRunEraserEntry(): MiddlewareEntry<PushContext> {
  return {
    name: REFUSED_RUN_ERASER,
    phase: "erase",
    middleware: refusedRunEraser(),
    description:
      "a run refused for a lost lock leaves its data on no clone (erased before the error)",
  };
}
