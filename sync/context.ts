/**
 * The contexts gates see. A push-level gate gets a {@link PushContext}; a
 * per-write gate gets a {@link WriteContext}. Shared state passes only
 * through the fields declared here.
 *
 * @module
 */
import type { SluiceEmitter } from "./events.ts";
import type { MiddlewareEntry, Pipeline } from "./pipeline.ts";
import type {
  Clock,
  DistributedLock,
  Identity,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
} from "./ports.ts";
import type { RetryPolicy } from "./retry.ts";
import type { CacheAccess, DirtySnapshot, StateAccess } from "./context_access.ts";

export type { CacheAccess, ConflictView, DirtySnapshot, StateAccess } from "./context_access.ts";

/** The class of a cache path (see the table in the design brief). */
export type PathClass =
  | "data-version"
  | "latest-marker"
  | "index"
  | "managed-lockfile"
  | "config"
  | "internal"
  | "other";

/** The phases of the push pipeline, in order. */
export const PUSH_PHASES = [
  "initialize",
  "classify",
  "guard",
  "erase",
  "fence",
  "finalize",
] as const;

/** A phase of the push pipeline. */
export type PushPhase = typeof PUSH_PHASES[number];

/** The phases of the per-write pipeline, in order. */
export const WRITE_PHASES = ["prepare", "mode", "conditional", "finalize"] as const;

/** A phase of the per-write pipeline. */
export type WritePhase = typeof WRITE_PHASES[number];

/** `conditionalWrites` config values. */
export type ConditionalWritesSetting = "auto" | "required" | "off";

/** An extra classifier rule: a glob-like pattern (`*` one segment, `**` any) and its class. */
export interface ClassifierRule {
  readonly pattern: string;
  readonly class: PathClass;
}

/** Resolved sync configuration. */
export interface SyncConfig {
  /** Parallel transfers; default 32 (`DEFAULT_CONCURRENCY`). */
  readonly concurrency: number;
  /**
   * The service's retries of transient errors. Over a store that retries
   * itself (`ObjectStore.retriesInternally`) the service sets `retries` to 0,
   * so that every call is retried in exactly one layer.
   */
  readonly retry: RetryPolicy;
  /** See the endpoint-fallback-warner gate; default `auto`. */
  readonly conditionalWrites: ConditionalWritesSetting;
  /** Extra classifier rules, tried before the defaults. */
  readonly classifierRules: readonly ClassifierRule[];
  /** How long a cached endpoint probe stays fresh; default 24 h. */
  readonly probeTtlMs: number;
  /** Files larger than this many bytes are streamed in chunks, never held whole; default 8 MiB. */
  readonly streamThresholdBytes: number;
  /**
   * A cache's first push of at least this many files into a datastore with
   * no index makes the index as its uploads begin, not at its commit (0:
   * never); default 200 (see `sync/service/push_first_index.ts`).
   */
  readonly firstIndexAtUploads: number;
  /**
   * A new data version's `raw` whose directory holds no `metadata.yaml` yet:
   * `push` publishes it as it is (default); `hold` leaves it out, kept dirty,
   * until the version is finalized (see the unfinished-version-holder gate;
   * the swamp extension holds, as the tool writes `metadata.yaml` last).
   */
  readonly unfinishedVersions: "push" | "hold";
}

/** One path in a push plan. */
export interface PlanEntry {
  /** Cache-relative path (also the store key). */
  readonly path: string;
  /** `put` uploads, `delete` removes the remote object, `skip` leaves it out. */
  action: "put" | "delete" | "skip";
  /** Set by the path classifier. */
  class?: PathClass;
  /** Write mode; default overwrite. Gates may set create or update. */
  mode?: PutMode;
  /** Written in the commit step, after all uploads and the pre-commit fence. */
  commit?: boolean;
  /** With `skip`: keep the path dirty for a later push (default: clean it). */
  keepDirty?: boolean;
  /**
   * Never tried: a write or deletion before it could not reach the store,
   * which stopped the push's further ones. It stays dirty as a failed one
   * does (its mark, or its marked directory's, is kept; one planned
   * without a mark gets one).
   */
  notTried?: boolean;
  /**
   * With `skip` and no `keepDirty`: the local copy differs from the
   * datastore's and stays unpublished, so the push left work behind (its
   * result lists it as `unpublished`; the command line exits 2).
   */
  unpublished?: boolean;
  /** Why it was skipped or changed. */
  reason?: string;
  /** Gates that acted on this entry, in order. */
  readonly handledBy: string[];
  /** Content hash of the local file (hex SHA-256), when read. */
  hash?: string;
  /** Size of the local file. */
  size?: number;
  /** Version of the remote object as of this cache's last sync, if any. */
  readonly syncedVersion?: string;
  /** Content hash as of this cache's last sync, if any. */
  readonly syncedHash?: string;
  /** Size as of this cache's last sync, if any. */
  readonly syncedSize?: number;
  /** `dirty`: marked by path; `walk`: found changed by a walk after a bulk markDirty. */
  readonly source?: "dirty" | "walk";
  /** Done by the preparation of a two-phase push (shown to the gates of its commit, not written again). */
  readonly prepared?: boolean;
  /**
   * Set for a path where the store may still hold a write of this cache's
   * that never reached the index (a crash, a failed index update): with
   * `skip`, a path absent here that was marked dirty and never synced, or
   * that an earlier push wrote without naming it. Never synced, that write
   * is deleted (see `dropOwnStranded` in `service/push_delete.ts`); synced,
   * it is published as the commit would have done (`publishOwnStranded`),
   * and the local deletion stays one to push (by name, after a walk). With
   * `put`, a file here as it was synced that such a push wrote: it is
   * written back only over this cache's own uncommitted write.
   */
  strandedCheck?: boolean;
  /**
   * With a `strandedCheck` of a never-synced path that no mark names any
   * more (a push of everything pending settling its record): a file is here
   * still, so no local deletion came after this cache's write there. An
   * upload of this cache's that the index names (its commit landed, or
   * another process over this cache published the path since) stays
   * published; only one no index names is deleted.
   */
  heldHere?: boolean;
  /**
   * With a `strandedCheck` of a never-synced path: left by a two-phase
   * push's preparation to its commit, which makes it as a plain push makes
   * it (see `settleStrays`): taking back an upload of this cache's that the
   * index names writes the index, which an old client rewrites under the
   * global lock without a compare-and-swap, and only the commit holds that
   * lock. So too a deletion that meets another writer's uncommitted object
   * it was told to adopt (`deleteRemote`'s `deferred`): the adoption names
   * that object in the index; and a write that meets one
   * (`leaveAdoptionToCommit` in `own_writes.ts`).
   */
  atCommit?: boolean;
  /**
   * Planned without a dirty mark of its own: a data version's `latest`
   * marker that a deletion of the version took along (see `buildPlan`). A
   * push that fails on it or leaves it dirty marks it, so that the next
   * push takes it again.
   */
  unmarked?: boolean;
  /**
   * Only named again in the index, never written: the entry another client
   * dropped of a file that only its own transaction publishes (the managed
   * lockfile). Should the store no longer hold the version synced (a
   * transaction landed since), the path is left out, its mark cleared.
   */
  nameOnly?: boolean;
  /**
   * With `skip` (a deletion held, kept dirty): the index no longer names
   * the path (another client dropped its entry) while the store holds the
   * very version this cache synced. The push names that version again from
   * the synced record, writing nothing, as a pull's dropped entry is named
   * again (see `service/dropped_entries.ts`); the deletion stays held.
   */
  nameSynced?: boolean;
  /**
   * A file its writer rewrites whole each time (a snapshot, such as a
   * catalog export): written over the version the datastore holds when the
   * write is made, by a compare-and-swap on that version, rather than only
   * over the version this cache last synced. A write that loses that race
   * stays dirty for the next push; it is never a conflict, and a conflict
   * recorded on the path earlier neither holds it back nor outlives its
   * publication.
   */
  snapshot?: boolean;
  /**
   * Set (with `skip`) when the entry is a conflict: the datastore holds
   * another version than the one this cache based its copy on (`theirs`,
   * null when it was deleted there). The push records it as an unresolved
   * conflict and keeps the local copy.
   */
  conflict?: {
    readonly theirs:
      | { readonly version: string; readonly hash: string; readonly size: number }
      | null;
  };
}

/** A write that landed during this push. */
export interface UploadRecord {
  readonly path: string;
  readonly info: ObjectInfo;
  /** True when this push created the object (it did not exist before). */
  readonly created: boolean;
  /** `identical`: the object was already there with these bytes (written by someone else or earlier). */
  readonly outcome: "written" | "identical";
}

/**
 * A typed key of per-push state: a gate that needs to remember something
 * for the length of one push declares a key, and reads the value with
 * `ctx.vars.get(key)` (created by `init` on first use). State never outlives
 * its push and never passes between gates except through declared fields.
 *
 * @example
 * ```ts
 * import { PushVar } from "./context.ts";
 * const SEEN = new PushVar("my-gate/seen", () => new Set<string>());
 * ```
 */
export class PushVar<T> {
  constructor(readonly name: string, readonly init: () => T) {}
}

/** Per-push state by {@link PushVar} key. */
export interface PushVars {
  /** The value of `key` in this push, created on first use. */
  get<T>(key: PushVar<T>): T;
}

/** Everything a push-level gate may use. */
export interface PushContext {
  /** Unique id of this push. */
  readonly id: string;
  /** `walk` after a bulk markDirty; `paths` for explicit dirty paths. */
  readonly kind: "walk" | "paths";
  /** When true nothing is written: the plan is only computed (for `status`). */
  readonly dryRun: boolean;
  readonly store: ObjectStore;
  readonly cache: CacheAccess;
  readonly state: StateAccess;
  /** The plan; gates classify, skip or re-mode entries. */
  readonly plan: PlanEntry[];
  /** Model locks this push is made under; empty for a plain sync (not fenced). */
  readonly locks: readonly DistributedLock[];
  /** Data version directories (`data/…/<N>`) the run wrote. */
  readonly written: readonly string[];
  /** Version directories that existed in the cache before the run started. */
  readonly preexisting: ReadonlySet<string>;
  /** Models (`type…/modelId`) this push is made for, when under model locks. */
  readonly models: readonly string[];
  /**
   * Directories (model data directories, or version directories) left out
   * of this push, dirty (another run's, under its model lock, held by this
   * process or lost since: see `PushOptions.holdBack`).
   */
  readonly holdBack: readonly string[];
  /**
   * Paths where another writer's uncommitted object (one the index does not
   * list) is published in the index as that writer's change instead of
   * waited for: the user said the writer is gone for good.
   */
  readonly adoptUncommitted: ReadonlySet<string>;
  readonly identity: Identity;
  readonly clock: Clock;
  readonly events: SluiceEmitter;
  readonly signal: AbortSignal;
  readonly config: SyncConfig;
  /** Hooks run right before the commit writes (markers, indexes); the fence registers here. */
  readonly beforeCommit: Array<() => Promise<void>>;
  /**
   * True in the preparation of a two-phase push: it writes no index, as
   * old clients rewrite the index under the global lock (without a
   * compare-and-swap) that only the commit holds.
   */
  readonly preparing?: boolean;
  /**
   * True when old clients push beside this one (a push that checks each
   * create, under the global lock): an old client's write may land at any
   * moment the global lock is not held, or once it is lost.
   */
  readonly oldClients?: boolean;
  /**
   * Work of a gate that may write the index, left by a preparation
   * (`preparing`) to its commit, which runs it first (`commitPush`).
   */
  readonly atCommit: Array<() => Promise<void>>;
  /** Objects this push wrote so far. */
  readonly uploaded: UploadRecord[];
  /**
   * Paths whose write this push takes back (a data version lost to another
   * writer: its files set aside, this push's own uploads of them deleted):
   * never committed, whatever their upload or its deletion reported.
   */
  readonly withdrawn: Set<string>;
  /**
   * Best-effort scoped pull of the given cache-relative prefixes; nothing is
   * fetched into the directories `leave` names (a later pull fetches it).
   */
  refresh(prefixes: readonly string[], leave?: readonly string[]): Promise<void>;
  /** Notes what a gate did: adds to the entry's handledBy and emits a `gate` event. */
  note(gate: string, message: string, entry?: PlanEntry): void;
  /** The per-write pipeline (read-only use: gates may inspect it). */
  readonly writePipeline: Pipeline<WriteContext>;
  /** The dirty set when the push started; the commit cleans only marks not renewed since. */
  readonly snapshot: DirtySnapshot;
  /** Per-push state of gates, by typed key. */
  readonly vars: PushVars;
}

/** What {@link createPushContext} needs; the rest it fills in. */
export type PushContextInit =
  & Omit<
    PushContext,
    | "beforeCommit"
    | "atCommit"
    | "withdrawn"
    | "vars"
    | "note"
    | "uploaded"
    | "locks"
    | "written"
    | "preexisting"
    | "models"
    | "holdBack"
    | "adoptUncommitted"
  >
  & Partial<
    Pick<
      PushContext,
      "uploaded" | "locks" | "written" | "preexisting" | "models" | "holdBack" | "adoptUncommitted"
    >
  >;

/**
 * Builds a push context: the one constructor the sync service and the test
 * kit's `mockPushContext` share. `note` records the gate on the entry and
 * emits a `gate` event (none for a dry run).
 *
 * @example
 * ```ts
 * import { createPushContext } from "./context.ts";
 * // createPushContext({ id, kind: "paths", dryRun: false, store, cache, state, plan: [], … })
 * ```
 */
export function createPushContext(init: PushContextInit): PushContext {
  const vars = new Map<PushVar<unknown>, unknown>();
  return {
    ...init,
    locks: init.locks ?? [],
    written: init.written ?? [],
    preexisting: init.preexisting ?? new Set(),
    models: init.models ?? [],
    holdBack: init.holdBack ?? [],
    adoptUncommitted: init.adoptUncommitted ?? new Set(),
    uploaded: init.uploaded ?? [],
    withdrawn: new Set(),
    beforeCommit: [],
    atCommit: [],
    vars: {
      get<T>(key: PushVar<T>): T {
        if (!vars.has(key as PushVar<unknown>)) vars.set(key as PushVar<unknown>, key.init());
        return vars.get(key as PushVar<unknown>) as T;
      },
    },
    note: (gate, message, entry) => {
      if (entry && !entry.handledBy.includes(gate)) entry.handledBy.push(gate);
      if (!init.dryRun) init.events.emit("gate", { gate, message, path: entry?.path });
    },
  };
}

/** Everything a per-write gate may use. */
export interface WriteContext {
  readonly push: PushContext;
  readonly entry: PlanEntry;
  /** Store key (the cache-relative path). */
  readonly key: string;
  /**
   * What to write: the bytes, or (for a file above the streaming threshold)
   * a {@link BodySource} that reads the file in chunks and fails the write if
   * the file changes under it.
   */
  readonly body: PutBody;
  /** Hex SHA-256 of the body's bytes, computed before any gate runs. */
  readonly hash: string;
  /** Length of the body in bytes. */
  readonly size: number;
  /** The mode the terminal put uses. */
  mode: PutMode;
  /** Metadata stored with the object. */
  metadata: Record<string, string>;
  /** Set by the terminal put (or a gate that resolved the write itself). */
  result?: ObjectInfo;
  /** `written`: a new object; `identical`: the remote already held these bytes. */
  outcome?: "written" | "identical";
  /**
   * Set by a gate whose write went through where the store no longer held
   * the version it was based on (created again over a deletion nobody had
   * committed, this cache's own stranded write replaced, equal bytes met):
   * the commit names it only while the index still names an entry there
   * (see `IndexChange.baseGone`).
   */
  baseGone?: boolean;
}

/**
 * A per-write gate's registration. `appliesTo` tells `status` (which writes
 * nothing) which plan entries the gate will act on.
 */
export type WriteGateEntry = MiddlewareEntry<WriteContext> & {
  /** True when the gate acts on writes of this entry. */
  readonly appliesTo?: (entry: PlanEntry) => boolean;
};
