/**
 * What a chaos history is run with and what it gives back: the options, the
 * result, and the counters of what one history did, summed over a run.
 *
 * @module
 */
import type { History } from "./history.ts";
import type { Violation } from "./invariants.ts";
import type { TargetFactory } from "./target.ts";

/** Options of `runHistory` (`workload.ts`). */
export interface WorkloadOptions {
  /** The store to run over; default the in-memory store. */
  readonly target?: TargetFactory;
  /** Gate names to leave out (to show the checker catches the loss the gate prevents). */
  readonly disable?: readonly string[];
  /** Fake-time budget of one command (I4); default 15 min. */
  readonly commandBudgetMs?: number;
  /** Real-time budget for a unit to reach its next store call (I4); default 20 s. */
  readonly realTimeoutMs?: number;
  /** Most scheduling decisions in one history before it counts as a livelock (I4); default 60 000. */
  readonly maxDecisions?: number;
  /** Keep the temp dirs (for debugging); default false. */
  readonly keepDirs?: boolean;
  /** Parent of the history's temp dir (default the system temp dir; a tmpfs makes fsync free). */
  readonly tempDir?: string;
  /** Receives one line per command end and per fault (for `--trace`). */
  readonly trace?: (line: string) => void;
}

/** What one history did and found. */
export interface HistoryResult {
  readonly history: History;
  readonly violations: readonly Violation[];
  readonly stats: ChaosStats;
  /** Wall-clock milliseconds. */
  readonly elapsedMs: number;
  /**
   * Every run's outcome and a digest of the store's objects (lock objects,
   * whose bodies hold random nonces, left out): equal for two runs of one
   * history.
   */
  readonly fingerprint: string;
}

/** Counters of one history, or summed over many. */
export interface ChaosStats {
  histories: number;
  /** History operations applied. */
  operations: number;
  /** Commands the clones and the operator ran (final syncs included). */
  commands: number;
  /** Model runs started. */
  runs: number;
  /** Runs that reported success. */
  acknowledged: number;
  /** Runs refused with `model_lock_lost`. */
  refused: number;
  /** Runs frozen by a crash before they reported. */
  crashedRuns: number;
  /** Model runs of core-driven clones (through the swamp extension; counted in `runs` too). */
  coreRuns: number;
  /** Of those, the ones acknowledged. */
  coreAcknowledged: number;
  /** Of those, the ones refused with `model_lock_lost`. */
  coreRefused: number;
  /** Of those, the ones whose output was streamed, with another step's flush meanwhile. */
  streamedRuns: number;
  /** Of those, the ones with another step of their workflow run beside them in the same process. */
  parallelRuns: number;
  /** Of those, the ones that saved as the tool's `save` does, with a gap (`saveGap`). */
  saveGapRuns: number;
  /** Of those, the ones whose step's flush ended inside the gap. */
  saveGapHits: number;
  /** Structural commands run beside such a run and its step, on the same extension instance. */
  structuralCommands: number;
  /** Histories whose core-driven processes take one lock object per model again (`History.reusedLocks`). */
  reusedLockHistories: number;
  /** Core-driven runs that took a lock object an earlier run of their process took. */
  reusedLockRuns: number;
  /** Of those, the ones whose lock object's run before was refused with `model_lock_lost`. */
  reusedAfterRefusal: number;
  /** Breakglass operations. */
  breakglasses: number;
  /** Breakglasses that deleted a lock. */
  locksBroken: number;
  /** Outages started. */
  outages: number;
  /** Clone processes stopped (a stall), later going on or crashing. */
  stalls: number;
  /** Of them, stops armed to come right after a clone's v1 index write. */
  companionStalls: number;
  /** Of them, moves to v2 stopped after reading the v1 index (armed, `at: "move"`). */
  moveStalls: number;
  /** Stalls of a clone's push after an index write, before it deleted an object (`stall` at `withdraw`). */
  withdrawStalls: number;
  /** Stalls armed `at: "commit"`: a push stopped once its uploads landed, before its commit. */
  commitStalls: number;
  /** Stalls past a delete of a `latest` marker's object (`stall` at `marker`). */
  markerStalls: number;
  /** Histories whose index reads fail right after a lost version's set-aside (`History.setAsideFlaky`). */
  setAsideFlakyHistories: number;
  /** Index reads failed so, right after a clone's lost version's set-aside. */
  setAsideFlakyLooks: number;
  /** Brief outages met (`blip` moves): a push's write or deletion failed as unreachable, once. */
  blips: number;
  /** Of them, aimed at a `latest` marker (a take-back's delete of its upload, or its put-back's create). */
  markerBlips: number;
  /** Clone crashes (and restarts). */
  crashes: number;
  /** Lockfile transactions started (final retries included). */
  lockfileTxns: number;
  /** Lockfile transactions acknowledged. */
  lockfileAcked: number;
  /** Lockfile transactions begun while the clone held a conflict open at the lockfile. */
  lockfileTxnsOverConflict: number;
  /** Core-driven runs that lost their version while an old client stood inside the global lock. */
  coreLostBesideOld: number;
  /** Edits of shared config and other files (by hand, marked, pushed). */
  edits: number;
  /** Edits and deletions by hand made while the clone's sync was parked on that file's download or look. */
  editsDuring: number;
  /** Deletions of shared files (by hand, or pushed). */
  deletes: number;
  /** Shared files replaced by a directory of their name, or such directories by a file (`reshape` moves that found one). */
  reshapes: number;
  /** Latest markers written outside a model run (a second writer of the marker). */
  markerWrites: number;
  /** Pushes told to adopt other writers' uncommitted objects (`adopt` moves). */
  adoptions: number;
  /** Histories where old clients push too (`oldClients`). */
  mixedFleets: number;
  /** Histories where one clone's clock is off the store's (`skewMs`). */
  skewedClocks: number;
  /** Histories whose first pushes make the index first (`History.indexFirst`). */
  indexFirst: number;
  /** Histories that start with another tool's objects in the bucket (`foreign` moves). */
  foreignHistories: number;
  /** Objects another tool put into the bucket (`foreign` moves); checked by I18. */
  foreignWrites: number;
  /** Histories in which another tool deletes a shared file's object (`vanish` moves). */
  vanishHistories: number;
  /** Such deletions (`vanish` moves; one that found no object deletes nothing); checked by I19. */
  vanishes: number;
  /** Of them, deletions of a run's raw output (a data version file). */
  vanishedOutputs: number;
  /** Of them, those I19 checks: a clone held the bytes, and no clone held an unpushed deletion of the path. */
  vanishesChecked: number;
  /** A run's raw output published again with other bytes by another client (`vanish` moves with `rewrite`); checked by I19. */
  rewrites: number;
  /** A run's raw output deleted, object and entry, by an older client's push that never had it (`vanish` moves with `blind`); checked by I19. */
  blindDeletes: number;
  /** Marks of a path with nothing there whose writes never came (`unwritten` moves). */
  unwrittenMarks: number;
  /** Second processes over a clone's cache (`sibling` moves), and those that died before their push. */
  siblings: number;
  siblingsDied: number;
  /** Second processes' syncs and resolutions run right after the clone's own command took the conflict records in (`second`, `aimed`). */
  secondsAimed: number;
  /** Clones' caches replaced by a copy of another's (`copy` moves made). */
  copies: number;
  /**
   * Lines another process wrote ahead to a clone's manifest log cut off part
   * way (`torn` moves made), of them those made while the clone's command
   * was parked on a download (a pull's, which writes its record ahead right
   * after), and the processes started on such a cache after one (a
   * restart, the final sync's), each reading its manifest (checked by I30).
   */
  tornLogs: number;
  tornLogsAimed: number;
  tornLogsReopened: number;
  /**
   * Lines in the middle of a clone's manifest log damaged on disk (`damaged`
   * moves made; each followed by a restart of the clone's process, whose
   * reading of the manifest I30 checks), of them those that held a path's
   * latest record (lost), and the moves that found no line before the log's
   * last to damage.
   */
  damagedLogs: number;
  damagedLogsLost: number;
  damagedLogsReopened: number;
  damagedLogsShort: number;
  /**
   * Of those, the ones made while the clone's process stayed open (a
   * `damaged` move with `open`: another process wrote a line ahead after
   * the damage), and those whose line that process told at the next
   * command it began after (checked by I30).
   */
  damagedOpen: number;
  damagedOpenTold: number;
  /** Of `damagedOpen`, those whose process's next command was a lockfile change. */
  damagedOpenLockfile: number;
  /**
   * Of those, the ones whose restarted process was armed to die inside the
   * save of its next base, once the base is renamed into place (a `damaged`
   * move with `dies`), those that so died, those where the line another
   * process wrote ahead meanwhile went to a log it created (none beside the
   * base), and those whose line's record I30 checked in the process
   * started afresh after the death.
   */
  saveCrashesArmed: number;
  saveCrashes: number;
  saveCrashesNoLog: number;
  saveCrashesChecked: number;
  /**
   * Restarted processes armed for the replacement of the log after their
   * next base to fail (`damaged` moves with `replaceFails`), those whose
   * replacement so failed (another's line of a path the save recorded
   * written ahead since its take-in), and those whose record of that path
   * was checked after the final sync.
   */
  logFailsArmed: number;
  logFails: number;
  logFailsChecked: number;
  /**
   * Objects of a refused run on the store after the final sync whose
   * deletion was pending in a cache a `copy` move replaced, named by no
   * index (left for good, spared by I2's final store scan).
   */
  refusedLeftByCopy: number;
  /**
   * Histories in which another tool publishes versions at a run's number
   * honouring no lock (`lockless` moves), and its publications made (each
   * while the run held its lock with its version written and not flushed;
   * checked by I1, I18 and I27), of them with their index entries.
   */
  locklessHistories: number;
  locklessWrites: number;
  locklessIndexed: number;
  /** Histories on a store whose versions are the bytes' (ETags), and old clients' writes there of a refused run's bytes. */
  etagHistories: number;
  oldSameWrites: number;
  /**
   * Histories whose store deletes by a check, then a delete, and the
   * deletes that removed a write landed in between (checked by I9 and I19).
   */
  checkedDeleteHistories: number;
  checkedDeleteRaces: number;
  /** Old clients' pushes started (`oldpush` moves); those that returned are checked by I12. */
  oldPushes: number;
  /** Old clients' pulls (`oldpull` moves), and the entries they dropped (writing back the index they read). */
  oldPulls: number;
  oldPullDrops: number;
  /** Of them, those inside the global lock together with another old client's (a hold taken over as stale, or lost): not checked by I12. */
  oldPushesLockLost: number;
  /** Old clients' pushes that stopped (a crash, an outage) and were pushed again before the final sync. */
  oldPushesRetried: number;
  /**
   * Old clients' pushes stopped between their read of the index and their
   * write (`oldpush` with `window`), and those of them inside which the
   * clone's command they waited for ended or attempted the global lock.
   */
  oldWindows: number;
  oldWindowsMet: number;
  /**
   * Old clients' pulls stopped between their read of the index and their
   * write-back (`oldpull` with `window`), those inside which the clone's
   * command they waited for ended or attempted the global lock, and the
   * Sluice writes of shared files their write-back left unnamed.
   */
  oldPullWindows: number;
  oldPullWindowsMet: number;
  oldPullWindowUnnamed: number;
  /** Old clients' edits or deletions of shared files not made: the bucket was v2, where they index no such file. */
  oldEditsOnV2: number;
  /** Conflicts left open after the final sync, resolved with --mine for I13. */
  finalResolutions: number;
  /** Conflict resolutions run (the `resolve` moves that found a conflict). */
  resolutions: number;
  /** Of those, the ones that left the conflict resolved. */
  resolved: number;
  /** `--theirs` resolutions whose user first copied theirs into place by hand. */
  theirsCopiedByHand: number;
  /** Edits pushed whose commit left the file out beside a directory of its name (`path_blocked`). */
  editsBlocked: number;
  /** Run outputs deleted here by their user (`delete` with `run`). */
  runOutputsDeleted: number;
  /** Committed versions deleted here by a user while the marker here named them (`delete` with `committed`). */
  underMarkerDeletes: number;
  /** Of them, named by no index (an old client's pull dropped the entry of the version's `raw`) as deleted here or right after their push. */
  underMarkerUnnamed: number;
  /** Edits pushed over a version synced here whose entry an old client dropped, before a pull here saw it (`edit` with `dropped`). */
  droppedEdits: number;
  /** Of them, pushed while no index named the file (the old client's write-back had landed). */
  droppedEditsUnnamed: number;
  /** Pulls of a clone's sync right after its marker's push raced by a peer's (`sync` with `raced`). */
  racedPulls: number;
  /** Of them, with the clone's marker still unpublished (its write lost the race). */
  racedPullsHeld: number;
  /** Syncs after which I7 looked at a data name a cut-off shard write named (`sync` with `listed`). */
  listedChecks: number;
  /** Edits between a sync's pull and its push (`sync` with `edit`). */
  editsAfterPull: number;
  /** Syncs before which I7 looked at a file a take-back's checked delete may have taken (`sync` with `named`). */
  namedChecks: number;
  /** Files written under a directory and marked by the directory's name (`under` edits). */
  editsUnderMarkedByName: number;
  /** Crashes that hit between a commit-step write and the index update. */
  commitCrashes: number;
  /** Crashes as an index write landed, before its answer came back (`crash` at `answer`). */
  answerCrashes: number;
  /** Moves of the index to v2 started (`sluice index migrate`, or the extension's). */
  migrations: number;
  /** Of those, the ones that finished. */
  migrated: number;
  /** Store calls made through the scheduler. */
  storeCalls: number;
  /** Scheduling decisions. */
  decisions: number;
  /** Of those, decisions taken while faults were live (the rest drain and sync after healing). */
  chaosDecisions: number;
  /** Final syncs given a third round: a pull of the second found the way clear for a held-back path. */
  finalRoundsAfterRelease: number;
  /** Calls made outside a unit's turn (should stay 0). */
  strays: number;
  /** Fake milliseconds that passed. */
  fakeMs: number;
  /** Violations found. */
  violations: number;
  /** How commands ended, by outcome (`success`, error codes, `crashed`, …). */
  outcomes: Record<string, number>;
  /** Warnings emitted by the library, by code. */
  warnings: Record<string, number>;
}

/** Zeroed {@link ChaosStats}. */
export function emptyStats(): ChaosStats {
  return {
    histories: 0,
    operations: 0,
    commands: 0,
    runs: 0,
    acknowledged: 0,
    refused: 0,
    crashedRuns: 0,
    coreRuns: 0,
    coreAcknowledged: 0,
    coreRefused: 0,
    streamedRuns: 0,
    parallelRuns: 0,
    saveGapRuns: 0,
    saveGapHits: 0,
    structuralCommands: 0,
    reusedLockHistories: 0,
    reusedLockRuns: 0,
    reusedAfterRefusal: 0,
    breakglasses: 0,
    locksBroken: 0,
    outages: 0,
    stalls: 0,
    companionStalls: 0,
    moveStalls: 0,
    withdrawStalls: 0,
    commitStalls: 0,
    markerStalls: 0,
    setAsideFlakyHistories: 0,
    setAsideFlakyLooks: 0,
    blips: 0,
    markerBlips: 0,
    crashes: 0,
    lockfileTxns: 0,
    lockfileAcked: 0,
    lockfileTxnsOverConflict: 0,
    coreLostBesideOld: 0,
    edits: 0,
    editsDuring: 0,
    deletes: 0,
    reshapes: 0,
    markerWrites: 0,
    adoptions: 0,
    mixedFleets: 0,
    skewedClocks: 0,
    indexFirst: 0,
    foreignHistories: 0,
    foreignWrites: 0,
    vanishHistories: 0,
    vanishes: 0,
    vanishedOutputs: 0,
    vanishesChecked: 0,
    rewrites: 0,
    blindDeletes: 0,
    unwrittenMarks: 0,
    siblings: 0,
    siblingsDied: 0,
    secondsAimed: 0,
    copies: 0,
    tornLogs: 0,
    tornLogsAimed: 0,
    tornLogsReopened: 0,
    damagedLogs: 0,
    damagedLogsLost: 0,
    damagedLogsReopened: 0,
    damagedLogsShort: 0,
    damagedOpen: 0,
    damagedOpenTold: 0,
    damagedOpenLockfile: 0,
    saveCrashesArmed: 0,
    saveCrashes: 0,
    saveCrashesNoLog: 0,
    saveCrashesChecked: 0,
    logFailsArmed: 0,
    logFails: 0,
    logFailsChecked: 0,
    refusedLeftByCopy: 0,
    locklessHistories: 0,
    locklessWrites: 0,
    locklessIndexed: 0,
    etagHistories: 0,
    checkedDeleteHistories: 0,
    checkedDeleteRaces: 0,
    oldSameWrites: 0,
    oldPushes: 0,
    oldPulls: 0,
    oldPullDrops: 0,
    oldPushesLockLost: 0,
    oldPushesRetried: 0,
    oldWindows: 0,
    oldWindowsMet: 0,
    oldPullWindows: 0,
    oldPullWindowsMet: 0,
    oldPullWindowUnnamed: 0,
    oldEditsOnV2: 0,
    finalResolutions: 0,
    resolutions: 0,
    resolved: 0,
    theirsCopiedByHand: 0,
    editsBlocked: 0,
    runOutputsDeleted: 0,
    underMarkerDeletes: 0,
    underMarkerUnnamed: 0,
    droppedEdits: 0,
    droppedEditsUnnamed: 0,
    racedPulls: 0,
    racedPullsHeld: 0,
    listedChecks: 0,
    editsAfterPull: 0,
    namedChecks: 0,
    editsUnderMarkedByName: 0,
    commitCrashes: 0,
    answerCrashes: 0,
    migrations: 0,
    migrated: 0,
    storeCalls: 0,
    decisions: 0,
    chaosDecisions: 0,
    finalRoundsAfterRelease: 0,
    strays: 0,
    fakeMs: 0,
    violations: 0,
    outcomes: {},
    warnings: {},
  };
}

/** Adds `from` into `into`. */
export function addStats(into: ChaosStats, from: ChaosStats): void {
  for (const [k, v] of Object.entries(from) as [keyof ChaosStats, unknown][]) {
    if (typeof v === "number") (into[k] as number) += v;
    else {
      const target = into[k] as Record<string, number>;
      for (const [c, n] of Object.entries(v as Record<string, number>)) {
        target[c] = (target[c] ?? 0) + n;
      }
    }
  }
}
