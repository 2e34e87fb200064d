/**
 * The first half of a two-phase push (`SyncService.preparePush`): one push
 * pass that runs the gates and writes the objects but leaves the remote
 * index and the dirty set alone, kept as a {@link PreparedPush} for
 * `SyncService.commitPush`.
 *
 * @module
 */
import type { PlanEntry, UploadRecord } from "../context.ts";
import type { PendingCommit, PushResult } from "./push.ts";
import { type PushRunDeps, runPush } from "./push_run.ts";
import type { PreparedPush, PushOptions } from "./push_options.ts";

/**
 * Runs the push of `options` over `deps` as a preparation, and returns it
 * ready to commit. With `how.keepRestOnLoss`, a preparation that failed only
 * for data versions lost to another writer's (set aside) resolves with the
 * rest of the push and that failure as `lost`; without it, that failure is
 * thrown. A preparation that throws reaches no commit: what its gates left
 * to the commit (a lost version's marker take-back) is made before it
 * throws, best effort, or, given `how.leave`, put there for the caller to
 * make (under the global lock: it may write the index). The paths of
 * `options.only` are expected marked dirty already.
 *
 * @example
 * ```ts
 * import { preparePushRun } from "./push_prepare.ts";
 * import type { PushRunDeps } from "./push_run.ts";
 * async function _example(deps: PushRunDeps) {
 *   const prepared = await preparePushRun(deps, { only: ["a.txt"] }, {});
 *   console.log(prepared.plan.length);
 * }
 * ```
 */
export async function preparePushRun(
  deps: PushRunDeps,
  options: PushOptions,
  how: { readonly keepRestOnLoss?: boolean; readonly leave?: Array<() => Promise<void>> },
): Promise<PreparedPush> {
  const out: {
    plan?: PlanEntry[];
    prepare: {
      pending?: PendingCommit;
      uploaded?: UploadRecord[];
      lost?: unknown;
      atCommit?: Array<() => Promise<void>>;
    };
    result?: PushResult;
  } = { prepare: {} };
  const { signal: _signal, ...rest } = options;
  let result: PushResult;
  try {
    result = await runPush(deps, options, out);
  } catch (e) {
    // Failed only for data versions lost to another writer's (set aside):
    // the rest of the push is ready to commit, as a plain push commits it
    // (`pushUnderGlobalLock` does). Its deferred commit-step writes
    // (markers) stay held, as a plain push holds them beside a failure.
    const pending = out.prepare.pending;
    if (
      !how.keepRestOnLoss || e !== out.prepare.lost || !pending || !out.result ||
      !(e instanceof Error)
    ) {
      // No commit comes: what the gates left to it (a lost version's marker
      // take-back) is made now, as a plain push makes it, best effort; or by
      // the caller, which holds the global lock around it.
      if (how.leave) how.leave.push(...out.prepare.atCommit ?? []);
      else for (const work of out.prepare.atCommit ?? []) await work().catch(() => undefined);
      throw e;
    }
    return {
      result: out.result,
      pending,
      options: rest,
      plan: (out.plan ?? []).map((entry) =>
        entry.commit && entry.action === "put"
          ? { ...entry, action: "skip" as const, keepDirty: true }
          : entry
      ),
      uploaded: out.prepare.uploaded ?? [],
      ...(out.prepare.atCommit?.length ? { atCommit: out.prepare.atCommit } : {}),
      lost: e,
    };
  }
  return {
    result,
    pending: out.prepare.pending,
    options: rest,
    plan: out.plan ?? [],
    uploaded: out.prepare.uploaded ?? [],
    ...(out.prepare.atCommit?.length ? { atCommit: out.prepare.atCommit } : {}),
  };
}
