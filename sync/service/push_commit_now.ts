/**
 * The end of a push's terminal: what it leaves to commit, merged with what a
 * prepared push left (`mergePending`), and the commit made at once with what
 * it tells (`commitNow`), for a push that is no preparation.
 *
 * @module
 */
import type { PushContext } from "../context.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { IndexMemo } from "../transfer/remote_index.ts";
import { indexDiscovery } from "./index_discovered.ts";
import { commitPrepared, type PendingCommit } from "./push_commit.ts";
import {
  noteClashing,
  noteOverwritten,
  noteSuperseded,
  noteUnpublished,
  type PushResult,
} from "./push_result.ts";
import type { SyncState } from "./state.ts";

/**
 * This pass's commit (`own`), merged with what a prepared push left
 * (`prior`), whose snapshot stands and whose walk is done only while this
 * pass failed nothing (`clean`); without `prior`, `own` as it is (no copies:
 * at 20,000 files they cost more than the index's serialisation).
 *
 * @example
 * ```ts ignore
 * import { mergePending } from "./push_commit_now.ts";
 * declare const own: import("./push_commit.ts").PendingCommit;
 * mergePending(undefined, own, true) === own; // true
 * ```
 */
export function mergePending(
  prior: PendingCommit | undefined,
  own: PendingCommit,
  clean: boolean,
): PendingCommit {
  if (!prior) return own;
  return {
    set: { ...prior.set, ...own.set },
    remove: [...prior.remove, ...own.remove],
    base: { ...prior.base, ...own.base },
    baseHash: { ...prior.baseHash, ...own.baseHash },
    baseSize: { ...prior.baseSize, ...own.baseSize },
    check: [...prior.check ?? [], ...own.check ?? []],
    baseGone: [...prior.baseGone ?? [], ...own.baseGone ?? []],
    namedBase: [...prior.namedBase ?? [], ...own.namedBase ?? []],
    keptBase: [...prior.keptBase ?? [], ...own.keptBase ?? []],
    foundGone: [...prior.foundGone ?? [], ...own.foundGone ?? []],
    synced: { ...prior.synced, ...own.synced },
    handled: [...prior.handled, ...own.handled],
    deferredDirs: own.deferredDirs,
    snapshot: prior.snapshot,
    walkDone: prior.walkDone && clean,
  };
}

/** What {@link commitNow} needs beside the push. */
export interface CommitNowDeps {
  readonly state: SyncState;
  readonly cache: LocalCache;
  readonly result: PushResult;
  readonly indexMemo?: IndexMemo;
  readonly checkCreates?: boolean;
  /** Where a caller takes the unpublished-files warning instead of the events. */
  readonly unpublishedWarning?: { warning?: { code: string; message: string; path: string } };
  readonly writerId: string | null;
  /** The paths this pass itself wrote (not a prepared push's). */
  readonly writtenNow: Readonly<Record<string, unknown>>;
}

/**
 * Commits `pending` at once, settles the conflicts of snapshots it
 * published, and tells what it left out (overwritten, clashing,
 * unpublished) in the result and as warnings.
 *
 * @example
 * ```ts ignore
 * import { commitNow } from "./push_commit_now.ts";
 * declare const ctx: import("../context.ts").PushContext;
 * declare const pending: import("./push_commit.ts").PendingCommit;
 * declare const deps: import("./push_commit_now.ts").CommitNowDeps;
 * await commitNow(ctx, pending, deps);
 * ```
 */
export async function commitNow(
  ctx: PushContext,
  pending: PendingCommit,
  deps: CommitNowDeps,
): Promise<void> {
  const { state, result } = deps;
  const { overwritten, unpublished, clashing, superseded } = await commitPrepared(pending, {
    store: ctx.store,
    state,
    retry: ctx.config.retry,
    signal: ctx.signal,
    indexMemo: deps.indexMemo,
    concurrency: ctx.config.concurrency,
    now: () => ctx.clock.now(),
    checkCreates: deps.checkCreates,
    writerId: deps.writerId,
    cache: deps.cache,
    discovery: indexDiscovery(
      ctx.store,
      ctx.config.retry,
      ctx.events,
      ctx.signal,
      ctx.config.concurrency,
    ),
  });
  // A snapshot published settles a conflict recorded on it before.
  const kept = new Set([
    ...overwritten.map((o) => o.path),
    ...unpublished,
    ...clashing.keys(),
    ...superseded,
  ]);
  const republished = ctx.plan.filter((e) =>
    e.snapshot && Object.hasOwn(deps.writtenNow, e.path) && !kept.has(e.path) &&
    state.conflicts.has(e.path)
  ).map((e) => e.path);
  if (republished.length > 0) await state.conflicts.settle(republished);
  noteSuperseded(result, superseded);
  const warning = noteOverwritten(result, overwritten.map((o) => o.path));
  if (warning) ctx.events.emit("warning", warning);
  const clash = noteClashing(result, clashing);
  if (clash) ctx.events.emit("warning", clash);
  const gone = noteUnpublished(result, unpublished);
  if (gone && deps.unpublishedWarning) deps.unpublishedWarning.warning = gone;
  else if (gone) ctx.events.emit("warning", gone);
}
