/**
 * endpoint-fallback-warner: conditional writes (create-only versions,
 * compare-and-swap updates) hold on every endpoint, or the push says why not.
 *
 * Config `conditionalWrites`:
 * - `auto` (default): before the first conditional write to an endpoint the
 *   active probe runs (at most once per endpoint per process; not at all while
 *   the result cached in the cache dir is fresh). Where the endpoint honours
 *   conditional writes they pass through untouched: one request per write.
 *   Where it refuses or silently ignores them, writes fall back to
 *   check-then-write and ONE warning (`conditional_writes_fallback`) per
 *   endpoint per process says so. A write the endpoint refuses although the
 *   probe said it honours it switches the endpoint to the fallback.
 * - `required`: such an endpoint is refused with
 *   `ConditionalWritesUnsupportedError` (`conditional_writes_unsupported`).
 * - `off`: no probe; check-then-write, no warning.
 *
 * The probe results and the "warned" memo live in a {@link ConditionalWrites}
 * registry passed in (default: the process-wide one).
 *
 * @module
 */
import {
  checkCondition,
  checkThenPut,
  type ConditionalEnv,
  type ConditionalWrites,
  defaultConditionalWrites,
} from "../sync/transfer/conditional.ts";
import type { PushContext, WriteContext, WriteGateEntry } from "../sync/context.ts";
import { NotImplementedError } from "../sync/errors.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";

/** The gate's registered name. */
export const ENDPOINT_FALLBACK_WARNER = "endpoint-fallback-warner";

/** Options of {@link endpointFallbackWarner}. */
export interface EndpointFallbackWarnerOptions {
  /** Probe results and warnings per endpoint; default {@link defaultConditionalWrites}. */
  readonly registry?: ConditionalWrites;
}

function envOf(push: PushContext): ConditionalEnv {
  return {
    cache: push.cache,
    now: () => push.clock.now(),
    ttlMs: push.config.probeTtlMs,
    signal: push.signal,
    events: push.events,
  };
}

/**
 * The gate (write phase `conditional`, after the create-only writer chose the mode).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * import { ConditionalWrites } from "../sync/transfer/conditional.ts";
 * import { ENDPOINT_FALLBACK_WARNER, endpointFallbackWarner } from "./endpoint_fallback_warner.ts";
 * const write = new Pipeline<WriteContext>(WRITE_PHASES);
 * write.add({
 *   name: ENDPOINT_FALLBACK_WARNER,
 *   phase: "conditional",
 *   middleware: endpointFallbackWarner({ registry: new ConditionalWrites() }),
 * });
 * ```
 */
export function endpointFallbackWarner(
  options: EndpointFallbackWarnerOptions = {},
): Middleware<WriteContext> {
  const registry = options.registry ?? defaultConditionalWrites;
  return async function endpointFallbackWarnerGate(ctx, next) {
    const mode = ctx.mode;
    if (mode.kind === "overwrite") return await next();
    const push = ctx.push;
    const { store, config, signal } = push;
    const setting = config.conditionalWrites;
    // The probe is a store operation like any other: retried as the writes are
    // (over a store that makes one attempt; stores that retry themselves get none here).
    // Once it has said the endpoint honours the mode, the answer is known at once.
    const decided = registry.honoursNow(store.endpoint, mode.kind, setting)
      ? "native"
      : await withRetry(
        () => registry.decide(store, mode.kind, setting, envOf(push)),
        config.retry,
        signal,
      );
    if (decided === "native") {
      try {
        return await next();
      } catch (e) {
        if (!(e instanceof NotImplementedError)) throw e;
      }
      // The probe said yes, the endpoint said no: fall back from now on (or refuse under `required`).
      await registry.demote(store, mode.kind, setting, envOf(push));
      registry.stats.fallbackWrites++;
      ctx.result = await withRetry(
        () => checkThenPut(store, ctx.key, ctx.body, mode, { signal, metadata: ctx.metadata }),
        config.retry,
        signal,
      );
      ctx.outcome = "written";
      push.note(ENDPOINT_FALLBACK_WARNER, `${ctx.key}: written by check-then-write`, ctx.entry);
      return;
    }
    // Check-then-write: the check here, then the usual put (with its retries) as an overwrite.
    await withRetry(() => checkCondition(store, ctx.key, mode, { signal }), config.retry, signal);
    registry.stats.fallbackWrites++;
    ctx.mode = PutModes.overwrite;
    try {
      await next();
    } finally {
      ctx.mode = mode; // the push records what the write meant (e.g. a create)
    }
    push.note(ENDPOINT_FALLBACK_WARNER, `${ctx.key}: written by check-then-write`, ctx.entry);
  };
}

/**
 * The default registration of the gate.
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * import { endpointFallbackWarnerEntry } from "./endpoint_fallback_warner.ts";
 * new Pipeline<WriteContext>(WRITE_PHASES).add(endpointFallbackWarnerEntry());
 * ```
 */
export function endpointFallbackWarnerEntry(
  options: EndpointFallbackWarnerOptions = {},
): WriteGateEntry {
  return {
    appliesTo: (entry) => entry.class === "data-version" || entry.class === "config",
    name: ENDPOINT_FALLBACK_WARNER,
    phase: "conditional",
    middleware: endpointFallbackWarner(options),
    description:
      "endpoints without conditional writes are detected and fall back to check-then-write with one warning, or are refused when required",
  };
}
