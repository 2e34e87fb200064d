/**
 * The composition root: assembles the default gate pipelines and creates a
 * sync service with them. `sync/` knows no gate; this file is the one place
 * that knows them all (as the AWS SDK's client adds its middlewares to a
 * stack that knows none of them).
 *
 * @module
 */
import { Pipeline } from "./sync/pipeline.ts";
import { ConfigError, SluiceError } from "./sync/errors.ts";
import { closest } from "./sync/closest.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "./sync/context.ts";
import {
  DEFAULT_CONFIG,
  openSyncService,
  type SyncService,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./sync/service/service.ts";
import { versionUnderMarkerEntry } from "./middleware/version_under_marker.ts";
import { pathClassifierEntry } from "./middleware/path_classifier.ts";
import { createOnlyWriterEntry } from "./middleware/create_only_writer.ts";
import { endpointFallbackWarnerEntry } from "./middleware/endpoint_fallback_warner.ts";
import { type ConditionalWrites, defaultConditionalWrites } from "./sync/transfer/conditional.ts";
import { conditionalLockBackend } from "./sync/locks/lock_registry.ts";
import { lockfileGuardEntry } from "./middleware/lockfile_guard.ts";
import { unsyncedWalkGuardEntry } from "./middleware/unsynced_walk_guard.ts";
import { unfinishedVersionHolderEntry } from "./middleware/unfinished_version_holder.ts";
import { markerAfterVersionEntry } from "./middleware/marker_after_version.ts";
import { overwriteCasEntry } from "./middleware/overwrite_cas.ts";
import { requiredConditionalCheckEntry } from "./middleware/required_conditional_check.ts";
import { lockFenceEntry } from "./middleware/lock_fence.ts";
import { refusedRunEraserEntry } from "./middleware/refused_run_eraser.ts";
import { configCasWriterEntry } from "./middleware/config_cas_writer.ts";
import { createEmitter } from "./sync/events.ts";
import { LocalCache } from "./sync/transfer/cache.ts";
import type { MiddlewareEntry } from "./sync/pipeline.ts";

/** Options of {@link defaultPipelines}. */
export interface DefaultPipelineOptions {
  /**
   * Gate names to leave out (for replays with a gate off; never in
   * production). A name that is no default gate is refused (`invalid_config`).
   */
  readonly disable?: readonly string[];
  /** Probe results and the once-per-endpoint warning; default the process-wide registry. */
  readonly conditional?: ConditionalWrites;
}

/**
 * The one list of default gates: every registration, push-level and
 * per-write. The pipelines and {@link DEFAULT_GATES} are both built from it,
 * so they cannot drift apart.
 */
function defaultGateEntries(registry: ConditionalWrites): {
  push: MiddlewareEntry<PushContext>[];
  write: MiddlewareEntry<WriteContext>[];
} {
  return {
    push: [
      requiredConditionalCheckEntry({ registry }),
      pathClassifierEntry(),
      lockfileGuardEntry(),
      unsyncedWalkGuardEntry(),
      unfinishedVersionHolderEntry(),
      versionUnderMarkerEntry(),
      overwriteCasEntry(),
      refusedRunEraserEntry(),
      lockFenceEntry(),
    ],
    write: [
      markerAfterVersionEntry(),
      createOnlyWriterEntry(),
      configCasWriterEntry(),
      endpointFallbackWarnerEntry({ registry }),
    ],
  };
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
  const entries = defaultGateEntries(options.conditional ?? defaultConditionalWrites);
  const known = [...entries.push, ...entries.write].map((e) => e.name);
  const unknown = [...off].filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    // A misspelt name would otherwise leave every gate on: a replay "with
    // the gate off" that never turned it off.
    throw new SluiceError(
      "invalid_config",
      `disable names no gate: ${unknown.map((n) => `"${n}"`).join(", ")}; nothing was built. ` +
        `The gates are ${known.join(", ")}.`,
    );
  }
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  for (const e of entries.push) if (!off.has(e.name)) push.add(e);
  for (const e of entries.write) if (!off.has(e.name)) write.add(e);
  return { push, write };
}

/** The default gates, by name, in pipeline order (built from the same list as the pipelines). */
export const DEFAULT_GATES: {
  readonly push: readonly string[];
  readonly write: readonly string[];
} = (() => {
  const { push, write } = defaultPipelines();
  return { push: push.names(), write: write.names() };
})();

/** Options of {@link createSluice}: the sync service options plus gate selection. */
export interface SluiceOptions extends Omit<SyncServiceOptions, "push" | "write"> {
  /** Gate names to leave out (replays only); a name that is no default gate is refused (`invalid_config`). */
  readonly disable?: readonly string[];
  /** Probe results and warnings shared by the gates and the lock engine; default process-wide. */
  readonly conditional?: ConditionalWrites;
}

/** Every key of {@link SluiceOptions}; {@link createSluice} refuses any other. */
const SLUICE_OPTION_KEYS = [
  "cacheDir",
  "stateDir",
  "ownersInProcess",
  "store",
  "lockBackend",
  "identity",
  "clock",
  "fileClock",
  "events",
  "config",
  "plugins",
  "disable",
  "conditional",
] as const satisfies readonly (keyof SluiceOptions)[];
type UnlistedOption = Exclude<keyof SluiceOptions, (typeof SLUICE_OPTION_KEYS)[number]>;
const _allOptions: UnlistedOption extends never ? true : never = true;
void _allOptions;

/**
 * Refuses (`invalid_config`) a key of `options` that is no option: from
 * JavaScript or a configuration file, a mistyped one would otherwise leave
 * what it meant at its default in silence. Names the option, or the
 * setting under `config`, that it most resembles.
 */
function refuseUnknownOptions(options: SluiceOptions): void {
  const known: readonly string[] = SLUICE_OPTION_KEYS;
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const k = unknown[0];
  const setting = closest(k, Object.keys(DEFAULT_CONFIG));
  const near = closest(k, known) ?? (setting ? `config.${setting}` : undefined);
  throw new ConfigError(
    k,
    `no such option (unknown key "${k}"${
      near ? `; did you mean "${near}"?)` : "); check the spelling"
    }. The options are ${known.join(", ")}`,
  );
}

/**
 * A sync service with the default gates. Without a `lockBackend`, locks are
 * the engine's, over the same store behind the same conditional-write
 * fallback as the push. The options are checked once, here, before anything
 * is built from them (`ConfigError` naming the field; a key that is no
 * option, or no setting of `config`, is refused too).
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
  // Checked here, before the lock backend is built from `cacheDir` and
  // `store`; the service is then opened without checking them again.
  refuseUnknownOptions(options);
  validateSyncServiceOptions(options);
  const conditional = options.conditional ?? defaultConditionalWrites;
  const { push, write } = defaultPipelines({ disable: options.disable, conditional });
  const events = options.events ?? createEmitter();
  const lockBackend = options.lockBackend ?? conditionalLockBackend(options.store, {
    conditional,
    setting: options.config?.conditionalWrites,
    cache: new LocalCache(options.cacheDir, undefined, {}, options.stateDir),
    clock: options.clock,
    events,
  });
  return await openSyncService({ ...options, events, lockBackend, push, write });
}
