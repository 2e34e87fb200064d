/**
 * The push's bookkeeping of its writes' outcomes: a write found in conflict
 * recorded, and once the writes are done, the paths left out reported, a
 * marker taken along without a mark marked, the data versions lost to
 * another writer settled, and the writes a gate took back dropped from what
 * the commit names.
 *
 * @module
 */
import { VersionConflictError } from "../errors.ts";
import { setAsideSource } from "../transfer/cache.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import type { PlanEntry, PushContext } from "../context.ts";
import type { PushTally } from "./push_result.ts";
import { settledAfter } from "./push_settle.ts";
import { leftoverWarning } from "./push_leftover.ts";
import type { SyncState } from "./state.ts";
import type { ConflictRecord } from "./conflicts.ts";

/**
 * Records a write found in conflict with another writer's version: left
 * out, kept dirty, and its conflict added to `found` with both versions.
 */
export function conflictRecorder(
  ctx: PushContext,
  result: PushTally["result"],
  found: ConflictRecord[],
): PushTally["conflictOf"] {
  return (
    entry: PlanEntry,
    mine: ConflictRecord["mine"],
    theirs: ConflictRecord["theirs"],
  ) => {
    entry.action = "skip";
    entry.keepDirty = true;
    entry.reason ??= "changed on the datastore since this cache last synced it";
    result.conflicts.push(entry.path);
    found.push({
      path: entry.path,
      mine,
      theirs,
      base: entry.syncedVersion,
      foundBy: "push",
      at: ctx.clock.now(),
      reason: entry.reason,
    });
  };
}

/** Reports each path of the plan left out (and not settled otherwise) as skipped. */
export function reportSkipped(
  plan: readonly PlanEntry[],
  tally: PushTally,
  conflicts: SyncState["conflicts"],
  preparing: boolean,
): void {
  for (const e of plan) {
    if (settledAfter(e, tally, conflicts, preparing)) continue;
    if (e.action === "skip" && !e.prepared) {
      tally.result.skipped.push({
        path: e.path,
        reason: e.reason ?? "skipped",
        keepDirty: !!e.keepDirty,
        ...(!e.keepDirty && e.unpublished ? { unpublished: true as const } : {}),
      });
      if (!e.keepDirty) tally.handled.push(e.path);
    }
  }
}

/**
 * A marker the plan took along without a mark (see `PlanEntry.unmarked`)
 * that failed or stays dirty is marked, or no later push would take it.
 */
export async function markUnmarkedLeft(
  ctx: PushContext,
  state: SyncState,
  failures: readonly { entry: PlanEntry; error: unknown }[],
): Promise<void> {
  const failedHere = new Set(failures.map((f) => f.entry));
  const toMark = ctx.plan.filter((e) =>
    e.unmarked && !e.prepared &&
    (failedHere.has(e) || e.notTried || (e.action === "skip" && e.keepDirty))
  ).map((e) => e.path);
  if (toMark.length > 0 && !ctx.dryRun) await state.markDirtyMany(toMark);
}

/**
 * A data version another writer published first was set aside by the
 * create-only writer (version_exists): theirs stands, so a conflict a pull
 * recorded for it is settled (a record naming a copy set aside earlier
 * stays until resolved), and the next pull reads the index to take it.
 * Returns the paths lost so.
 */
export async function settleLost(
  ctx: PushContext,
  state: SyncState,
  failures: readonly { entry: PlanEntry; error: unknown }[],
  leftovers: readonly VersionConflictError[],
): Promise<string[]> {
  const lost = [...failures.map((f) => f.error), ...leftovers].flatMap((e) =>
    e instanceof VersionConflictError ? [...e.keys, ...e.setAsideTo.map(setAsideSource)] : []
  );
  const leftover = leftoverWarning(leftovers);
  if (leftover) ctx.events.emit("warning", leftover);
  if (lost.length > 0) {
    await state.conflicts.settle(lost);
    state.indexVersion = undefined;
  }
  return lost;
}

/**
 * Writes a gate took back (a lost data version's files, this push's own
 * uploads of them deleted): never named, whatever their deletion reported.
 */
export function dropWithdrawn(
  ctx: PushContext,
  result: PushTally["result"],
  index: {
    readonly set: Record<string, IndexEntry>;
    readonly base: Record<string, string | null>;
    readonly synced: Record<string, { size: number }>;
  },
  lists: readonly string[][],
): void {
  if (ctx.withdrawn.size === 0) return;
  const uploaded = new Set(result.uploaded);
  for (const p of ctx.withdrawn) {
    // Not pushed after all: its bytes are no longer counted as pushed.
    if (uploaded.has(p)) result.bytes -= index.synced[p]?.size ?? 0;
    delete index.set[p];
    delete index.base[p];
    delete index.synced[p];
  }
  const kept = (p: string) => !ctx.withdrawn.has(p);
  // Nor handled: a withdrawn path keeps its mark and this cache's record
  // of its write, so that an upload of it whose deletion failed (an
  // outage) is still this cache's to publish or delete.
  for (const list of lists) {
    list.splice(0, list.length, ...list.filter(kept));
  }
}
