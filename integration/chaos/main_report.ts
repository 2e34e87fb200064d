/**
 * What `deno task chaos` (`main.ts`) prints of a run: the summary
 * ({@link formatSummary}) and, for a failing history, its violations, the
 * history shrunk, and the line that replays it ({@link explain}).
 *
 * @module
 */
import { formatHistory } from "./history.ts";
import { shrinkHistory } from "./shrink.ts";
import {
  type ChaosStats,
  type HistoryResult,
  runHistory,
  type WorkloadOptions,
} from "./workload.ts";

/** The summary lines of a run. */
export function formatSummary(stats: ChaosStats, store: string, elapsedMs: number): string {
  const s = stats;
  const secs = (elapsedMs / 1000).toFixed(1);
  const codes = (r: Record<string, number>) =>
    Object.entries(r).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([k, v]) => `${k} ${v}`).join(", ") || "none";
  return [
    `chaos over ${store}: ${s.histories} histories in ${secs} s (${
      (s.histories / Math.max(elapsedMs / 1000, 0.001)).toFixed(1)
    }/s)`,
    `  operations ${s.operations}, commands ${s.commands}, store calls ${s.storeCalls}, scheduling decisions ${s.decisions} (${s.chaosDecisions} before healing)`,
    `  model runs ${s.runs}: acknowledged ${s.acknowledged}, refused (model_lock_lost) ${s.refused}, frozen by a crash ${s.crashedRuns}`,
    `  of them through the swamp extension, driven as core drives it: ${s.coreRuns} (acknowledged ${s.coreAcknowledged}, refused ${s.coreRefused}; output streamed ${s.streamedRuns}; with a parallel step ${s.parallelRuns}, saving as the tool's save does ${s.saveGapRuns} (its step's flush inside the save ${s.saveGapHits}), and a structural command beside ${s.structuralCommands}; on a lock object a run before took, in ${s.reusedLockHistories} histories: ${s.reusedLockRuns}, after a refused one ${s.reusedAfterRefusal})`,
    `  breakglasses ${s.breakglasses} (locks broken ${s.locksBroken}), outages ${s.outages}, stalls ${s.stalls} (after a v1 index write ${s.companionStalls}, in a move ${s.moveStalls}, before a push's delete ${s.withdrawStalls}, after a run's uploads, before its commit ${s.commitStalls}, past a marker's delete ${s.markerStalls}), crashes ${s.crashes}`,
    `  lockfile transactions ${s.lockfileTxns} (acknowledged ${s.lockfileAcked}; begun with a conflict open at the lockfile: ${s.lockfileTxnsOverConflict})`,
    `  edits ${s.edits}, deletes ${s.deletes} (by hand during the clone's own sync, at a download or look of the file: ${s.editsDuring}), marker writes ${s.markerWrites}, files and directories of one name replaced by each other ${s.reshapes}, resolutions ${s.resolutions} (resolved ${s.resolved}; theirs copied by hand first ${s.theirsCopiedByHand}), edits pushed and left out beside a directory of their name ${s.editsBlocked}, files written under a directory and marked by its name ${s.editsUnderMarkedByName}, run outputs deleted here by their user ${s.runOutputsDeleted}, committed versions deleted here by their user while the marker named them ${s.underMarkerDeletes} (no index naming their raw output as they were deleted here or right after their push: ${s.underMarkerUnnamed}), edits pushed over a synced version whose entry an old client dropped, before a pull saw it ${s.droppedEdits} (no index naming the file as pushed: ${s.droppedEditsUnnamed}), pulls right after a marker's push raced by a peer's ${s.racedPulls} (its marker still unpublished: ${s.racedPullsHeld}), syncs after a commit into a shard a peer's cut-off commit wrote ${s.listedChecks}, edits between a sync's pull and its push ${s.editsAfterPull} (checked after the take-back they raced: ${s.namedChecks}), adoptions ${s.adoptions}, crashes between a commit write and the index ${s.commitCrashes}, as an index write landed (its answer lost) ${s.answerCrashes}`,
    `  index moves to v2 ${s.migrations} (finished ${s.migrated})`,
    `  histories with a clone's clock off the store's ${s.skewedClocks}`,
    `  histories whose first pushes make the index first ${s.indexFirst}`,
    `  histories whose index reads fail right after a lost version's set-aside ${s.setAsideFlakyHistories} (reads failed so: ${s.setAsideFlakyLooks})`,
    `  brief outages met (a push's write or deletion failed as unreachable once, the store answering before and after) ${s.blips} (at a latest marker, aimed at a take-back: ${s.markerBlips})`,
    `  histories that start with another tool's objects in the bucket ${s.foreignHistories} (objects ${s.foreignWrites})`,
    `  histories where another tool deletes a shared file's or a run's object ${s.vanishHistories} (deletions ${s.vanishes}: of a run's raw output ${s.vanishedOutputs}; checked by I19, held by a clone and no unpushed deletion there ${s.vanishesChecked}); a run's raw output published again with other bytes ${s.rewrites}, deleted by an older client's blind push ${s.blindDeletes}`,
    `  histories where another tool publishes a version at a run's number, honouring no lock ${s.locklessHistories} (published while the run held its lock, its version written and not flushed: ${s.locklessWrites}; with their index entries ${s.locklessIndexed})`,
    `  marks whose writes never came ${s.unwrittenMarks}`,
    `  second processes over a clone's cache ${s.siblings} (died before their push: ${s.siblingsDied}; a sync or resolution run right after the clone's own command took the conflict records in: ${s.secondsAimed})`,
    `  lines another process wrote ahead to a clone's manifest log cut off part way ${s.tornLogs} (while the clone's pull downloaded: ${s.tornLogsAimed}; processes started on such a cache after one: ${s.tornLogsReopened})`,
    `  lines in the middle of a clone's manifest log damaged on disk ${s.damagedLogs} (holding a path's latest record: ${s.damagedLogsLost}; its process restarted on the cache after one: ${s.damagedLogsReopened}; logs with no line before their last to damage: ${s.damagedLogsShort}; its process left open, another's line written ahead after it: ${s.damagedOpen}, told at that process's next command: ${s.damagedOpenTold}, that command a lockfile change: ${s.damagedOpenLockfile}; its restarted process armed to die inside the save of its next base, after the rename: ${s.saveCrashesArmed}, so dead: ${s.saveCrashes}, another's line written ahead meanwhile to a log it created: ${s.saveCrashesNoLog}, its record checked after: ${s.saveCrashesChecked}; its restarted process armed for its replacement of the log after its next base to fail: ${s.logFailsArmed}, so failed, another's line of a path the save recorded written ahead since its take-in: ${s.logFails}, its record checked after the final sync: ${s.logFailsChecked})`,
    `  clones' caches replaced by a copy of another's ${s.copies} (a refused run's uploads left on the store with one, their erasure pending there: ${s.refusedLeftByCopy})`,
    `  histories whose deletes check the version, then delete ${s.checkedDeleteHistories} (deletes that removed a write landed in between: ${s.checkedDeleteRaces})`,
    `  histories with old clients pushing too ${s.mixedFleets}: old-client pushes ${s.oldPushes} (inside the global lock with another old client: ${s.oldPushesLockLost}; stopped and pushed again: ${s.oldPushesRetried}; stopped inside their read-modify-write for a clone's push: ${s.oldWindows}, met by it: ${s.oldWindowsMet}; a core-driven run's version lost while one stood inside the global lock: ${s.coreLostBesideOld}; edits of shared files not made on v2 buckets: ${s.oldEditsOnV2}); old-client pulls ${s.oldPulls} (entries dropped for a missing object, the index they read written back: ${s.oldPullDrops}; stopped between their read and their write-back for a clone's commands: ${s.oldPullWindows}, met by them: ${s.oldPullWindowsMet}, Sluice writes of shared files left unnamed so: ${s.oldPullWindowUnnamed}); on a store whose versions are ETags ${s.etagHistories} (a refused run's bytes written by an old client as its erasure deletes them: ${s.oldSameWrites})`,
    `  command outcomes: ${codes(s.outcomes)}`,
    `  library warnings: ${codes(s.warnings)}`,
    `  conflicts left open after the final sync, resolved --mine (I13): ${s.finalResolutions}`,
    `  final syncs given a third round (a held-back path's way found clear by the second's pull): ${s.finalRoundsAfterRelease}`,
    `  out-of-turn store calls: ${s.strays}`,
    `  violations ${s.violations}`,
  ].join("\n");
}

/** A failing history and what it broke. */
export type Failure = Pick<HistoryResult, "history" | "violations">;
export async function explain(
  result: Failure,
  options: WorkloadOptions,
  shrink: boolean,
  store: string,
) {
  const first = result.violations[0];
  console.log(`\nVIOLATION in seed ${result.history.seed}:`);
  for (const v of result.violations) {
    console.log(
      `  ${v.invariant}${v.afterOp >= 0 ? ` (after op #${v.afterOp})` : ""}: ${v.message}`,
    );
  }
  let history = result.history;
  // A history that does not break it again cannot be shrunk or replayed as it ran.
  const rerun = await runHistory(history, options);
  if (!rerun.violations.some((v) => v.invariant === first.invariant)) {
    console.log(
      `  run again, this history did not break ${first.invariant}: it did not run the same way twice (see --twice), so its replay may not show it`,
    );
  }
  if (shrink) {
    const shrunk = await shrinkHistory(
      history,
      first.invariant,
      async (h) => (await runHistory(h, options)).violations.map((v) => v.invariant),
    );
    history = shrunk.history;
    const again = await runHistory(history, options);
    console.log(
      `shrunk from ${result.history.ops.length} to ${history.ops.length} operations in ${shrunk.runs} runs; it reports:`,
    );
    for (const v of again.violations) {
      console.log(
        `  ${v.invariant}${v.afterOp >= 0 ? ` (after op #${v.afterOp})` : ""}: ${v.message}`,
      );
    }
  }
  console.log(formatHistory(history));
  console.log(
    `replay: deno task chaos --replay '${JSON.stringify(history)}'${
      store !== "memory" ? ` --store ${store}` : ""
    }${options.disable?.length ? ` --disable ${options.disable.join(",")}` : ""}`,
  );
}
