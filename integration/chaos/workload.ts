/**
 * Runs one chaos history: K clones (each its own cache dir and identity)
 * over one shared store, driven by the {@link SimScheduler}, with the
 * history's breakglasses, outages, latency, flaky calls and crashes; then
 * heals everything, syncs every clone and checks the invariants (see
 * `invariants.ts`).
 *
 * A clone runs its commands one after another (as one user at one
 * terminal); clones and the operator's breakglasses run concurrently. A crash
 * freezes the clone's current command where it is parked, stops its lock
 * heartbeats (`abandon()`), and restarts the clone from its cache dir with a
 * new pid; its queued commands then run on the new process.
 *
 * @module
 */
import type { History } from "./history.ts";
import { StuckError } from "./scheduler.ts";
import type { HistoryResult, WorkloadOptions } from "./stats.ts";
import { World } from "./final_sync.ts";

export {
  addStats,
  type ChaosStats,
  emptyStats,
  type HistoryResult,
  type WorkloadOptions,
} from "./stats.ts";

export { CHAOS_LOCK } from "./commands.ts";
export { CHAOS_CONFIG } from "./clone_setup.ts";

/**
 * Runs one history and checks it.
 *
 * @example
 * ```ts
 * import { generateHistory } from "./history.ts";
 * import { runHistory } from "./workload.ts";
 * const result = await runHistory(generateHistory(1));
 * console.log(result.violations.length, result.stats.acknowledged);
 * ```
 */
export async function runHistory(
  history: History,
  options: WorkloadOptions = {},
): Promise<HistoryResult> {
  const started = performance.now();
  const root = await Deno.makeTempDir({ prefix: "sluice-chaos-", dir: options.tempDir });
  const world = new World(history, root, options);
  let fingerprint = "";
  try {
    await world.setup();
    for (const op of history.ops) {
      await world.apply(op);
    }
    await world.finish();
    fingerprint = await world.fingerprint();
  } catch (e) {
    if (!(e instanceof StuckError)) throw e;
    world.abort({ invariant: "I4", message: e.message, afterOp: world.opId });
  } finally {
    await world.target?.close();
    if (!options.keepDirs) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  const stats = world.stats;
  stats.histories = 1;
  if (history.oldClients) stats.mixedFleets = 1;
  if (history.skewMs?.some((ms) => ms !== 0)) stats.skewedClocks = 1;
  if (history.indexFirst) stats.indexFirst = 1;
  if (history.etag) stats.etagHistories = 1;
  if (history.checkedDeletes) stats.checkedDeleteHistories = 1;
  if (history.reusedLocks) stats.reusedLockHistories = 1;
  if (history.setAsideFlaky) stats.setAsideFlakyHistories = 1;
  if (history.ops.some((o) => o.kind === "foreign")) stats.foreignHistories = 1;
  if (history.ops.some((o) => o.kind === "vanish")) stats.vanishHistories = 1;
  if (history.ops.some((o) => o.kind === "lockless")) stats.locklessHistories = 1;
  stats.acknowledged = world.truth.runs.filter((r) => r.outcome === "success").length;
  stats.refused = world.truth.runs.filter((r) => r.outcome === "model_lock_lost").length;
  stats.crashedRuns = world.truth.runs.filter((r) => r.outcome === "crashed").length;
  stats.storeCalls = world.sched.stats.calls;
  stats.decisions = world.sched.stats.decisions;
  stats.strays = world.sched.stats.strays;
  stats.fakeMs = world.sched.now() - Date.UTC(2026, 0, 1);
  stats.violations = world.truth.violations.length;
  return {
    history,
    violations: world.truth.violations,
    stats,
    elapsedMs: performance.now() - started,
    fingerprint,
  };
}
