/**
 * What a `SyncService` is built from: its cache directory and opened
 * state, its sync config (the options' completed from the defaults), and
 * what its pulls and pushes run over (`pull_run.ts`, `push_run.ts`).
 *
 * @module
 */
import { DEFAULT_RETRY } from "../retry.ts";
import { defaultStateDir, STATE_DIR } from "../transfer/cache.ts";
import { isInternalPath } from "../paths.ts";
import type { SyncConfig } from "../context.ts";
import { ownerLockHeld, SyncState } from "./state.ts";
import { makeCacheDir, refuseStateNotADirectory } from "./cache_dir.ts";
import type { PullBase } from "./pull_run.ts";
import type { PushRunDeps } from "./push_run.ts";
import { DEFAULT_CONFIG, type SyncServiceOptions } from "./service_options.ts";

/**
 * The config of a service made with `options`: `DEFAULT_CONFIG` overlaid
 * with `options.config`, its retry policy completed from the defaults, and
 * no retries of this layer over a store that retries itself.
 *
 * @example
 * ```ts
 * import { serviceConfig } from "./service_parts.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const config = serviceConfig({ cacheDir: "/tmp/c", store: new InMemoryStore() });
 * console.log(config.retry.retries >= 0); // true
 * ```
 */
export function serviceConfig(options: SyncServiceOptions): SyncConfig {
  // A partial retry policy is completed from the defaults (never left with holes).
  const retry = { ...DEFAULT_RETRY, ...(options.config?.retry ?? {}) };
  return {
    ...DEFAULT_CONFIG,
    ...(options.config ?? {}),
    // Retries live in one layer: a store that retries itself is called once
    // per operation here, so a dead endpoint costs `retries + 1` attempts.
    retry: options.store.retriesInternally ? { ...retry, retries: 0 } : retry,
  };
}

/**
 * What a service's pulls run over, from the parts its pushes run over
 * (`refresh` aside).
 *
 * @example
 * ```ts
 * import { pullBaseOf } from "./service_parts.ts";
 * import type { PushRunDeps } from "./push_run.ts";
 * async function _example(deps: PushRunDeps) {
 *   const base = pullBaseOf(deps);
 *   console.log(base.isInternal(".sluice/state.json"));
 * }
 * ```
 */
export function pullBaseOf(parts: Omit<PushRunDeps, "refresh">): PullBase {
  return {
    store: parts.store,
    cache: parts.cache,
    state: parts.state,
    config: parts.config,
    events: parts.events,
    // What a push never takes, a pull never brings (`isLocalOnlyPath`).
    isInternal: (p) =>
      p.startsWith(`${STATE_DIR}/`) || isInternalPath(p, parts.config.classifierRules),
    indexMemo: parts.indexMemo,
    now: () => parts.clock.now(),
  };
}

/**
 * Creates the cache directory of `options` (when absent), refuses a state
 * directory that is no directory, and opens the cache's sync state.
 *
 * @example
 * ```ts
 * import { openServiceState } from "./service_parts.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const state = await openServiceState({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * console.log(state.conflicts.list()); // []
 * ```
 */
export async function openServiceState(options: SyncServiceOptions): Promise<SyncState> {
  await makeCacheDir(options.cacheDir);
  const stateDir = options.stateDir ?? defaultStateDir(options.cacheDir);
  await refuseStateNotADirectory(options.cacheDir, stateDir);
  return await SyncState.open(options.cacheDir, stateDir, {
    ...(options.ownersInProcess ? { ownerRuns: (owner) => ownerLockHeld(stateDir, owner) } : {}),
    ...(options.fileClock ? { fileClock: options.fileClock } : {}),
  });
}
