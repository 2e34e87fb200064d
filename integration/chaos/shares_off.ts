/**
 * The shares of the history generator's moves that tests turn off, so that
 * the histories they draw stay as they were when each test was written.
 *
 * @module
 */

/** The shares of the blocks inserted last from generators of their own, all off. */
const LAST_BLOCKS_OFF = {
  putBackLostShare: 0,
  saveGapShare: 0,
  droppedEditShare: 0,
  rollbackPastShare: 0,
  lostRaceShare: 0,
  shardCutShare: 0,
  checkedWindowShare: 0,
  republishedShare: 0,
  markerTakenBackShare: 0,
  cutTakeBackShare: 0,
  markerGapShare: 0,
  cutPushShare: 0,
  sharedConflictShare: 0,
  committedDeletedShare: 0,
  oldTakeBackShare: 0,
  sameBytesLookShare: 0,
  theirsReopenShare: 0,
} as const;

/** The shares of the moves added last, all off: histories drawn without them stay as they were. */
export const LATEST_OFF = {
  droppedDeletionShare: 0,
  theirsBlockedShare: 0,
  theirsUnderShare: 0,
  lockfileRaceShare: 0,
  lostMarkerWindowShare: 0,
  underMarkerShare: 0,
  takeBackBlipShare: 0,
  putBackAnswerShare: 0,
  ...LAST_BLOCKS_OFF,
} as const;

/** The shares of the moves inserted after the drawn ones (reshapes aside), all off. */
export const INSERTS_OFF = {
  locklessShare: 0,
  foreignShare: 0,
  vanishShare: 0,
  unwrittenShare: 0,
  sharedCacheShare: 0,
  copyShare: 0,
  markerRaceShare: 0,
  ownLostShare: 0,
  ownWithdrawnShare: 0,
  setAsideFlakyShare: 0,
  blipShare: 0,
  tornLogShare: 0,
  damagedLogShare: 0,
  damagedOpenShare: 0,
  saveCrashShare: 0,
  oldWindowShare: 0,
  logFailShare: 0,
  theirsShapeShare: 0,
  ...LATEST_OFF,
} as const;

/**
 * The shares of the moves the stall test's histories leave out (reshapes,
 * another tool's writes and the other blocks inserted from generators of
 * their own), all off: stalls aside, histories drawn without them stay as
 * they were.
 */
export const STALL_OTHERS_OFF = {
  reshapeShare: 0,
  foreignShare: 0,
  unwrittenShare: 0,
  sharedCacheShare: 0,
  tornLogShare: 0,
  damagedLogShare: 0,
  damagedOpenShare: 0,
  saveCrashShare: 0,
  logFailShare: 0,
  ownWithdrawnShare: 0,
  setAsideFlakyShare: 0,
  blipShare: 0,
  ...LAST_BLOCKS_OFF,
} as const;
