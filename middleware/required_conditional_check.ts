/**
 * required-conditional-check: under `conditionalWrites: "required"`, a push
 * to an endpoint that refuses or silently ignores conditional writes writes
 * nothing at all.
 *
 * The endpoint-fallback-warner refuses each conditional write, but a push
 * also holds plain overwrites (other state) and ends with the index commit:
 * judged per write, those would land before (or beside) the refused one. So
 * this gate decides for the endpoint as a whole, before the first write: when
 * the setting is `required` and the plan writes or deletes anything, it asks
 * the probe (memoised per process, cached in the cache dir) whether both
 * create-only and compare-and-swap writes are honoured, and otherwise throws
 * `ConditionalWritesUnsupportedError` (`conditional_writes_unsupported`,
 * exit 69). Nothing is uploaded, deleted or committed, and every path stays
 * dirty. Under `auto` and `off` the gate does nothing.
 *
 * @module
 */
import { type ConditionalWrites, defaultConditionalWrites } from "../sync/transfer/conditional.ts";
import type { PushContext } from "../sync/context.ts";
import { withRetry } from "../sync/retry.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";

/** The gate's registered name. */
export const REQUIRED_CONDITIONAL_CHECK = "required-conditional-check";

/** Options of {@link requiredConditionalCheck}. */
export interface RequiredConditionalCheckOptions {
  /** Probe results per endpoint; default {@link defaultConditionalWrites}. */
  readonly registry?: ConditionalWrites;
}

/** True when the push would write or delete anything remotely. */
export function writesAnything(ctx: PushContext): boolean {
  return !ctx.dryRun && ctx.plan.some((e) => e.action !== "skip");
}

/**
 * The gate (push phase `initialize`, before every other gate).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { ConditionalWrites } from "../sync/transfer/conditional.ts";
 * import { requiredConditionalCheck } from "./required_conditional_check.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add({
 *   name: "required-conditional-check",
 *   phase: "initialize",
 *   middleware: requiredConditionalCheck({ registry: new ConditionalWrites() }),
 * });
 * ```
 */
export function requiredConditionalCheck(
  options: RequiredConditionalCheckOptions = {},
): Middleware<PushContext> {
  const registry = options.registry ?? defaultConditionalWrites;
  return async function requiredConditionalCheckGate(ctx, next) {
    if (ctx.config.conditionalWrites === "required" && writesAnything(ctx)) {
      const env = {
        cache: ctx.cache,
        now: () => ctx.clock.now(),
        ttlMs: ctx.config.probeTtlMs,
        signal: ctx.signal,
        events: ctx.events,
      };
      // Each throws ConditionalWritesUnsupportedError unless the form is honoured.
      // Retried as any store operation (see the endpoint-fallback warner).
      for (const form of ["create", "update"] as const) {
        await withRetry(
          () => registry.decide(ctx.store, form, "required", env),
          ctx.config.retry,
          ctx.signal,
        );
      }
      ctx.note(
        REQUIRED_CONDITIONAL_CHECK,
        `${ctx.store.endpoint} honours conditional writes (required)`,
      );
    }
    await next();
  };
}

/**
 * The gate's default registration (phase `initialize`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { requiredConditionalCheckEntry } from "./required_conditional_check.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(requiredConditionalCheckEntry());
 * ```
 */
export function requiredConditionalCheckEntry(
  options: RequiredConditionalCheckOptions = {},
): MiddlewareEntry<PushContext> {
  return {
    name: REQUIRED_CONDITIONAL_CHECK,
    phase: "initialize",
    middleware: requiredConditionalCheck(options),
    description:
      'under conditionalWrites "required", a push to an endpoint without conditional writes writes nothing at all',
  };
}
