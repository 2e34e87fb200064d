/**
 * The last moves `generateHistory` inserts, once every other operation of
 * the history is drawn: a committed marker's take-back, a take-back cut
 * off, the save gap, a dropped edit, the marker gap, a push cut off, a
 * conflict on a shared file, the deletion of the committed marker's
 * version, a take-back whose global lock an old client takes over and a
 * take-back whose look at the same bytes put back over its delete fails
 * once, and a `--theirs` reopened under a newer conflict. Each is drawn from a generator of its own, mixed from the
 * history's seed and the move's tag, so that the operations before it stay
 * as they were.
 *
 * @module
 */
import { mixSeed, Rng } from "./prng.ts";
import type { ClientKind, Op } from "./history_ops.ts";
import type { GenerateOptions } from "./history_options.ts";
import { insertDroppedEdit } from "./moves_dropped.ts";
import { insertMarkerTakenBack } from "./moves_marker_taken_back.ts";
import { insertCutTakeBack } from "./moves_cut_take_back.ts";
import { markSaveGap } from "./moves_save_gap.ts";
import { insertMarkerGap } from "./moves_marker_gap.ts";
import { insertCutPush } from "./moves_cut_push.ts";
import { insertSharedConflict } from "./moves_shared_conflict.ts";
import { insertCommittedDeleted } from "./moves_committed_deleted.ts";
import { insertOldTakeBack } from "./moves_old_take_back.ts";
import { insertSameBytesLook } from "./moves_same_bytes_look.ts";
import { insertTheirsReopen } from "./moves_theirs_reopen.ts";

/** What the history drew before its last moves, which they depend on. */
export interface DrawnSoFar {
  /** The history's seed. */
  readonly seed: number;
  /** Its number of clones. */
  readonly clones: number;
  /** The kind of client each clone is. */
  readonly kinds: readonly ClientKind[];
  /** Whether old clients share the bucket. */
  readonly oldClients: boolean;
  /** Whether the bucket is of layout v2. */
  readonly v2: boolean;
  /** Whether a take-back may meet an object published again (etag, old clients, v1). */
  readonly republished: boolean;
}

/**
 * Inserts the last moves of a history into `ops`, in their order, each in
 * the share `options` gives it (its default otherwise).
 *
 * @example
 * ```ts
 * import { insertLastBlocks } from "./history_last_blocks.ts";
 * const ops = [{ id: 0, kind: "sync" as const, clone: 0 }];
 * const drawn = { seed: 7, clones: 2, kinds: ["api", "api"] as const, oldClients: false, v2: true, republished: false };
 * insertLastBlocks(ops, drawn, { committedDeletedShare: 1 });
 * console.log(ops.length > 1); // true
 * ```
 */
export function insertLastBlocks(ops: Op[], drawn: DrawnSoFar, options: GenerateOptions): void {
  const { seed, clones, kinds, oldClients, v2, republished } = drawn;
  const own = (tag: number) => new Rng(mixSeed(seed, tag));
  // From a generator of its own: the operations above stay as they were.
  insertMarkerTakenBack(ops, clones, own(0x6d6b7462), options.markerTakenBackShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertCutTakeBack(ops, kinds, republished, own(0x63746b62), options.cutTakeBackShare ?? 0.05);
  // From a generator of its own, once every run is marked `parallel` or not.
  markSaveGap(ops, seed, options.saveGapShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  if (oldClients && !v2) {
    insertDroppedEdit(ops, kinds, own(0x64726564), options.droppedEditShare ?? 0.05);
  }
  // From a generator of its own: the operations above stay as they were.
  const oldV1 = oldClients && !v2;
  insertMarkerGap(ops, clones, oldV1, own(0x6d6b6770), options.markerGapShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertCutPush(ops, kinds, own(0x63747073), options.cutPushShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertSharedConflict(ops, kinds, own(0x73686366), options.sharedConflictShare ?? 0.05);
  insertCommittedDeleted(ops, clones, own(0x636d646c), options.committedDeletedShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertOldTakeBack(ops, kinds, republished, own(0x6f6c6474), options.oldTakeBackShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  const sameBytesLook = options.sameBytesLookShare ?? 0.05;
  insertSameBytesLook(ops, kinds, republished, own(0x73626c6b), sameBytesLook);
  insertTheirsReopen(ops, kinds, own(0x7468726f), options.theirsReopenShare ?? 0.05);
}
