/**
 * A pull of the service (`SyncService.pullChanged`): {@link runPull} with
 * the directories of `holdBack` left as they are, and another writer's
 * uncommitted objects adopted at the paths of `adoptUncommitted`, those
 * paths then pulled again.
 *
 * @module
 */
import type { PullResult } from "./pull.ts";
import { type PullBase, runPull } from "./pull_run.ts";
import { adoptAndPullAgain, namedBy } from "./pull_adopt.ts";
import { under } from "./pull_plan.ts";
import type { PullOptions } from "./pull_options.ts";
import type { ResolvingTheirs } from "./pull_warnings.ts";

/**
 * Pulls over `base` (see {@link runPull}) under `prefixes`, leaving what is
 * under the directories of `holdBack` as it is.
 *
 * @example
 * ```ts
 * import { pullHolding } from "./pull_changed.ts";
 * import type { PullBase } from "./pull_run.ts";
 * async function _example(base: PullBase) {
 *   const result = await pullHolding(base, undefined, ["data/"], false, undefined, undefined, ["data/m1"]);
 *   console.log(result.fetched);
 * }
 * ```
 */
export function pullHolding(
  base: PullBase,
  signal?: AbortSignal,
  prefixes?: readonly string[],
  restoreDeleted?: boolean,
  defer?: (path: string) => boolean,
  adopting?: (path: string) => boolean,
  holdBack?: readonly string[],
  resolvingTheirs?: ResolvingTheirs,
): Promise<PullResult> {
  const held = holdBack?.length ? (p: string) => holdBack.some((d) => under(p, [d])) : undefined;
  return runPull(
    base,
    {
      signal,
      restoreDeleted,
      defer,
      adopting,
      ...(held ? { holdBack: held } : {}),
      ...(resolvingTheirs ? { resolvingTheirs } : {}),
    },
    prefixes,
  );
}

/**
 * The pull of `options` over `base` (see {@link PullOptions}); `named` are
 * the paths of `options.adoptUncommitted` (none: a plain pull), adopted at
 * the time `now` tells.
 *
 * @example
 * ```ts
 * import { pullChangedRun } from "./pull_changed.ts";
 * import type { PullBase } from "./pull_run.ts";
 * async function _example(base: PullBase) {
 *   const result = await pullChangedRun(base, { prefixes: ["data/"] }, [], Date.now);
 *   console.log(result.fetched);
 * }
 * ```
 */
export async function pullChangedRun(
  base: PullBase,
  options: PullOptions,
  named: readonly string[],
  now: () => number,
): Promise<PullResult> {
  const pulled = await pullHolding(
    base,
    options.signal,
    options.prefixes,
    options.restoreDeleted,
    options.defer,
    named.length ? (p) => namedBy(p, named) : undefined,
    options.holdBack,
  );
  if (named.length === 0) return pulled;
  return await adoptAndPullAgain(
    {
      store: base.store,
      config: base.config,
      events: base.events,
      signal: options.signal,
      now,
    },
    pulled,
    named,
    (paths) =>
      pullHolding(base, options.signal, paths, undefined, undefined, undefined, options.holdBack),
  );
}
