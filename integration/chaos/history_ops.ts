/**
 * The operations of a chaos history and the history itself: the models,
 * data names and shared files the moves name, the operations (each kind
 * with its fields: those of a clone and its user in `history_ops_clone.ts`,
 * those from around the clones in `history_ops_world.ts`), and the client
 * kinds a history's clones use.
 *
 * @module
 */
import type { CloneOp } from "./history_ops_clone.ts";
import type { WorldOp } from "./history_ops_world.ts";

export type { CloneOp, EditHow, ResolveHow } from "./history_ops_clone.ts";
export type { FlakyCall, WorldOp } from "./history_ops_world.ts";

/** The models the workload runs (model locks are per model). */
export const MODELS: readonly string[] = ["shell/cmd/m0", "shell/cmd/m1"];

/** The data names each model writes versions of. */
export const DATA_NAMES: readonly string[] = ["out", "log"];

/**
 * The files the edit and delete moves touch, shared by every clone so that
 * their edits conflict: three config files and three "other" state files,
 * one of them named like a package manager's lockfile (a user's file, not
 * one of the layout's own `.lock` objects: it is pushed as any other).
 */
export const SHARED_FILES: readonly string[] = [
  "config/settings-0.yaml",
  "config/settings-1.yaml",
  "config/settings-2.yaml",
  "notes/shared-0.md",
  "notes/shared-1.md",
  "notes/shared-2.lock",
];
/** One operation of a history. `id` is stable under shrinking (it names data and entries). */
export type Op = CloneOp | WorldOp;

/**
 * How a clone drives the datastore: `api` through Sluice's own API; `core`
 * through the swamp extension, called as swamp core calls it (two-phase
 * flush); `core-single-phase` the same with the single-phase flush of a core
 * that does not use two-phase pushes (`core_driven.ts`).
 */
export type ClientKind = "api" | "core" | "core-single-phase";

/** The client kinds, as histories print them. */
export const CLIENT_KINDS: readonly ClientKind[] = ["api", "core", "core-single-phase"];

/** The kinds of {@link Op}. */
export type OpKind = Op["kind"];

/** A reproducible chaos history. */
export interface History {
  /** The seed it was generated from (also seeds lock jitter and names the run bytes). */
  readonly seed: number;
  /** Number of clones (2 to 5). */
  readonly clones: number;
  /**
   * When true, the clones' locks behave like a third-party lock that reports
   * any failed read as "absent" and exposes no nonce or loss flag.
   */
  readonly absentOnError?: boolean;
  /** When true, the bucket starts with the sharded (v2) index layout instead of v1. */
  readonly v2?: boolean;
  /**
   * When true, old clients push into the bucket too (`oldpush`), and every
   * Sluice API push and resolution commits under the global lock
   * (`pushUnderGlobalLock`), as a mixed fleet must. Such histories have no
   * stall and no breakglass of the global lock.
   */
  readonly oldClients?: boolean;
  /** The client kind of each clone (absent: every clone uses Sluice's API). */
  readonly kinds?: readonly ClientKind[];
  /**
   * How far each clone's clock runs ahead of the store's, in ms (behind when
   * negative; absent: every clock agrees with the store's). A clone's whole
   * service, its locks included, runs on its clock.
   */
  readonly skewMs?: readonly number[];
  /**
   * When true, every clone's first push makes the index (on a bucket with
   * none) before its uploads, whatever its size (`firstIndexAtUploads` 1;
   * absent: the default, which no history's push reaches).
   */
  readonly indexFirst?: boolean;
  /**
   * When true, the store derives an object's version from its bytes, as an
   * S3 ETag is (the MD5 of a single-part upload): two writes of the same
   * bytes carry the same version. Only with `oldClients` (see
   * {@link insertOldSame}).
   */
  readonly etag?: boolean;
  /**
   * When true, a delete conditional on a version checks the version, then
   * deletes whatever is there (an endpoint that ignores a delete's
   * condition, as MinIO's community edition does): a write landing between
   * the two is deleted with it, and the store says so (`deletesChecked`).
   */
  readonly checkedDeletes?: boolean;
  /**
   * When true, each process of a core-driven clone keeps one lock object per
   * model and takes it again for each run of that model (its `acquire`
   * after its `release`, as swamp core's `withLock` does), where otherwise
   * each run creates its own.
   */
  readonly reusedLocks?: boolean;
  /**
   * When true, a clone's first reads of the index after a copy of its was
   * set aside as a lost version's (`version_exists`: a new reason in its
   * state's set-aside area) fail as unreachable, as many as its retries
   * allow: the look that settles the record of its write there fails.
   */
  readonly setAsideFlaky?: boolean;
  /** The operations, in order. */
  readonly ops: readonly Op[];
}

/** The client kind of clone `clone` in `h`. */
export function kindOf(h: Pick<History, "kinds">, clone: number): ClientKind {
  return h.kinds?.[clone] ?? "api";
}
