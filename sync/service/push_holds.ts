/**
 * What a push holds back before its writes for the conflicts this cache
 * records, and what a dry run reports as left out.
 *
 * @module
 */
import type { PlanEntry } from "../context.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import { type ConflictSet, resolveHint } from "./conflicts.ts";
import type { PushResult } from "./push_result.ts";

/**
 * A path with an unresolved conflict is published only by its resolution:
 * held back, kept dirty, and reported in `result.conflicts`. Data versions
 * are the exception: their write is create-only, so it can never replace
 * theirs, and a losing copy is set aside (version_exists), after which a
 * pull takes the published version. So are snapshots: their writer makes
 * them whole, and publishing one settles its conflict.
 *
 * An entry left out already (planned so: a check of an earlier push's
 * upload at a path gone from here, which waits on the resolution too; or
 * left out by a gate), whatever its class, is held the same way, its
 * reason the conflict's: a push that leaves a path with an open conflict
 * behind always names it, never answering as a clean push while that
 * conflict stays open. An entry a two-phase push's preparation made
 * (`prepared`) was reported by that preparation.
 *
 * @example
 * ```ts
 * import { holdConflicted } from "./push_holds.ts";
 * import { ConflictSet } from "./conflicts.ts";
 * import { emptyPushResult } from "./push_result.ts";
 * holdConflicted([], await ConflictSet.open(await Deno.makeTempDir()), emptyPushResult());
 * ```
 */
export function holdConflicted(
  plan: readonly PlanEntry[],
  conflicts: ConflictSet,
  result: PushResult,
): void {
  for (const e of plan) {
    if (e.prepared || !conflicts.has(e.path)) continue;
    if (e.action !== "skip" && (e.class === "data-version" || e.snapshot)) continue;
    e.action = "skip";
    e.keepDirty = true;
    e.reason = `unresolved conflict: run \`${resolveHint(e.path)}\``;
    result.conflicts.push(e.path);
  }
}

/**
 * What a push now would leave out (`status` exits 2 on it), as the plan and
 * the gates found it, into `result.skipped` (a dry run writes nothing).
 *
 * @example
 * ```ts
 * import { reportDryRun } from "./push_holds.ts";
 * import { ConflictSet } from "./conflicts.ts";
 * import { emptyPushResult } from "./push_result.ts";
 * reportDryRun([], await ConflictSet.open(await Deno.makeTempDir()), emptyPushResult());
 * ```
 */
export function reportDryRun(
  plan: readonly PlanEntry[],
  conflicts: ConflictSet,
  result: PushResult,
): void {
  for (const e of plan) {
    if (e.action !== "skip" || !(e.keepDirty || e.unpublished)) continue;
    if (conflicts.has(e.path)) continue;
    result.skipped.push({
      path: e.path,
      reason: e.reason ?? "skipped",
      keepDirty: !!e.keepDirty,
      ...(!e.keepDirty ? { unpublished: true as const } : {}),
    });
  }
}

/**
 * Entries a gate held with `nameSynced` (their deletion held, their index
 * entry dropped by another client while the store holds the version this
 * cache synced): named again at that version, from the synced record, into
 * `set`, and only while the store still holds it (`check`). The path stays
 * dirty (not handled), its deletion held as before. An entry a two-phase
 * push's preparation made was named by that preparation.
 *
 * @example
 * ```ts
 * import { nameHeldAgain } from "./push_holds.ts";
 * nameHeldAgain([], {}, []);
 * ```
 */
export function nameHeldAgain(
  plan: readonly PlanEntry[],
  set: Record<string, IndexEntry>,
  check: string[],
): void {
  for (const e of plan) {
    if (e.action !== "skip" || !e.nameSynced || e.prepared) continue;
    const { syncedVersion: v, syncedHash: h, syncedSize: s } = e;
    if (v === undefined || h === undefined || s === undefined) continue;
    set[e.path] = { v, h, s };
    check.push(e.path);
  }
}
