/**
 * The options of the history generator: how many clones and operations,
 * the weights of the kinds drawn by weight, and the share of histories each
 * move inserted from a generator of its own is given to.
 *
 * @module
 */
import type { OpKind } from "./history_ops.ts";

/** Options of {@link generateHistory}. */
export interface GenerateOptions {
  /** Fewest operations; default 15. */
  readonly minOps?: number;
  /** Most operations; default 45. */
  readonly maxOps?: number;
  /** Fewest clones; default 2. */
  readonly minClones?: number;
  /** Most clones; default 5. */
  readonly maxClones?: number;
  /** Weights that replace the defaults of some operation kinds (to aim at one kind of loss). */
  readonly weights?: Partial<Record<DrawnKind, number>>;
  /** Chance that a history has stalls inserted; default 0.35. */
  readonly stallShare?: number;
  /** Chance that a clone is core-driven (a third of those single-phase); default 0.4. */
  readonly coreShare?: number;
  /** Chance that a history has old clients pushing (see {@link History.oldClients}); default 0.25. */
  readonly oldShare?: number;
  /** Chance that a history has reshapes inserted (see {@link insertReshapes}); default 0.2. */
  readonly reshapeShare?: number;
  /** Chance that a history has one clone whose clock is off the store's (see {@link History.skewMs}); default 0.2. */
  readonly skewShare?: number;
  /** Chance that a history's first pushes make the index first (see {@link History.indexFirst}); default 0.3. */
  readonly indexFirstShare?: number;
  /** Chance that a v1 history without old clients starts with another tool's objects in the bucket (see {@link insertForeign}); default 0.25. */
  readonly foreignShare?: number;
  /** Chance that a history without old clients has another tool delete a shared file's object (see {@link insertVanish}); default 0.2. */
  readonly vanishShare?: number;
  /** Chance that such a deletion of a run's output is a rewrite of it instead (see the `vanish` {@link Op}); default 0.4. */
  readonly rewriteShare?: number;
  /** Chance that a deletion of a run's output that is no rewrite is an older client's blind push (see the `vanish` {@link Op}); default 0.4. */
  readonly blindShare?: number;
  /** Chance that a history has marks whose writes never came (see the `unwritten` {@link Op}); default 0.25. */
  readonly unwrittenShare?: number;
  /** Chance that a history streams the output of half its runs (see {@link markStreamed}); default 0.3. */
  readonly streamedShare?: number;
  /** Chance that a history runs another step beside half its runs (see {@link markParallel}); default 0.3. */
  readonly parallelShare?: number;
  /** Chance that a history runs a structural command beside half its `parallel` runs (see {@link markStructural}); default 0.3. */
  readonly structuralShare?: number;
  /** Chance that a history has a second process over a clone's cache (see {@link insertSiblings}); default 0.1. */
  readonly sharedCacheShare?: number;
  /** Chance that a history has a clone's cache replaced by a copy of another's (see {@link insertCopies}); default 0.1. */
  readonly copyShare?: number;
  /** Chance that a history has a file created with its commit's answer lost, then made a directory (see {@link insertOwnLost}); default 0.1. */
  readonly ownLostShare?: number;
  /** Chance that a history has a clone's new file, its commit's answer lost, deleted and withdrawn while a peer names it again (see {@link insertOwnWithdrawn}); default 0.1. */
  readonly ownWithdrawnShare?: number;
  /** Chance that a history with old clients starts with an old client's push stopped inside its read-modify-write of the index while a clone's push runs (see {@link insertOldWindow}); default 0.2. */
  readonly oldWindowShare?: number;
  /** Chance that a `latest` marker moved back and pushed is raced by another clone's, moved forward (default 0.5). */
  readonly markerRaceShare?: number;
  /** Chance that a history with old clients runs on a store whose versions are ETags, with old clients writing a refused run's bytes (see {@link insertOldSame}); default 0.5. */
  readonly etagShare?: number;
  /** Chance that a history's store deletes by a check, then a delete (see {@link History.checkedDeletes}); default 0.15. */
  readonly checkedDeleteShare?: number;
  /** Chance that a history without old clients has another tool publish versions of a run's data at its number, honouring no lock (see {@link insertLockless}); default 0.1. */
  readonly locklessShare?: number;
  /** Chance that a history has another process's write ahead to a clone's manifest log cut off part way (see {@link insertTornLogs}); default 0.1. */
  readonly tornLogShare?: number;
  /** Chance that a history has a line in the middle of a clone's manifest log damaged on disk (see {@link insertDamagedLogs}); default 0.1. */
  readonly damagedLogShare?: number;
  /** Chance that a history has a line of a clone's manifest log damaged on disk while its process stays open, another process writing a line ahead after it (see {@link insertDamagedLogs}); default 0.1. */
  readonly damagedOpenShare?: number;
  /** Chance that a history has a damaged line of a clone's manifest log whose restarted process dies inside the save of its next base, after the rename (see {@link insertDamagedLogs}); default 0.1. */
  readonly saveCrashShare?: number;
  /** Chance that a history has a damaged line of a clone's manifest log whose restarted process's replacement of the log after its next base fails, another process having written a line of a path that save records ahead since its take-in (see {@link insertDamagedLogs}); default 0.1. */
  readonly logFailShare?: number;
  /** Chance that a history's core-driven processes take one lock object per model again for each run of it (see {@link History.reusedLocks}); default 0.3. */
  readonly reusedLockShare?: number;
  /** Chance that a history fails a clone's index reads right after a set-aside of a lost version's (see {@link History.setAsideFlaky}); default 0.2. */
  readonly setAsideFlakyShare?: number;
  /** Chance that a history with two clones or more starts with a resolution `--theirs` of a clone's deletion whose file a peer replaced by a directory, pulled here (see {@link insertTheirsShape}); default 0.1. */
  readonly theirsShapeShare?: number;
  /** Chance that a v1 history with old clients and three clones or more starts with a clone's hand deletion, never marked, of a file whose entry an old client's pull dropped, pulled and pushed before a peer holding it pulls (see {@link insertDroppedDeletion}); default 0.05. */
  readonly droppedDeletionShare?: number;
  /** Chance that a history with three clones or more starts with that resolution, another clone's push of a file of the directory's name left out at its commit just before it (see {@link insertTheirsShape}, `blocked`); default 0.05. */
  readonly theirsBlockedShare?: number;
  /** Chance that a history with two clones or more starts with that resolution, the clone's own file written under the pulled directory and marked by the directory's name just before it (see {@link insertTheirsShape}, `under`); default 0.05. */
  readonly theirsUnderShare?: number;
  /** Chance that a history with two clones or more starts with a run's version held back for a put-back that may come, written again by its clone past the grace, its commit's answer lost, and deleted here (see {@link insertPutBackLost}); default 0.05. */
  readonly putBackLostShare?: number;
  /** Chance that a history with two clones or more starts with a clone's lockfile change kept pending through an outage, a peer's published meanwhile, a pull here meeting both, then this clone's transaction (see {@link insertLockfileRace}); default 0.1. */
  readonly lockfileRaceShare?: number;
  /** Chance that a history with old clients and a core-driven clone flushing in two phases starts with that clone's run losing its version, and the one a run of its cut off at its commit uploaded, to another tool inside an old client's read-modify-write of the index (see {@link insertLostMarkerWindow}); default 0.1. */
  readonly lostMarkerWindowShare?: number;
  /** Chance that a v1 history with old clients and two clones or more starts with a committed version whose entries an old client's pull dropped, deleted here by a clone's user while the marker names it (see {@link insertUnderMarker}); default 0.05. */
  readonly underMarkerShare?: number;
  /** Chance that a history starts with a clone's run losing its version, and the one a run of its cut off at its commit uploaded, to another tool, a brief outage striking its marker take-back's delete of that upload (see {@link insertTakeBackFault}); default 0.05. */
  readonly takeBackBlipShare?: number;
  /** Chance that a history starts with that loss, the take-back's create of the committed marker landing with its answer lost (see {@link insertTakeBackFault}); default 0.05. */
  readonly putBackAnswerShare?: number;
  /** Chance that a history's `parallel` runs save as the tool's `save` does, their step flushing between the mark and the first write (see {@link markSaveGap}); default 0.05. */
  readonly saveGapShare?: number;
  /** Chance that a v1 history with old clients and three clones or more starts with a peer's edit, pushed before any pull of its saw that an old client's pull dropped the entry of the file it synced (see {@link insertDroppedEdit}); default 0.05. */
  readonly droppedEditShare?: number;
  /** Chance that a history has brief outages, one write or deletion of a push failing as unreachable (see {@link insertBlips}); default 0.1. */
  readonly blipShare?: number;
  /** Chance that a history with two clones or more starts with a peer's rollback of a marker moved past the one a clone synced, met by that clone's marker moved further forward (see {@link insertRollbackPast}); default 0.05. */
  readonly rollbackPastShare?: number;
  /** Chance that a history with two clones or more starts with a clone's marker moved further forward than a peer's, raced by the peer's moved forward too, and a pull of that clone before its next push (see {@link insertLostRace}); default 0.05. */
  readonly lostRaceShare?: number;
  /** Chance that a v2 history with two clones or more starts with a same-output peer's commit of a stopped run's uploads cut off between its shard write and the meta update, the run then refused (see {@link insertShardCut}); default 0.05. */
  readonly shardCutShare?: number;
  /** Chance that a history without old clients whose store deletes by a check, then a delete, with two clones or more, starts with a peer's pull, edit and push inside a take-back's checked delete (see {@link insertCheckedWindow}); default 0.05. */
  readonly checkedWindowShare?: number;
  /** Chance that a v1 history with old clients on a store whose versions are ETags, with three clones or more, starts with a file taken back, its bytes published again, their entry dropped by an old client, then edited by a peer (see {@link insertRepublished}); default 0.05. */
  readonly republishedShare?: number;
  /** Chance that a history starts with a clone's run committed with its answer lost, its version then deleted here and pushed, the marker naming it (see {@link insertMarkerTakenBack}); default 0.05. */
  readonly markerTakenBackShare?: number;
  /** Chance that a history {@link insertRepublished} takes starts with its block, the take-back cut off before its delete, finished by the clone's next push (see {@link insertCutTakeBack}); default 0.05. */
  readonly cutTakeBackShare?: number;
  /** Chance that a v1 history with old clients and two clones or more has a clone's push stopped past its delete of a marker's object while an old client pulls (see {@link insertMarkerGap}); default 0.05. */
  readonly markerGapShare?: number;
  /** Chance that a history with a clone driven through the API starts with a run's push cut off after its uploads, its second push refused while its look at those uploads fails, and a run of the same data (see {@link insertCutPush}); default 0.05. */
  readonly cutPushShare?: number;
  /** Chance that a history with two clones or more, one driven through the API, starts with a conflict of a shared file there that the clone's own process and a second process over its cache resolve or pull at once, a newer version of theirs published (see {@link insertSharedConflict}); default 0.05. */
  readonly sharedConflictShare?: number;
  /** Chance that a history starts with a clone's user deleting the version the committed marker names beside a lost run's, or resolving `--mine` a conflict at a deletion of a version the marker here names (see {@link insertCommittedDeleted}); default 0.05. */
  readonly committedDeletedShare?: number;
  /** Chance that a v1 history with old clients on a store whose versions are ETags starts with a take-back stopped before its delete, its global lock taken over by an old client writing the bytes it takes back (see {@link insertOldTakeBack}); default 0.05. */
  readonly oldTakeBackShare?: number;
  /** Chance that a v1 history with old clients on a store whose versions are ETags starts with a take-back whose look, after its delete, at the same bytes a peer put back there fails once (see {@link insertSameBytesLook}); default 0.05. */
  readonly sameBytesLookShare?: number;
  /** Chance that a history with two clones or more, one driven through the API, starts with a `resolve --theirs` of a conflict of a shared file there inside which a second process over its cache records a newer conflict of the file, its pull then failing, the datastore unreachable (see {@link insertTheirsReopen}); default 0.05. */
  readonly theirsReopenShare?: number;
}

/**
 * How far a skewed clock runs off, at least and at most: beyond two thirds of
 * the default lock TTL (30 s), where a lock judged by this clock against the
 * store's stamps would be broken while its holder renews it.
 */
export const SKEW_RANGE_MS = [40_000, 120_000] as const;

/** The kinds drawn by weight (stalls and the others are inserted afterwards, from generators of their own). */
export type DrawnKind = Exclude<
  OpKind,
  | "stall"
  | "oldpush"
  | "oldpull"
  | "reshape"
  | "foreign"
  | "vanish"
  | "unwritten"
  | "sibling"
  | "oldsame"
  | "copy"
  | "lockless"
  | "torn"
  | "damaged"
  | "blip"
>;

/** The default weight of each drawn kind (`--weights` replaces some). */
export const WEIGHTS: Readonly<Record<DrawnKind, number>> = {
  run: 20,
  tick: 34,
  wait: 5,
  breakglass: 6,
  outage: 4,
  latency: 2,
  flaky: 4,
  crash: 6,
  lockfile: 6,
  bulk: 3,
  config: 2,
  sync: 6,
  edit: 6,
  delete: 4,
  marker: 4,
  resolve: 6,
  adopt: 2,
  migrate: 1,
};
