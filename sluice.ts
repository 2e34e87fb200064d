/**
 * The composition root: assembles the default gate pipelines and creates a
 * sync service with them. `sync/` knows no gate; this file is the one place
 * that knows them all (as the AWS SDK's client adds its middlewares to a
 * stack that knows none of them).
 *
 * @module
 */
import { Pipeline } from "./sync/pipeline.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "./sync/context.ts";
import {
  createSyncService,
  type SyncService,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./sync/service.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./middleware/path_classifier.ts";
import { CREATE_ONLY_WRITER, createOnlyWriterEntry } from "./middleware/create_only_writer.ts";
import {
  ENDPOINT_FALLBACK_WARNER,
  endpointFallbackWarnerEntry,
} from "./middleware/endpoint_fallback_warner.ts";
import {
  type ConditionalWrites,
  defaultConditionalWrites,
  withConditionalFallback,
} from "./sync/conditional.ts";
import { storeLockBackend } from "./sync/lock_engine.ts";
import { LOCKFILE_GUARD, lockfileGuardEntry } from "./middleware/lockfile_guard.ts";
import { UNSYNCED_WALK_GUARD, unsyncedWalkGuardEntry } from "./middleware/unsynced_walk_guard.ts";
import { OVERWRITE_CAS, overwriteCasEntry } from "./middleware/overwrite_cas.ts";
import {
  REQUIRED_CONDITIONAL_CHECK,
  requiredConditionalCheckEntry,
} from "./middleware/required_conditional_check.ts";
import { LOCK_FENCE, lockFenceEntry } from "./middleware/lock_fence.ts";
import { REFUSED_RUN_ERASER, refusedRunEraserEntry } from "./middleware/refused_run_eraser.ts";
import { CONFIG_CAS_WRITER, configCasWriterEntry } from "./middleware/config_cas_writer.ts";
import { createEmitter } from "./sync/events.ts";
import { LocalCache } from "./sync/cache.ts";
import type { MiddlewareEntry } from "./sync/pipeline.ts";

/** The default gates, by name, in pipeline order. */
export const DEFAULT_GATES = {
  push: [
    REQUIRED_CONDITIONAL_CHECK,
    PATH_CLASSIFIER,
    LOCKFILE_GUARD,
    UNSYNCED_WALK_GUARD,
    OVERWRITE_CAS,
    REFUSED_RUN_ERASER,
    LOCK_FENCE,
  ],
  write: [CREATE_ONLY_WRITER, CONFIG_CAS_WRITER, ENDPOINT_FALLBACK_WARNER],
} as const;

/** Options of {@link defaultPipelines}. */
export interface DefaultPipelineOptions {
  /** Gate names to leave out (for replays with a gate off; never in production). */
  readonly disable?: readonly string[];
  /** Probe results and the once-per-endpoint warning; default the process-wide registry. */
  readonly conditional?: ConditionalWrites;
}

/**
 * The default push and per-write pipelines.
 *
 * @example
 * ```ts
 * import { defaultPipelines } from "./sluice.ts";
 * const { push, write } = defaultPipelines();
 * console.log(push.describe(), write.describe());
 * ```
 */
export function defaultPipelines(
  options: DefaultPipelineOptions = {},
): { push: Pipeline<PushContext>; write: Pipeline<WriteContext> } {
  const off = new Set(options.disable ?? []);
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  const addPush = (name: string, phase: string, description: string, mw: PushMiddleware) => {
    if (!off.has(name)) push.add({ name, phase, description, middleware: mw });
  };
  const required = requiredConditionalCheckEntry({
    registry: options.conditional ?? defaultConditionalWrites,
  });
  if (!off.has(required.name)) push.add(required);
  addPush(
    PATH_CLASSIFIER,
    "classify",
    "every path gets exactly one class",
    pathClassifier(),
  );
  for (
    const entry of [
      lockfileGuardEntry(),
      unsyncedWalkGuardEntry(),
      overwriteCasEntry(),
      refusedRunEraserEntry(),
      lockFenceEntry(),
    ]
  ) {
    if (!off.has(entry.name)) push.add(entry);
  }
  const addWrite = (entry: MiddlewareEntry<WriteContext>) => {
    if (!off.has(entry.name)) write.add(entry);
  };
  addWrite(createOnlyWriterEntry());
  addWrite(configCasWriterEntry());
  addWrite(
    endpointFallbackWarnerEntry({ registry: options.conditional ?? defaultConditionalWrites }),
  );
  return { push, write };
}

type PushMiddleware = Parameters<Pipeline<PushContext>["add"]>[0]["middleware"];

/** Options of {@link createSluice}: the sync service options plus gate selection. */
export interface SluiceOptions extends Omit<SyncServiceOptions, "push" | "write"> {
  /** Gate names to leave out (replays only). */
  readonly disable?: readonly string[];
  /** Probe results and warnings shared by the gates and the lock engine; default process-wide. */
  readonly conditional?: ConditionalWrites;
}

/**
 * A sync service with the default gates. Without a `lockBackend`, locks are
 * the engine's, over the same store behind the same conditional-write
 * fallback as the push.
 *
 * @example
 * ```ts
 * import { createSluice } from "./sluice.ts";
 * import { InMemoryStore } from "./packages/testing/mod.ts";
 * const svc = await createSluice({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * console.log(svc.describe());
 * ```
 */
export async function createSluice(options: SluiceOptions): Promise<SyncService> {
  validateSyncServiceOptions(options); // before anything is built from the options
  const conditional = options.conditional ?? defaultConditionalWrites;
  const { push, write } = defaultPipelines({ disable: options.disable, conditional });
  const events = options.events ?? createEmitter();
  const lockBackend = options.lockBackend ?? storeLockBackend(
    withConditionalFallback(options.store, {
      registry: conditional,
      setting: options.config?.conditionalWrites,
      events,
      cache: new LocalCache(options.cacheDir),
    }),
    { clock: options.clock, events },
  );
  return await createSyncService({ ...options, events, lockBackend, push, write });
}
