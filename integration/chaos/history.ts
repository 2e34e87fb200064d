/**
 * Chaos histories: a seed, a number of clones and a list of operations. A
 * history is generated from its seed alone and replayed exactly: every
 * scheduling choice is part of it (the `tick` operations), so a shrunk
 * history printed by a failing run reproduces without the generator.
 *
 * @module
 */
import { mixSeed, Rng } from "./prng.ts";

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

/**
 * How an edit reaches the datastore: `hand` writes the file and nothing else
 * (no markDirty; `hand-tick` keeps the file's size class and its mtime, as an
 * edit within the filesystem's timestamp tick after the last sync does),
 * `mark` also marks it dirty, `push` marks it and pushes. `revert` puts
 * back by hand the bytes the clone last synced (a user undoing an edit; a
 * plain `hand` edit when the clone never synced the file). `during` is a
 * `hand` edit made at once, while the clone's own command (a sync) is under
 * way, not after it.
 */
export type EditHow = "hand" | "hand-tick" | "mark" | "push" | "revert" | "during";

/** The resolutions a `resolve` operation picks from. */
export type ResolveHow = "mine" | "theirs" | "merged";

/** Store calls a `flaky` operation can make fail. */
export type FlakyCall = "get" | "head" | "put" | "delete";

/** One operation of a history. `id` is stable under shrinking (it names data and entries). */
export type Op =
  /** A model method run on a clone: take the model lock, write version N+1, push under the lock, release. */
  | {
    readonly id: number;
    readonly kind: "run";
    readonly clone: number;
    readonly model: number;
    readonly data: number;
    /** Fake milliseconds the method body takes between writing and pushing. */
    readonly workMs: number;
    /**
     * A deterministic method: its output depends only
     * on the model, the data name and the version, so two runs of one
     * version (a breakglass) write the same bytes.
     */
    readonly same?: boolean;
    /**
     * Its output is streamed, as the tool's data writer does (a core-driven
     * clone only): the version's `raw` is made and written part way, another
     * step's flush of the same service runs meanwhile, then the rest of `raw`
     * and the `metadata.yaml` are written (the version finalized) and the
     * run's own flush pushes it.
     */
    readonly streamed?: boolean;
    /**
     * Another step of its workflow runs beside it in the same process (a
     * core-driven clone only): a unit of its own over the same service, with
     * its own model's lock, version and flush (single-phase where the run's
     * is two-phase, and the other way round), released when that flush ends,
     * whichever of the two flushes is under way then.
     */
    readonly parallel?: boolean;
    /**
     * A structural command of the tool (a global-lock command: `model
     * evaluate`, `data gc`…) runs in the same process beside a `parallel`
     * run and its step while both hold their model locks, on the same
     * extension instance: the global lock, a pull and a push naming no
     * model (no `context`, as the tool's flush of such a command), a file
     * of its own written between them.
     */
    readonly structural?: boolean;
  }
  /** A periodic sync: pull, then push. */
  | { readonly id: number; readonly kind: "sync"; readonly clone: number }
  /** The move of a v1 bucket's index to v2 shards, under the global lock (once per history). */
  | { readonly id: number; readonly kind: "migrate"; readonly clone: number }
  /** A command that writes a state file and calls `markDirty()` with no path, then pushes (a walk). */
  | { readonly id: number; readonly kind: "bulk"; readonly clone: number }
  /** A config edit: writes `config/settings-<file>.yaml`, marks it dirty, pushes. */
  | { readonly id: number; readonly kind: "config"; readonly clone: number; readonly file: number }
  /** A managed lockfile transaction: set an entry, remove one, or (neither) retry the pending delta. */
  | {
    readonly id: number;
    readonly kind: "lockfile";
    readonly clone: number;
    readonly set?: string;
    readonly remove?: string;
  }
  /** The breakglass: force-release a model's lock (or, with `model: null`, the global lock). */
  | { readonly id: number; readonly kind: "breakglass"; readonly model: number | null }
  /** The store becomes unreachable (`on`) or reachable again. */
  | { readonly id: number; readonly kind: "outage"; readonly on: boolean }
  /** Every store call of a command takes `ms` more (0 removes the latency). */
  | { readonly id: number; readonly kind: "latency"; readonly ms: number }
  /** The next `count` calls of one kind fail as unreachable; with `afterEffect`, after taking effect. */
  | {
    readonly id: number;
    readonly kind: "flaky";
    readonly call: FlakyCall;
    readonly count: number;
    readonly afterEffect: boolean;
  }
  /**
   * The clone's process dies at its current await point and restarts from
   * its cache dir. With `at: "commit"`, the crash is armed instead: it
   * happens when the clone's command next stops between a commit-step write
   * (a latest marker, a shared file's write or deletion) and the index update
   * that follows it: on that update's first call on an index object (the v1
   * index, the meta, or a shard, read first when the clone holds the v2 meta
   * it saw last), before any index write of the commit lands.
   * With `at: "answer"`, it happens as the clone's next write of an index
   * object (the v1 index, a shard) lands, before its answer comes back: a
   * commit made whose maker never learns it.
   */
  | {
    readonly id: number;
    readonly kind: "crash";
    readonly clone: number;
    readonly at?: "commit" | "answer";
    /**
     * With `at`: armed when the clone's queue gets to it (its commands
     * before it done), not at once: the crash then aims at the command after.
     */
    readonly queued?: boolean;
  }
  /** A user edits one of {@link SHARED_FILES} (see {@link EditHow}). */
  | {
    readonly id: number;
    readonly kind: "edit";
    readonly clone: number;
    readonly file: number;
    readonly how: EditHow;
    /** `during`: the choices of the scheduler decisions taken while waiting for its moment. */
    readonly pick?: number;
  }
  /** A user deletes one of {@link SHARED_FILES}: by hand, or marked dirty and pushed. */
  | {
    readonly id: number;
    readonly kind: "delete";
    readonly clone: number;
    readonly file: number;
    /**
     * `dir`: the whole `notes/` directory, removed by hand, marked dirty by
     * its name and pushed; `during`: by hand, at once, while the clone's own
     * command (a sync) is under way.
     */
    readonly how: "hand" | "push" | "dir" | "during";
    /** `during`: as for an edit. */
    readonly pick?: number;
  }
  /**
   * A clone points a latest marker at its highest local version of that data
   * (or, with `back`, one before), outside any model run and without the
   * model lock, marks it dirty and pushes: a second writer of the marker.
   * With `how: "hand"` it only writes the file (a later walk pushes it);
   * with `how: "revert"` it puts back by hand the marker it last synced.
   */
  | {
    readonly id: number;
    readonly kind: "marker";
    readonly clone: number;
    readonly model: number;
    readonly data: number;
    readonly back: boolean;
    readonly how?: "push" | "hand" | "revert";
  }
  /** A clone resolves one of its conflicts (the `pick`-th, modulo their number), if it has any. */
  | {
    readonly id: number;
    readonly kind: "resolve";
    readonly clone: number;
    readonly pick: number;
    readonly how: ResolveHow;
  }
  /**
   * A clone edits one of {@link SHARED_FILES} and pushes, told to adopt any
   * other writer's uncommitted object at a shared file or latest marker
   * (publish it as that writer's change instead of waiting for it), as a
   * user does for a writer taken for gone (which may yet come back). Often
   * planned right after a crash of another clone.
   */
  | {
    readonly id: number;
    readonly kind: "adopt";
    readonly clone: number;
    readonly file: number;
  }
  /**
   * The clone's process stops (`on`: a long pause, a suspended laptop, a
   * stalled connection) or goes on from where it stopped. While it is
   * stopped, none of its store calls is released and none of its timers
   * fires (its lock heartbeats stop too), as fake time passes for the
   * others; then its overdue timers fire. Inserted into some histories from
   * a generator of its own (see {@link generateHistory}). With
   * `at: "companions"`, the stop is armed instead: it happens when the
   * clone's command next stops after its write of the v1 index object,
   * before the shards and meta written beside it (the window in which the
   * bucket may turn v2 under a v1 commit). With `at: "move"`, it happens
   * when the clone's move to v2 next stops after reading the v1 index
   * object, before its shard writes (the window in which its global lock
   * may be taken over and another move run).
   */
  | {
    readonly id: number;
    readonly kind: "stall";
    readonly clone: number;
    readonly on: boolean;
    readonly at?: "companions" | "move";
  }
  /**
   * An old client on the clone's machine (swamp's existing S3/GCS extension
   * under swamp core: `peerPush` of `packages/testing/layout_peer.ts`)
   * pushes under the global lock: a plain put (or delete), then an
   * unconditional read-modify-write of the index. It pushes a new file of
   * its own, `logs/old-c<clone>-op<id>.log`, or, with `file`, its edit of one
   * of {@link SHARED_FILES} (with `del`, its deletion), written over whatever
   * the store holds (old clients check nothing). Only in histories with
   * `oldClients`, inserted afterwards from a generator of their own.
   */
  /**
   * The tool marks one of {@link SHARED_FILES} dirty before writing it, and
   * the write never comes (the command failed): a mark on a path with
   * nothing here. Made only where the clone has nothing at the path.
   * Inserted from a generator of its own (see {@link insertUnwritten}).
   */
  | {
    readonly id: number;
    readonly kind: "unwritten";
    readonly clone: number;
    readonly file: number;
  }
  /**
   * An old client on the clone's machine pulls (`peerPull`): on a v1 bucket,
   * where it finds an entry's object missing (a deletion on its way to the
   * index, another tool's), it writes back the index it read, with no lock:
   * a commit landing meanwhile is dropped, and its writer's next pull names
   * it again (`index_entry_dropped`). Only in histories with `oldClients`.
   */
  | { readonly id: number; readonly kind: "oldpull"; readonly clone: number }
  | {
    readonly id: number;
    readonly kind: "oldpush";
    readonly clone: number;
    readonly file?: number;
    readonly del?: boolean;
  }
  /**
   * A user replaces one of the `notes/` files of {@link SHARED_FILES} by a
   * directory of that name holding a new file (`<path>/part-<id>.md`, bytes
   * of its own), or such a directory by a plain file again, by hand (`rm`,
   * `mkdir`, write); then, with `how: "push"`, marks the path by its name
   * and pushes, or (`hand`) leaves it for a later walk. Nothing happens when
   * the clone has neither a file nor a directory there. Inserted into some
   * histories from a generator of their own (see {@link insertReshapes}).
   */
  | {
    readonly id: number;
    readonly kind: "reshape";
    readonly clone: number;
    readonly file: number;
    readonly how: "hand" | "push";
  }
  /**
   * Another tool (a copy by hand, a script, a restore from a backup) puts
   * objects straight into the bucket, with no lock, no index update and no
   * writer of Sluice's: `file`, a file of its own (see {@link foreignObjects});
   * `shared`, one of {@link SHARED_FILES} (`file`); `version`, version
   * `version` of a model's data (its raw output and metadata), with
   * `marker`, that data's latest marker too. Only at the start of v1
   * histories without old clients (a bucket no index names anything in
   * yet), inserted from a generator of its own (see {@link insertForeign}).
   */
  | {
    readonly id: number;
    readonly kind: "foreign";
    readonly what: "file" | "shared" | "version";
    readonly file?: number;
    readonly model?: number;
    readonly data?: number;
    readonly version?: number;
    readonly marker?: boolean;
  }
  /**
   * Another tool (a script, a lifecycle rule, a hand) deletes the object of
   * one of {@link SHARED_FILES} (`file`) straight from the bucket, with no
   * lock and no index update: the index names an object that is gone, and
   * the clones that synced it may hold the last copies. With `run`, it
   * deletes instead the `raw` output of the version that run (an operation's
   * id) wrote, if the run succeeded (nothing otherwise). Inserted from a
   * generator of its own (see {@link insertVanish}). With `run` and
   * `rewrite`, that `raw` is not deleted but published again with other
   * bytes by another client of the layout (an existing extension whose
   * fast path skipped the commit that published it numbers its own run's
   * version the same): a plain put and its index entry, written at once.
   * With `run` and `blind`, that `raw` is deleted, object and index entry at
   * once, by an older client's push that never had it (swamp's existing
   * extensions walk a stale dirty directory of another model and delete
   * every indexed file their cache lacks).
   */
  | {
    readonly id: number;
    readonly kind: "vanish";
    readonly file: number;
    readonly run?: number;
    readonly rewrite?: boolean;
    readonly blind?: boolean;
  }
  /**
   * A second process of the tool over the clone's cache directory (swamp
   * runs models of one repository at once, each process with its own
   * service over the same cache): it takes the lock of a model of its own,
   * writes version 1 of that model's data, marks it dirty and, `workMs`
   * later (the clone's own commands going on meanwhile), pushes it
   * (`push`) or dies before its push (`dies`: its service dropped, its
   * lock left to expire). Or, on a core-driven clone (`structural`: see
   * {@link markSiblingStructural}), it runs a structural command instead,
   * `workMs` after it starts: the global lock, a pull naming no model and a
   * push naming none, beside the runs of the clone's own process, whose held
   * locks are not its own. Either way the clone's final sync runs in a
   * process started afresh on that cache. Inserted from a generator of its
   * own (see {@link insertSiblings}).
   */
  | {
    readonly id: number;
    readonly kind: "sibling";
    readonly clone: number;
    readonly how: "push" | "dies" | "structural";
    readonly workMs: number;
  }
  /**
   * The clone's cache is replaced by a copy of clone `from`'s, state and
   * all (a backup restored on another machine, a CI cache restored on
   * another runner): its process stops, its directory takes the copy, and
   * it starts again there, the same user going on (its own unpushed changes
   * were given up with its old directory). Made only while neither clone
   * runs a command, and only between clones of one kind (a library's cache
   * and the tool's keep their state apart). Inserted from a generator of
   * its own (see {@link insertCopies}).
   */
  | {
    readonly id: number;
    readonly kind: "copy";
    readonly clone: number;
    readonly from: number;
  }
  /**
   * An old client on the clone's machine writes the bytes run `run` (a
   * deterministic run, whose model lock a breakglass broke) wrote at its
   * version's path, a plain put and its index entry at once, the moment
   * that run's erasure, refused, is about to delete its upload there while
   * no other writer holds that model's lock, under which alone an old client
   * writes a model's data (aimed: the scheduler goes on, a few hundred
   * decisions at most, with choices drawn from `pick`, until then; nothing
   * happens when it never comes). On a store whose versions are the bytes' (`etag`), its object
   * keeps the upload's version. Only in histories with `oldClients`.
   */
  | {
    readonly id: number;
    readonly kind: "oldsame";
    readonly clone: number;
    readonly run: number;
    readonly pick: number;
  }
  /**
   * Another tool (a script, a restore, an old or misconfigured client)
   * publishes a version of a model's data in the middle of the history,
   * honouring no lock: `raw` and `metadata.yaml` of its own (see
   * {@link locklessObjects}), with `marker` that data's `latest` marker too
   * (only with `indexed`),
   * at the version number run `run` (an operation's id) is writing. Aimed,
   * as the `oldsame` move: the scheduler goes on (a few hundred decisions
   * at most, with choices drawn from `pick`) until that run holds its model
   * lock with its version written here in full and none of it on the store
   * (not flushed yet), and no move of the index runs; then it writes at
   * once, past faults, between two scheduling decisions (nothing happens
   * when that moment never comes). With `indexed`, its index entries too,
   * as another client of the layout writes them (a plain put and an
   * unconditional read-modify-write of the index: `peerPush`); without, the
   * objects alone. Inserted from a generator of its own (see
   * {@link insertLockless}).
   */
  | {
    readonly id: number;
    readonly kind: "lockless";
    readonly run: number;
    readonly pick: number;
    readonly indexed: boolean;
    readonly marker?: boolean;
  }
  /**
   * Another process over the clone's cache, its disk full, dies part way
   * through a line it writes ahead to the synced manifest's log: the
   * clone's `.sluice/manifest.log` gains a prefix (cut at a length drawn
   * from `pick`) of a well-formed line of the base's generation recording
   * `file`, with no newline. Aimed: the scheduler goes on (a few decisions
   * at most, with choices drawn from `pick`) until the clone's command is
   * parked on a download (its pull's, which writes its record ahead right
   * after), or ends. Nothing happens when the cache has no base (no process
   * writes ahead then). The clone's final sync then runs in a
   * process started afresh on that cache, as with a `sibling`. Inserted from
   * a generator of its own (see {@link insertTornLogs}).
   */
  | {
    readonly id: number;
    readonly kind: "torn";
    readonly clone: number;
    readonly file: number;
    readonly pick: number;
  }
  /**
   * A damaged disk block under the clone's cache: one whole line of its
   * `.sluice/manifest.log` that is not the last is replaced by garbage bytes
   * of the same length (zeros or noise, never a newline; the line's newline
   * kept): the line holding the latest record of `file` when there is one
   * before the last, else one drawn from `pick`. The scheduler first goes on (a few
   * decisions at most, with choices drawn from `pick`) until the clone's
   * command ends. Then the clone's process restarts, as a `crash` does: the
   * process started afresh on the cache reads the manifest, the damaged
   * line's record alone lost (I30). Nothing happens when the log has no
   * line before its last. Inserted from a generator of its own (see
   * {@link insertDamagedLogs}).
   */
  | {
    readonly id: number;
    readonly kind: "damaged";
    readonly clone: number;
    readonly file: number;
    readonly pick: number;
  }
  /** `n` scheduling decisions, their choices drawn from a generator seeded with `pick`. */
  | { readonly id: number; readonly kind: "tick"; readonly n: number; readonly pick: number }
  /** Fake time passes (timers fire: heartbeats, lock waits, TTLs). */
  | { readonly id: number; readonly kind: "wait"; readonly ms: number };

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
  /** The operations, in order. */
  readonly ops: readonly Op[];
}

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

/**
 * Generates the history of `seed`: 2 to 5 clones and a mix of model runs,
 * syncs, bulk pushes, config edits, lockfile transactions, breakglasses,
 * outages, latency, flaky calls, crashes, waits and scheduling ticks.
 *
 * @example
 * ```ts
 * import { generateHistory, formatHistory } from "./history.ts";
 * console.log(formatHistory(generateHistory(7)));
 * ```
 */
export function generateHistory(seed: number, options: GenerateOptions = {}): History {
  const rng = new Rng(seed);
  const weights = options.weights ? { ...WEIGHTS, ...options.weights } : WEIGHTS;
  const clones = rng.range(options.minClones ?? 2, options.maxClones ?? 5);
  const length = rng.range(options.minOps ?? 15, options.maxOps ?? 45);
  const absentOnError = rng.chance(0.3);
  const v2 = rng.chance(0.3);
  const ops: Op[] = [];
  const entries: string[] = [];
  let outage = false;
  let lastModel = 0;
  let migrated = false;
  // Follow-ups planned by earlier operations: [due at ops.length, kind].
  const planned: {
    due: number;
    kind: "outage-off" | "breakglass" | "adopt" | "edit" | "run" | "stall";
    model: number;
    clone?: number;
    data?: number;
    on?: boolean;
  }[] = [];
  for (let id = 0; ops.length < length; id++) {
    const due = planned.findIndex((p) => p.due <= ops.length);
    if (due >= 0) {
      const [p] = planned.splice(due, 1);
      if (p.kind === "breakglass") ops.push({ id, kind: "breakglass", model: p.model });
      else if (p.kind === "adopt") {
        ops.push({ id, kind: "adopt", clone: p.clone!, file: p.model });
      } else if (p.kind === "stall") {
        ops.push({ id, kind: "stall", clone: p.clone!, on: p.on! });
      } else if (p.kind === "run") {
        ops.push({
          id,
          kind: "run",
          clone: p.clone!,
          model: p.model,
          data: p.data!,
          workMs: 0,
          same: true,
        });
      } else if (p.kind === "edit") {
        ops.push({ id, kind: "edit", clone: p.clone!, file: p.model, how: "push" });
      } else if (outage) {
        outage = false;
        ops.push({ id, kind: "outage", on: false });
      }
      continue;
    }
    const kind = rng.weighted(weights);
    const clone = rng.int(clones);
    switch (kind) {
      case "run": {
        lastModel = rng.chance(0.7) ? lastModel : rng.int(MODELS.length);
        const data = rng.int(DATA_NAMES.length);
        const same = rng.chance(0.25);
        ops.push({
          id,
          kind,
          clone,
          model: lastModel,
          data,
          workMs: rng.pick([0, 1_000, 5_000, 15_000, 15_000, 45_000]),
          ...(same ? { same: true } : {}),
        });
        if (rng.chance(0.3)) {
          const due = ops.length + rng.range(1, 4);
          // The run's process stops (in its push, perhaps) while its lock
          // is broken, and the lock's new holder runs the same
          // deterministic method, of the same version: it writes what the
          // stopped run wrote. The stopped run goes on afterwards.
          const stop = same && clones > 1 && rng.chance(0.5);
          if (stop) planned.push({ due, kind: "stall", model: 0, clone, on: true });
          planned.push({ due, kind: "breakglass", model: lastModel });
          // It goes on after the new holder's run, or at once, beside it (whose
          // writes may then meet its uploads just before its erasure).
          if (stop) {
            const resume = due + (rng.chance(0.5) ? 2 : 3);
            planned.push({ due: resume, kind: "stall", model: 0, clone, on: false });
          }
          if (same && clones > 1) {
            planned.push({
              due: due + 1,
              kind: "run",
              model: lastModel,
              data,
              clone: (clone + rng.range(1, clones - 1)) % clones,
            });
          }
        }
        break;
      }
      case "tick":
        ops.push({ id, kind, n: rng.range(1, 40), pick: rng.int(2 ** 31) });
        break;
      case "wait":
        ops.push({ id, kind, ms: rng.pick([1_000, 5_000, 11_000, 31_000, 65_000]) });
        break;
      case "breakglass":
        ops.push({
          id,
          kind,
          model: rng.chance(0.1) ? null : rng.chance(0.8) ? lastModel : rng.int(MODELS.length),
        });
        break;
      case "outage":
        outage = !outage;
        ops.push({ id, kind, on: outage });
        if (outage && rng.chance(0.7)) {
          planned.push({ due: ops.length + rng.range(1, 5), kind: "outage-off", model: 0 });
        }
        break;
      case "latency":
        ops.push({ id, kind, ms: rng.pick([0, 0, 500, 3_000]) });
        break;
      case "flaky":
        ops.push({
          id,
          kind,
          call: rng.pick(["get", "head", "put", "put", "delete"] as const),
          count: rng.range(1, 3),
          afterEffect: rng.chance(0.5),
        });
        break;
      case "crash":
        ops.push(
          rng.chance(0.35)
            ? { id, kind, clone, at: rng.chance(0.7) ? "commit" : "answer" }
            : { id, kind, clone },
        );
        // A peer takes the crashed clone for gone: it adopts its uncommitted writes.
        if (clones > 1 && rng.chance(0.3)) {
          planned.push({
            due: ops.length + rng.range(1, 4),
            kind: "adopt",
            model: rng.int(SHARED_FILES.length),
            clone: (clone + rng.range(1, clones - 1)) % clones,
          });
        }
        break;
      case "edit":
        ops.push({
          id,
          kind,
          clone,
          file: rng.int(SHARED_FILES.length),
          how: rng.pick(["hand", "hand", "hand-tick", "mark", "push", "push", "revert"] as const),
        });
        break;
      case "delete": {
        const file = rng.int(SHARED_FILES.length);
        const how = rng.pick(["hand", "hand", "hand", "push", "push", "push", "dir"] as const);
        ops.push({ id, kind, clone, file, how });
        // Another clone edits the same file and pushes while the deletion's
        // push is under way: the two race for the object and the index.
        if (how !== "hand" && clones > 1 && rng.chance(0.4)) {
          planned.push({
            due: ops.length,
            kind: "edit",
            model: file,
            clone: (clone + rng.range(1, clones - 1)) % clones,
          });
        }
        break;
      }
      case "marker":
        ops.push({
          id,
          kind,
          clone,
          model: rng.chance(0.7) ? lastModel : rng.int(MODELS.length),
          data: rng.int(DATA_NAMES.length),
          back: rng.chance(0.3),
          how: rng.pick(["push", "push", "push", "hand", "revert"] as const),
        });
        break;
      case "resolve":
        ops.push({
          id,
          kind,
          clone,
          pick: rng.int(8),
          how: rng.pick(["mine", "theirs", "merged"] as const),
        });
        break;
      case "lockfile": {
        const r = rng.next();
        if (r < 0.65 || entries.length === 0) {
          const name = `@chaos/ext-${id}`;
          entries.push(name);
          ops.push({ id, kind, clone, set: name });
        } else if (r < 0.9) {
          ops.push({ id, kind, clone, remove: rng.pick(entries) });
        } else {
          ops.push({ id, kind, clone });
        }
        break;
      }
      case "bulk":
        ops.push({ id, kind, clone });
        break;
      case "adopt":
        ops.push({ id, kind, clone, file: rng.int(SHARED_FILES.length) });
        break;
      case "config":
        ops.push({ id, kind, clone, file: rng.int(3) });
        break;
      case "sync":
        ops.push({ id, kind, clone });
        if (rng.chance(0.25)) {
          // The user edits or deletes a file by hand while the sync is under
          // way (see the workload: aimed at a download in flight).
          const file = rng.int(SHARED_FILES.length);
          const pick = rng.int(2 ** 31);
          ops.push(
            rng.chance(0.7)
              ? { id: ++id, kind: "edit", clone, file, how: "during", pick }
              : { id: ++id, kind: "delete", clone, file, how: "during", pick },
          );
        }
        break;
      case "migrate":
        // Once, on a v1 bucket; otherwise a sync.
        ops.push({ id, kind: v2 || migrated ? "sync" : kind, clone });
        migrated = true;
        break;
    }
  }
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const oldRng = new Rng(mixSeed(seed, 0x6f6c6421));
  const oldClients = oldRng.chance(options.oldShare ?? 0.25);
  let etag = false;
  if (oldClients) {
    // No stall beside old clients (a stalled holder of the global lock has
    // it taken over, which loses writes by design): the planned ones go.
    for (let i = ops.length - 1; i >= 0; i--) if (ops[i].kind === "stall") ops.splice(i, 1);
    insertOldPushes(ops, clones, oldRng);
    // From a generator of their own: the pushes above stay as they were.
    insertOldPulls(ops, clones, new Rng(mixSeed(seed, 0x6f6c7050)));
    // From a generator of their own: the operations above stay as they were.
    const etagRng = new Rng(mixSeed(seed, 0x65746167));
    etag = etagRng.chance(options.etagShare ?? 0.5);
    if (etag) insertOldSame(ops, clones, etagRng);
  } else {
    insertStalls(ops, clones, new Rng(mixSeed(seed, 0x7374616c)), options.stallShare ?? 0.35, !v2);
    const moveShare = (options.stallShare ?? 0.35) / 3;
    insertMoveStall(ops, clones, new Rng(mixSeed(seed, 0x6d6f7665)), moveShare, !v2);
  }
  // Last, from a generator of their own: the operations above stay as they were.
  insertReshapes(ops, clones, new Rng(mixSeed(seed, 0x72736870)), options.reshapeShare ?? 0.2);
  // From a generator of their own: the operations above stay as they were.
  // Before another tool's first writes, which must come first of all.
  if (!oldClients) {
    insertVanish(ops, clones, new Rng(mixSeed(seed, 0x76616e69)), options.vanishShare ?? 0.2);
  }
  // Last, from a generator of their own: the operations above stay as they were.
  if (!v2 && !oldClients) {
    insertForeign(ops, clones, new Rng(mixSeed(seed, 0x666f7267)), options.foreignShare ?? 0.25);
  }
  // From a generator of their own: the operations above stay as they were.
  markStreamed(ops, seed, options.streamedShare ?? 0.3);
  markParallel(ops, seed, options.parallelShare ?? 0.3);
  markStructural(ops, seed, options.structuralShare ?? 0.3);
  markRewrites(ops, seed, options.rewriteShare ?? 0.4);
  markBlinds(ops, seed, options.blindShare ?? 0.4);
  insertUnwritten(ops, clones, new Rng(mixSeed(seed, 0x756e7772)), options.unwrittenShare ?? 0.25);
  insertSiblings(
    ops,
    clones,
    new Rng(mixSeed(seed, 0x73696273)),
    options.sharedCacheShare ?? 0.1,
  );
  // From a generator of their own: the operations above stay as they were.
  insertCopies(ops, clones, new Rng(mixSeed(seed, 0x636f7079)), options.copyShare ?? 0.1);
  // From a generator of their own: the operations above stay as they were.
  insertOwnLost(ops, clones, new Rng(mixSeed(seed, 0x6f776e6c)), options.ownLostShare ?? 0.1);
  // From a generator of their own: the operations above stay as they were.
  insertMarkerRaces(
    ops,
    clones,
    new Rng(mixSeed(seed, 0x6d6b7263)),
    options.markerRaceShare ?? 0.5,
  );
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const kindRng = new Rng(mixSeed(seed, 0x636f7265));
  const share = options.coreShare ?? 0.4;
  const kinds = Array.from({ length: clones }, (): ClientKind => {
    const r = kindRng.next();
    return r >= share ? "api" : r < share / 3 ? "core-single-phase" : "core";
  });
  // From a generator of their own: the operations above stay as they were.
  markSiblingStructural(ops, seed, kinds, options.structuralShare ?? 0.3);
  // From a generator of its own: the operations above stay as they were.
  if (!oldClients) {
    insertLockless(ops, kinds, new Rng(mixSeed(seed, 0x6c6b6c73)), options.locklessShare ?? 0.1);
  }
  // From a generator of its own: the operations above stay as they were.
  insertTornLogs(ops, clones, new Rng(mixSeed(seed, 0x746f726e)), options.tornLogShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  insertDamagedLogs(
    ops,
    clones,
    new Rng(mixSeed(seed, 0x646d6764)),
    options.damagedLogShare ?? 0.1,
  );
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const skewRng = new Rng(mixSeed(seed, 0x736b6577));
  let skewMs: number[] | undefined;
  if (skewRng.chance(options.skewShare ?? 0.2)) {
    const [lo, hi] = SKEW_RANGE_MS;
    skewMs = Array.from({ length: clones }, () => 0);
    skewMs[skewRng.int(clones)] = (skewRng.chance(0.5) ? 1 : -1) * (lo + skewRng.int(hi - lo));
  }
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const indexFirst = new Rng(mixSeed(seed, 0x69647866)).chance(options.indexFirstShare ?? 0.3);
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const checkedDeletes = new Rng(mixSeed(seed, 0x63686b64)).chance(
    options.checkedDeleteShare ?? 0.15,
  );
  return {
    seed,
    clones,
    ...(absentOnError ? { absentOnError } : {}),
    ...(v2 ? { v2 } : {}),
    ...(kinds.some((k) => k !== "api") ? { kinds } : {}),
    ...(oldClients ? { oldClients } : {}),
    ...(skewMs ? { skewMs } : {}),
    ...(indexFirst ? { indexFirst } : {}),
    ...(etag ? { etag } : {}),
    ...(checkedDeletes ? { checkedDeletes } : {}),
    ops,
  };
}

/**
 * Makes `ops` a mixed fleet's: a breakglass of the global lock becomes one
 * of a model's lock (breaking the lock an old client's index rewrite
 * relies on loses writes by design), and two to six old-client pushes are
 * inserted at random places, with ids after every other: half of them a new
 * file of the old client's own, a third an edit of a shared file, a sixth
 * its deletion.
 */
function insertOldPushes(ops: Op[], clones: number, rng: Rng): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind === "breakglass" && op.model === null) ops[i] = { ...op, model: 0 };
  }
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(2, 6); n > 0; n--) {
    const at = rng.int(ops.length + 1);
    const clone = rng.int(clones);
    const what = rng.int(6);
    const file = what >= 3 ? { file: rng.int(SHARED_FILES.length) } : {};
    ops.splice(at, 0, {
      id: id++,
      kind: "oldpush",
      clone,
      ...file,
      ...(what === 5 ? { del: true } : {}),
    });
  }
}

/**
 * After each `latest` marker moved back and pushed, with chance `share`,
 * another clone's push of the same marker moved forward (its highest
 * version), right after, before any sync of that clone: the two race, and
 * the second is based on the marker as it was before the move back. A
 * marker moved back on purpose is a committed change like any edit (I9):
 * never written over by a writer that had not seen it.
 */
function insertMarkerRaces(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (clones < 2 || share <= 0) return;
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let i = ops.length - 1; i >= 0; i--) {
    const m = ops[i];
    if (m.kind !== "marker" || !m.back || m.how !== "push" || !rng.chance(share)) continue;
    const clone = (m.clone + rng.range(1, clones - 1)) % clones;
    ops.splice(i + 1, 0, { ...m, id: id++, clone, back: false });
  }
}

/**
 * After each breakglass that follows a deterministic run of its model
 * (within four operations), inserts, with chance one half, an old client's
 * write of that run's bytes (see the `oldsame` {@link Op}) on another
 * clone's machine, with ids after every other.
 */
function insertOldSame(ops: Op[], clones: number, rng: Rng): void {
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let i = ops.length - 1; i >= 0; i--) {
    const b = ops[i];
    if (b.kind !== "breakglass" || b.model === null) continue;
    const run = ops.slice(Math.max(0, i - 4), i).reverse().find((o) =>
      o.kind === "run" && o.same === true && o.model === b.model
    ) as Extract<Op, { kind: "run" }> | undefined;
    if (!run || !rng.chance(0.5)) continue;
    const clone = clones < 2 ? run.clone : (run.clone + rng.range(1, clones - 1)) % clones;
    ops.splice(i + 1, 0, { id: id++, kind: "oldsame", clone, run: run.id, pick: rng.int(2 ** 31) });
  }
}

/**
 * Inserts one to three old-client pulls (see the `oldpull` {@link Op}) at
 * random places (half of them right after a deletion), with ids after every
 * other.
 */
function insertOldPulls(ops: Op[], clones: number, rng: Rng): void {
  let id = Math.max(0, ...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 3); n > 0; n--) {
    // Half of them right after a clone's deletion, which removes the object
    // before its entry: the pull may meet it missing, its commit on the way.
    // (On another clone's machine: a clone's commands run one at a time.)
    const deletions = ops.flatMap((o, i) => o.kind === "delete" ? [i] : []);
    const after = deletions.length && rng.chance(0.5)
      ? deletions[rng.int(deletions.length)]
      : undefined;
    const by = after === undefined ? undefined : (ops[after] as { clone: number }).clone;
    const clone = by === undefined || clones < 2
      ? rng.int(clones)
      : (by + rng.range(1, clones - 1)) % clones;
    const at = after === undefined ? rng.int(ops.length + 1) : after + 1;
    ops.splice(at, 0, { id: id++, kind: "oldpull", clone });
  }
}

/**
 * Inserts one or two stalls (a clone stopped, then going on some operations
 * later, or at the end) into `ops`, in a share of histories; a stall armed
 * to come after a v1 index write often gets a move to v2 by another clone
 * before it goes on, and sometimes a shared file that the stopped clone
 * edits and the mover then changes too. The stall
 * operations take ids after every other, so the others keep theirs, and a
 * seed without stalls generates what it did before stalls existed.
 */
function insertStalls(ops: Op[], clones: number, rng: Rng, share: number, v1: boolean): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const clone = rng.int(clones);
    const at = rng.int(ops.length);
    const off = at + rng.range(2, 12);
    const armed = rng.chance(0.4);
    // Later positions first, so that `at` still points where it did.
    if (off < ops.length) ops.splice(off, 0, { id: id++, kind: "stall", clone, on: false });
    // A stop armed after a v1 index write is there for the move to v2 that
    // may run meanwhile: on a v1 bucket, another clone often moves it then
    // (just before the stopped clone goes on), and sometimes the stopped
    // clone's commit is an edit of a shared file that the mover then edits
    // or deletes on the v2 bucket, before the stopped commit goes on.
    const aimed = armed && v1 && clones > 1 && rng.chance(0.5);
    const mover = aimed ? (clone + rng.range(1, clones - 1)) % clones : 0;
    const file = rng.int(SHARED_FILES.length);
    const race = aimed && rng.chance(0.5);
    if (aimed) {
      const end = Math.min(off, ops.length);
      // Queued commands run only as the scheduler goes on: time for them
      // before the stopped clone goes on.
      ops.splice(end, 0, { id: id++, kind: "tick", n: rng.range(40, 80), pick: rng.int(2 ** 31) });
      if (race) {
        // After a sync: a clone that never synced the file has nothing to delete.
        ops.splice(
          end,
          0,
          { id: id++, kind: "sync", clone: mover },
          rng.chance(0.5)
            ? { id: id++, kind: "delete", clone: mover, file, how: "push" }
            : { id: id++, kind: "edit", clone: mover, file, how: "push" },
        );
      }
      ops.splice(end, 0, { id: id++, kind: "migrate", clone: mover });
    }
    if (race) ops.splice(at, 0, { id: id++, kind: "edit", clone, file, how: "push" });
    ops.splice(
      at,
      0,
      armed
        ? { id: id++, kind: "stall", clone, on: true, at: "companions" }
        : { id: id++, kind: "stall", clone, on: true },
    );
  }
}

/** The indexes in {@link SHARED_FILES} of the files a reshape replaces (`notes/`). */
export const RESHAPED_FILES: readonly number[] = SHARED_FILES.flatMap((f, i) =>
  f.startsWith("notes/") ? [i] : []
);

/**
 * Inserts, in a share of histories, one or two reshapes (a `notes/` file
 * replaced by a directory of its name, or back; see the `reshape` {@link Op}),
 * each often after an edit of that file pushed by the same clone (so that it
 * has a synced file to replace), and in most of them a second reshape of the
 * same path a few operations later, by the same clone or by another after a
 * sync of its own (so that a synced directory is replaced by a file again).
 * From a generator of its own, with ids after every other operation's, like
 * {@link insertStalls}: the other operations of a seed stay as they were.
 */
function insertReshapes(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const how = () => rng.pick(["hand", "push", "push"] as const);
  for (let n = rng.range(1, 2); n > 0; n--) {
    const file = rng.pick(RESHAPED_FILES);
    const clone = rng.int(clones);
    const at = rng.int(ops.length + 1);
    const first: Op[] = [];
    if (rng.chance(0.6)) first.push({ id: id++, kind: "edit", clone, file, how: "push" });
    first.push({ id: id++, kind: "reshape", clone, file, how: how() });
    const later: Op[] = [];
    if (rng.chance(0.7)) {
      const other = clones > 1 && rng.chance(0.6)
        ? (clone + rng.range(1, clones - 1)) % clones
        : clone;
      if (other !== clone || rng.chance(0.3)) later.push({ id: id++, kind: "sync", clone: other });
      later.push({ id: id++, kind: "reshape", clone: other, file, how: how() });
    }
    // Later positions first, so that `at` still points where it did.
    if (later.length > 0) ops.splice(Math.min(at + rng.range(0, 6), ops.length), 0, ...later);
    ops.splice(at, 0, ...first);
  }
}

/**
 * Inserts, in a share of histories, one to three writes of another tool
 * (see the `foreign` {@link Op}) at the start, into a bucket no index names
 * anything in yet: each a file of its own, a shared file, or a data version
 * (most often version 1, the one a clone's first run writes too, and often
 * with its latest marker). In most of them a clone's model run of that
 * data, or its edit of that shared file, follows at once, before any pull:
 * its first push writes where the other tool wrote. In some, a clone's move
 * to v2 comes first, cut off by its crash a few decisions in, and another
 * clone runs the move again. Ids after every other operation's, like
 * {@link insertStalls}.
 */
function insertForeign(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const first: Op[] = [];
  const then: Op[] = [];
  for (let n = rng.range(1, 3); n > 0; n--) {
    const r = rng.next();
    const clone = rng.int(clones);
    if (r < 0.3) {
      first.push({ id: id++, kind: "foreign", what: "file" });
    } else if (r < 0.6) {
      const file = rng.int(SHARED_FILES.length);
      first.push({ id: id++, kind: "foreign", what: "shared", file });
      if (rng.chance(0.6)) then.push({ id: id++, kind: "edit", clone, file, how: "push" });
    } else {
      const model = rng.int(MODELS.length);
      const data = rng.int(DATA_NAMES.length);
      const version = rng.chance(0.8) ? 1 : 2;
      const marker = rng.chance(0.6);
      first.push({
        id: id++,
        kind: "foreign",
        what: "version",
        model,
        data,
        version,
        ...(marker ? { marker } : {}),
      });
      if (rng.chance(0.7)) {
        then.push({ id: id++, kind: "run", clone, model, data, workMs: 0 });
      }
    }
  }
  // Sometimes a clone moves the bucket to v2 at once, its process dies a few
  // decisions into the move (its shard writes, perhaps), and another clone
  // runs the move again once the dead one's global lock has gone stale.
  if (rng.chance(0.3)) {
    const mover = rng.int(clones);
    const again = clones > 1 ? (mover + rng.range(1, clones - 1)) % clones : mover;
    first.push(
      { id: id++, kind: "migrate", clone: mover },
      { id: id++, kind: "tick", n: rng.range(3, 30), pick: rng.int(2 ** 31) },
      { id: id++, kind: "crash", clone: mover },
      { id: id++, kind: "wait", ms: 65_000 },
      { id: id++, kind: "migrate", clone: again },
    );
  }
  ops.splice(0, 0, ...first, ...then);
}

/**
 * Inserts, in a share of histories, a file a clone creates whose commit's
 * answer is lost, then made a directory and pushed, that push cut off
 * between its delete and the index update after it: the clone's crash
 * armed at `answer`, its push of the file (its index write lands, the clone
 * dies before the answer), a crash armed at `commit`, and the reshape
 * pushed. The push that drops the clone's own committed upload at that
 * name must take the index entry naming it out before the upload, beside
 * old clients' entries too (a review found the removal left out there:
 * every conditional removal is checked against the store, which still held
 * the upload). From a generator of its own, with ids after every other
 * operation's.
 */
function insertOwnLost(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const file = rng.pick(RESHAPED_FILES);
  const block: Op[] = [
    { id: id++, kind: "crash", clone, at: "answer", queued: true },
    { id: id++, kind: "edit", clone, file, how: "push" },
    { id: id++, kind: "crash", clone, at: "commit", queued: true },
    { id: id++, kind: "reshape", clone, file, how: "push" },
  ];
  ops.splice(rng.int(ops.length + 1), 0, ...block);
}

/**
 * Inserts, in a share of histories, another tool's deletion of a shared
 * file's object (see the `vanish` {@link Op}) at a random place: a clone
 * edits and pushes the file first (in two fifths of them, runs a model
 * instead, whose version's `raw` output is then deleted), then the object goes, and another clone
 * (one that has not pulled it since) pulls, then, 16 minutes later (in
 * steps, the scheduler going on between them), pulls again: past the 15 minutes after which a pull removes an index entry
 * naming nothing, which every clone then meets. Sometimes the editing clone
 * syncs last; sometimes the other clone first writes the file, its push cut
 * off after the upload, then deletes it and pushes (see below). Ids after
 * every other operation's, like {@link insertStalls}.
 */
function insertVanish(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const file = rng.int(SHARED_FILES.length);
  const writer = rng.int(clones);
  const late = (writer + rng.range(1, clones - 1)) % clones;
  const block: Op[] = [
    { id: id++, kind: "edit", clone: writer, file, how: "push" },
    { id: id++, kind: "tick", n: rng.range(2, 40), pick: rng.int(2 ** 31) },
    { id: id++, kind: "vanish", file },
    { id: id++, kind: "sync", clone: late },
  ];
  // 16 minutes, in steps the other commands go on between (one long wait
  // would stop them past their own budget of fake time).
  for (let i = 0; i < 12; i++) {
    block.push(
      { id: id++, kind: "tick", n: 20, pick: rng.int(2 ** 31) },
      { id: id++, kind: "wait", ms: 80_000 },
    );
  }
  block.push({ id: id++, kind: "sync", clone: late });
  if (rng.chance(0.5)) block.push({ id: id++, kind: "sync", clone: writer });
  // In a share of them, the other clone writes the file before its first
  // pull (nothing is in the way of a create there), its push cut off after
  // the upload landed (before its commit), then deletes it and pushes: its
  // withdrawal of that upload must not take the writer's committed change,
  // which the writer then pulls past (I19 holds it to keep its copy).
  if (rng.chance(0.35)) {
    block.splice(
      3,
      1,
      // Its reads fail past the retries: the upload lands, the commit does not.
      { id: id++, kind: "flaky", call: "get", count: 6, afterEffect: false },
      { id: id++, kind: "edit", clone: late, file, how: "push" },
      { id: id++, kind: "delete", clone: late, file, how: "push" },
    );
    block.push({ id: id++, kind: "sync", clone: writer });
  }
  const at = rng.int(ops.length + 1);
  // Drawn last, so that the shared-file blocks stay as they were drawn before.
  if (rng.chance(0.4)) {
    const run = block[0].id;
    const model = rng.int(MODELS.length);
    const data = rng.int(DATA_NAMES.length);
    block[0] = { id: run, kind: "run", clone: writer, model, data, workMs: 0 };
    // A run takes more steps than an edit's push (its lock, its marker).
    const tick = block[1] as Extract<Op, { kind: "tick" }>;
    block[1] = { ...tick, n: rng.range(60, 160) };
    block[2] = { id: block[2].id, kind: "vanish", file, run };
  }
  ops.splice(at, 0, ...block);
}

/**
 * Inserts, in a share of histories, one or two marks whose writes never
 * came (see the `unwritten` {@link Op}) at random places, with ids after
 * every other.
 */
function insertUnwritten(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const op: Op = {
      id: id++,
      kind: "unwritten",
      clone: rng.int(clones),
      file: rng.int(SHARED_FILES.length),
    };
    // After another tool's first writes, which come first of all.
    const first = ops.findIndex((o) => o.kind !== "foreign");
    const from = first < 0 ? ops.length : first;
    ops.splice(from + rng.int(ops.length - from + 1), 0, op);
  }
}

/**
 * Inserts, in a share of histories, one or two second processes over a
 * clone's cache (see the `sibling` {@link Op}) at random places, each
 * followed at once by a model run or a sync of that clone's own process,
 * whose commit then lands while the second one's marks stand unpushed. Ids
 * after every other operation's, like {@link insertStalls}.
 */
function insertSiblings(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const clone = rng.int(clones);
    const block: Op[] = [{
      id: id++,
      kind: "sibling",
      clone,
      how: rng.chance(0.6) ? "dies" : "push",
      workMs: rng.pick([5_000, 15_000, 45_000]),
    }];
    block.push(
      rng.chance(0.6)
        ? {
          id: id++,
          kind: "run",
          clone,
          model: rng.int(MODELS.length),
          data: rng.int(DATA_NAMES.length),
          workMs: 0,
        }
        : { id: id++, kind: "sync", clone },
      { id: id++, kind: "tick", n: rng.range(20, 80), pick: rng.int(2 ** 31) },
    );
    // After another tool's first writes, which come first of all.
    const first = ops.findIndex((o) => o.kind !== "foreign");
    const from = first < 0 ? ops.length : first;
    ops.splice(from + rng.int(ops.length - from + 1), 0, ...block);
  }
}

/**
 * Inserts, in a share of histories with two clones or more, one copy of a
 * clone's cache over another's (see the `copy` {@link Op}) at a random
 * place, followed by an edit of one shared file by both (the one copied
 * from pushing first, the copy syncing after: the copy must take the
 * other's committed edit for a peer's, never for its own) and a tick. Ids
 * after every other operation's, like {@link insertStalls}.
 */
function insertCopies(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const from = (clone + rng.range(1, clones - 1)) % clones;
  const file = rng.int(SHARED_FILES.length);
  const block: Op[] = [
    { id: id++, kind: "copy", clone, from },
    { id: id++, kind: "edit", clone: from, file, how: "push" },
    { id: id++, kind: "edit", clone, file, how: "hand" },
    { id: id++, kind: "sync", clone },
    { id: id++, kind: "tick", n: rng.range(20, 80), pick: rng.int(2 ** 31) },
  ];
  // After another tool's first writes, which come first of all.
  const first = ops.findIndex((o) => o.kind !== "foreign");
  const at = first < 0 ? ops.length : first;
  ops.splice(at + rng.int(ops.length - at + 1), 0, ...block);
}

/**
 * Marks each deletion of a run's output that is no rewrite as an older
 * client's blind push (see the `vanish` {@link Op}) with chance `share`,
 * drawn per operation (by its id) from a generator of its own.
 */
function markBlinds(ops: Op[], seed: number, share: number): void {
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "vanish" || op.run === undefined || op.rewrite) continue;
    if (new Rng(mixSeed(seed, 0x626c6e00 + op.id)).chance(share)) ops[i] = { ...op, blind: true };
  }
}

/**
 * Marks each deletion of a run's output as a rewrite of it instead (see the
 * `vanish` {@link Op}) with chance `share`, drawn per operation (by its id).
 */
function markRewrites(ops: Op[], seed: number, share: number): void {
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "vanish" || op.run === undefined) continue;
    if (new Rng(mixSeed(seed, 0x72770000 + op.id)).chance(share)) ops[i] = { ...op, rewrite: true };
  }
}

/**
 * In a share of histories, marks about half the runs (not the deterministic
 * ones), each by its id, as streaming their output (see the `run` {@link Op}'s `streamed`); a run
 * of an API clone ignores it.
 */
function markStreamed(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x73747265)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    // Drawn per operation (by its id): the same run is marked whatever else was inserted.
    if (op.kind !== "run" || op.same) continue;
    if (new Rng(mixSeed(seed, 0x73740000 + op.id)).chance(0.5)) ops[i] = { ...op, streamed: true };
  }
}

/**
 * In a share of histories, marks about half the runs (not the deterministic
 * nor the streamed ones), each by its id, as having another step of their workflow run beside
 * them in the same process (see the `run` {@link Op}'s `parallel`); a run of
 * an API clone ignores it.
 */
function markParallel(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x70617261)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "run" || op.same || op.streamed) continue;
    if (new Rng(mixSeed(seed, 0x70610000 + op.id)).chance(0.5)) ops[i] = { ...op, parallel: true };
  }
}

/**
 * In a share of histories, marks about half the `parallel` runs, each by its
 * id, as having a structural command of their process run beside them (see
 * the `run` {@link Op}'s `structural`).
 */
/**
 * Makes, in a share of histories, half the second processes that push over
 * a core-driven clone's cache run a structural command instead (see the
 * `sibling` {@link Op}): a pull naming no model in another process than the
 * clone's runs, which hold their locks there. The clone's run that follows
 * it works 30 s, and the command starts within it, while the run's version
 * is written and not yet flushed; in half of them that run's lock is broken
 * soon after it starts and another clone runs the same model, publishing a
 * version of the number the run wrote, for the command's pull to find.
 */
function markSiblingStructural(
  ops: Op[],
  seed: number,
  kinds: readonly ClientKind[],
  share: number,
): void {
  if (!new Rng(mixSeed(seed, 0x73696273 ^ 0x5354)).chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind !== "sibling" || op.how !== "push" || kinds[op.clone] === "api") continue;
    const rng = new Rng(mixSeed(seed, 0x73690000 + op.id));
    if (!rng.chance(0.5)) continue;
    ops[i] = { ...op, how: "structural", workMs: rng.pick([2_000, 8_000, 20_000]) };
    const next = ops[i + 1];
    if (next?.kind !== "run" || next.clone !== op.clone) continue;
    ops[i + 1] = { ...next, workMs: 30_000 };
    if (kinds.length < 2 || !rng.chance(0.5)) continue;
    const peer = (op.clone + 1 + rng.int(kinds.length - 1)) % kinds.length;
    ops.splice(
      i + 2,
      0,
      { id: id++, kind: "tick", n: rng.range(4, 16), pick: rng.int(2 ** 31) },
      { id: id++, kind: "breakglass", model: next.model },
      { id: id++, kind: "run", clone: peer, model: next.model, data: next.data, workMs: 0 },
    );
    i += 4;
  }
}

/**
 * Inserts, in a share of histories, another process's write ahead to a
 * clone's manifest log cut off part way (see the `torn` {@link Op}) at a
 * random place, often on a clone a second process shares: a peer first
 * pushes an edit of a shared file, then the clone syncs, and the torn line
 * is aimed at that sync's download of it (whose record it writes ahead to
 * that log right after); in half of them
 * the clone's process then dies and a new one opens the cache, and in half
 * a peer pushes the deletion of a shared file, which the clone syncs (a
 * cache that lost its records takes the file for its own, never synced,
 * and publishes it again). Ids after every other operation's, like
 * {@link insertStalls}.
 */
function insertTornLogs(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const shared = ops.filter((o) => o.kind === "sibling").map((o) => (o as { clone: number }).clone);
  const clone = shared.length > 0 && rng.chance(0.5) ? rng.pick(shared) : rng.int(clones);
  const peer = clones > 1 ? (clone + 1 + rng.int(clones - 1)) % clones : undefined;
  const tick = (): Op => ({ id: id++, kind: "tick", n: rng.range(20, 60), pick: rng.int(2 ** 31) });
  const block: Op[] = [];
  if (peer !== undefined) {
    block.push({
      id: id++,
      kind: "edit",
      clone: peer,
      file: rng.int(SHARED_FILES.length),
      how: "push",
    }, tick());
  }
  block.push(
    { id: id++, kind: "sync", clone },
    { id: id++, kind: "torn", clone, file: rng.int(SHARED_FILES.length), pick: rng.int(2 ** 31) },
    tick(),
  );
  if (rng.chance(0.5)) block.push({ id: id++, kind: "crash", clone });
  if (peer !== undefined && rng.chance(0.5)) {
    block.push(
      { id: id++, kind: "delete", clone: peer, file: rng.int(SHARED_FILES.length), how: "push" },
      tick(),
      { id: id++, kind: "sync", clone },
    );
  }
  // After another tool's first writes, which come before any index is made
  // (another move may have been inserted before them).
  const from = ops.reduce((at, o, k) => o.kind === "foreign" ? k + 1 : at, 0);
  ops.splice(from + rng.int(ops.length - from + 1), 0, ...block);
}

/**
 * Inserts, in a share of histories, a line in the middle of a clone's
 * manifest log damaged on disk (see the `damaged` {@link Op}) at a random
 * place, often on a clone a second process shares: a peer first pushes
 * edits of two shared files and the clone its own of a third, then the
 * clone syncs (its records of the three written ahead to its log); in half
 * of them its user then deletes one of the three by hand (left to a walk);
 * then the line holding that file's record is damaged (the clone's own
 * edit's in half, a peer's it fetched in half), the clone's process
 * restarts, and the clone syncs (a cache that lost its records fetches the
 * deleted file again); in half a peer then pushes an edit or the deletion
 * of a shared file, which the clone syncs. Ids after every other
 * operation's, like {@link insertStalls}.
 */
function insertDamagedLogs(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const shared = ops.filter((o) => o.kind === "sibling").map((o) => (o as { clone: number }).clone);
  const clone = shared.length > 0 && rng.chance(0.5) ? rng.pick(shared) : rng.int(clones);
  const peer = clones > 1 ? (clone + 1 + rng.int(clones - 1)) % clones : undefined;
  const tick = (): Op => ({ id: id++, kind: "tick", n: rng.range(20, 60), pick: rng.int(2 ** 31) });
  const file = () => rng.int(SHARED_FILES.length);
  const aimed = file();
  // The clone's own edit of the file aimed at, or a peer's it fetches.
  const own = peer === undefined || rng.chance(0.5);
  const block: Op[] = [];
  if (peer !== undefined) {
    block.push(
      { id: id++, kind: "edit", clone: peer, file: own ? file() : aimed, how: "push" },
      tick(),
      { id: id++, kind: "edit", clone: peer, file: file(), how: "push" },
      tick(),
    );
  }
  block.push(
    { id: id++, kind: "edit", clone, file: own ? aimed : file(), how: "push" },
    tick(),
    { id: id++, kind: "sync", clone },
    tick(),
  );
  if (rng.chance(0.5)) block.push({ id: id++, kind: "delete", clone, file: aimed, how: "hand" });
  block.push(
    { id: id++, kind: "damaged", clone, file: aimed, pick: rng.int(2 ** 31) },
    { id: id++, kind: "sync", clone },
    tick(),
  );
  if (peer !== undefined && rng.chance(0.5)) {
    block.push(
      rng.chance(0.5)
        ? { id: id++, kind: "delete", clone: peer, file: file(), how: "push" }
        : { id: id++, kind: "edit", clone: peer, file: file(), how: "push" },
      tick(),
      { id: id++, kind: "sync", clone },
      tick(),
    );
  }
  // After another tool's first writes, which come before any index is made
  // (another move may have been inserted before them).
  const from = ops.reduce((at, o, k) => o.kind === "foreign" ? k + 1 : at, 0);
  ops.splice(from + rng.int(ops.length - from + 1), 0, ...block);
}

/**
 * Inserts, in a share of histories, another tool's publication of a
 * version at a run's number (see the `lockless` {@link Op}) right after
 * model runs: after most runs that a second process's structural command
 * over the same cache precedes (its pull then meets the other tool's
 * version while the run holds its own unpublished one), and after one or
 * two runs drawn at random; after a drawn run of a core-driven clone that
 * works 15 s or more, most often such a structural command too, started at
 * once. Three quarters of them write their index entries, and half of
 * those the `latest` marker too. Ids after every other operation's,
 * like {@link insertStalls}.
 */
function insertLockless(
  ops: Op[],
  kinds: readonly ClientKind[],
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const runs = ops.flatMap((o, i) => o.kind === "run" ? [i] : []);
  if (runs.length === 0) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const after = new Set<number>();
  for (const i of runs) {
    const before = ops[i - 1];
    const structural = before?.kind === "sibling" && before.how === "structural" &&
      before.clone === (ops[i] as Extract<Op, { kind: "run" }>).clone;
    if (structural && rng.chance(0.8)) after.add(i);
  }
  const drawn = new Set<number>();
  for (let n = rng.range(1, 2); n > 0; n--) drawn.add(rng.pick(runs));
  // Later positions first, so that the earlier ones still point where they did.
  for (const i of [...new Set([...after, ...drawn])].sort((a, b) => b - a)) {
    const run = ops[i] as Extract<Op, { kind: "run" }>;
    // A marker only with index entries: written alone, it would leave the
    // index naming a marker version the store no longer holds.
    const indexed = rng.chance(0.75);
    const marker = indexed && rng.chance(0.5);
    const block: Op[] = [{
      id: id++,
      kind: "lockless",
      run: run.id,
      pick: rng.int(2 ** 31),
      indexed,
      ...(marker ? { marker } : {}),
    }];
    // After a drawn run of a core-driven clone that works long enough, most
    // often a second process over its cache runs a structural command at
    // once: its pull meets the other tool's version beside the run's own,
    // written and not flushed.
    if (!after.has(i) && kinds[run.clone] !== "api" && run.workMs >= 15_000 && rng.chance(0.7)) {
      const workMs = rng.pick([500, 1_000, 3_000]);
      block.push({ id: id++, kind: "sibling", clone: run.clone, how: "structural", workMs });
    }
    ops.splice(i + 1, 0, ...block);
  }
}

/**
 * What a `lockless` operation publishes at version `n` of the data under
 * `base` (`data/<model>/<data>`): each object's path and text.
 */
export function locklessObjects(
  op: Extract<Op, { kind: "lockless" }>,
  base: string,
  n: number,
): { path: string; text: string }[] {
  const by = `another tool without the lock, op ${op.id}`;
  return [
    { path: `${base}/${n}/raw`, text: `[${by}] raw output\n` },
    { path: `${base}/${n}/metadata.yaml`, text: `token: "[${by}]"\nversion: ${n}\n` },
    ...(op.marker ? [{ path: `${base}/latest`, text: `${n}` }] : []),
  ];
}

function markStructural(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x73747275)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "run" || !op.parallel) continue;
    if (new Rng(mixSeed(seed, 0x73750000 + op.id)).chance(0.5)) {
      ops[i] = { ...op, structural: true };
    }
  }
}

/** What a `foreign` operation puts into the bucket: each object's path and text. */
export function foreignObjects(
  op: Extract<Op, { kind: "foreign" }>,
): { path: string; text: string }[] {
  const by = `another tool, op ${op.id}`;
  if (op.what === "file") return [{ path: `imports/foreign-op${op.id}.txt`, text: `${by}\n` }];
  if (op.what === "shared") return [{ path: SHARED_FILES[op.file ?? 0], text: `${by}\n` }];
  const base = `data/${MODELS[op.model ?? 0]}/${DATA_NAMES[op.data ?? 0]}`;
  const n = op.version ?? 1;
  return [
    { path: `${base}/${n}/raw`, text: `[${by}] raw output\n` },
    { path: `${base}/${n}/metadata.yaml`, text: `token: "[${by}]"\nversion: ${n}\n` },
    ...(op.marker ? [{ path: `${base}/latest`, text: `${n}` }] : []),
  ];
}

/**
 * Inserts, in a share of v1 histories, a move to v2 that stops after it
 * read the v1 index (before its shard writes) for long enough that its
 * global lock is taken over: another clone moves the bucket meanwhile, and
 * v2 commits (model runs, sometimes a shared file's edit or deletion) follow
 * before the stopped mover goes on. From a generator of its own, with ids
 * after every other operation's, like {@link insertStalls}.
 */
function insertMoveStall(ops: Op[], clones: number, rng: Rng, share: number, v1: boolean): void {
  if (!v1 || clones < 2 || ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const stopped = rng.int(clones);
  const other = () => (stopped + rng.range(1, clones - 1)) % clones;
  const tick = (lo: number, hi: number): Op => ({
    id: id++,
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  const mover = other();
  const inserted: Op[] = [
    { id: id++, kind: "stall", clone: stopped, on: true, at: "move" },
    { id: id++, kind: "migrate", clone: stopped },
    tick(20, 40),
    { id: id++, kind: "migrate", clone: mover },
    // Past the stopped mover's lock TTL: the other mover takes the lock over.
    { id: id++, kind: "wait", ms: 31_000 },
    tick(40, 80),
  ];
  for (let n = rng.range(1, 2); n > 0; n--) {
    inserted.push({
      id: id++,
      kind: "run",
      clone: other(),
      model: rng.int(MODELS.length),
      data: rng.int(DATA_NAMES.length),
      workMs: 0,
    });
  }
  if (rng.chance(0.5)) {
    const file = rng.int(SHARED_FILES.length);
    inserted.push(
      { id: id++, kind: "sync", clone: mover },
      rng.chance(0.5)
        ? { id: id++, kind: "delete", clone: mover, file, how: "push" }
        : { id: id++, kind: "edit", clone: mover, file, how: "push" },
    );
  }
  inserted.push(tick(40, 80), { id: id++, kind: "stall", clone: stopped, on: false }, tick(20, 60));
  ops.splice(rng.int(ops.length + 1), 0, ...inserted);
}

/** The client kind of clone `clone` in `h`. */
export function kindOf(h: Pick<History, "kinds">, clone: number): ClientKind {
  return h.kinds?.[clone] ?? "api";
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/**
 * One operation as a short line, e.g. `#4 run c1 shell/cmd/m0/out work=15s`;
 * with the clones' `kinds`, a run or sync of a core-driven clone says so
 * (`#4 run c1 (core) …`).
 *
 * @example
 * ```ts
 * import { formatOp } from "./history.ts";
 * formatOp({ id: 3, kind: "crash", clone: 1 }); // "#3 crash c1"
 * ```
 */
export function formatOp(op: Op, kinds?: readonly ClientKind[]): string {
  const head = `#${op.id} ${op.kind}`;
  const via = (c: number) => {
    const k = kindOf({ kinds }, c);
    return k === "api" ? "" : k === "core" ? " (core)" : " (core, single-phase)";
  };
  switch (op.kind) {
    case "run":
      return `${head} c${op.clone}${via(op.clone)} ${MODELS[op.model]}/${
        DATA_NAMES[op.data]
      } work=${seconds(op.workMs)}${op.same ? " same-output" : ""}${
        op.streamed ? " streamed" : ""
      }${op.parallel ? " parallel" : ""}${op.structural ? " structural" : ""}`;
    case "sync":
    case "migrate":
      return `${head} c${op.clone}${via(op.clone)}`;
    case "bulk":
      return `${head} c${op.clone}`;
    case "adopt":
      return `${head} c${op.clone} ${SHARED_FILES[op.file]}`;
    case "crash":
      return `${head} c${op.clone}${
        op.at === "commit"
          ? " (armed: between a commit write and the index)"
          : op.at === "answer"
          ? " (armed: as its index write lands, before the answer)"
          : ""
      }`;
    case "reshape":
      return `${head} c${op.clone} ${SHARED_FILES[op.file]} file <-> directory (${op.how})`;
    case "edit":
    case "delete":
      return `${head} c${op.clone} ${
        op.how === "dir" ? "notes/" : SHARED_FILES[op.file]
      } (${op.how})`;
    case "marker":
      return `${head} c${op.clone} ${MODELS[op.model]}/${DATA_NAMES[op.data]}/latest${
        op.back ? " (one back)" : ""
      }${op.how && op.how !== "push" ? ` (${op.how})` : ""}`;
    case "resolve":
      return `${head} c${op.clone} conflict ${op.pick} --${op.how}`;
    case "config":
      return `${head} c${op.clone} config/settings-${op.file}.yaml`;
    case "lockfile":
      return `${head} c${op.clone} ${
        op.set ? `set ${op.set}` : op.remove ? `remove ${op.remove}` : "retry"
      }`;
    case "breakglass":
      return `${head} ${op.model === null ? "global lock" : MODELS[op.model]}`;
    case "outage":
      return `${head} ${op.on ? "on" : "off"}`;
    case "stall":
      return `${head} c${op.clone} ${
        op.on
          ? op.at === "companions"
            ? "stops after its next v1 index write"
            : op.at === "move"
            ? "stops after its move reads the v1 index"
            : "stops"
          : "goes on"
      }`;
    case "unwritten":
      return `${head} c${op.clone} marks ${
        SHARED_FILES[op.file]
      } dirty, and the write never comes (nothing there)`;
    case "copy":
      return `${head} c${op.clone} takes a copy of c${op.from}'s cache, state and all, in place of its own`;
    case "sibling":
      return op.how === "structural"
        ? `${head} c${op.clone} a second process over its cache runs a structural command (pull and push naming no model) ${
          seconds(op.workMs)
        } after it starts`
        : `${head} c${op.clone} a second process over its cache runs a model of its own, marks its version, and ${
          op.how === "push" ? "pushes it" : "dies before its push"
        } ${seconds(op.workMs)} later`;
    case "oldsame":
      return `${head} c${op.clone} (old client: writes run #${op.run}'s bytes at its version's path as its erasure deletes them, a plain put and its index entry)`;
    case "lockless":
      return `${head} another tool publishes its own version at run #${op.run}'s number while the run holds its lock, written and not flushed (no lock; raw, metadata.yaml${
        op.marker ? ", latest" : ""
      }; ${op.indexed ? "with its index entries" : "no index entry"})`;
    case "torn":
      return `${head} c${op.clone} another process over its cache, its disk full, writes ahead part of a manifest log line (${
        SHARED_FILES[op.file]
      }), no newline`;
    case "damaged":
      return `${head} c${op.clone} a damaged disk block: a line of its manifest log (not the last; ${
        SHARED_FILES[op.file]
      }'s record if there is one) turns to garbage, and its process restarts`;
    case "oldpull":
      return `${head} c${op.clone} (old client: writes back the v1 index it read where an object is missing, no lock)`;
    case "oldpush":
      return `${head} c${op.clone} ${
        op.file === undefined
          ? `logs/old-c${op.clone}-op${op.id}.log`
          : `${op.del ? "deletes" : "edits"} ${SHARED_FILES[op.file]}`
      } (old client, global lock)`;
    case "foreign":
      return `${head} another tool puts ${
        foreignObjects(op).map((o) => o.path).join(", ")
      } (no lock, no index)`;
    case "vanish":
      return op.rewrite
        ? `${head} another client publishes the raw output of run #${op.run} again with other bytes (a plain put and its index entry)`
        : op.blind
        ? `${head} an older client's push deletes the raw output of run #${op.run}, object and index entry, never having had it`
        : `${head} another tool deletes ${
          op.run === undefined ? SHARED_FILES[op.file] : `the raw output of run #${op.run}`
        } (no lock, no index)`;
    case "latency":
      return `${head} ${seconds(op.ms)}`;
    case "flaky":
      return `${head} ${op.count}x ${op.call}${op.afterEffect ? " (after effect)" : ""}`;
    case "tick":
      return `${head} ${op.n} @${op.pick}`;
    case "wait":
      return `${head} ${seconds(op.ms)}`;
  }
}

/**
 * The history as text: a header line, then one operation per line.
 *
 * @example
 * ```ts
 * import { formatHistory, generateHistory } from "./history.ts";
 * console.log(formatHistory(generateHistory(1)));
 * ```
 */
export function formatHistory(h: History): string {
  const locks = h.absentOnError ? ", third-party locks (a failed read looks absent)" : "";
  const layout = h.v2 ? ", v2 (sharded) index" : "";
  const clients = h.kinds ? `, clients ${h.kinds.map((k, i) => `c${i} ${k}`).join(" ")}` : "";
  const old = h.oldClients ? ", old clients push too (Sluice commits under the global lock)" : "";
  const skew = h.skewMs?.some((ms) => ms !== 0)
    ? `, clocks off the store's by ${h.skewMs.map((ms, i) => `c${i} ${ms / 1000} s`).join(" ")}`
    : "";
  const first = h.indexFirst ? ", first pushes make the index first" : "";
  const etag = h.etag ? ", versions are the bytes' (ETags)" : "";
  const checked = h.checkedDeletes ? ", deletes check the version, then delete (as on MinIO)" : "";
  return [
    `seed ${h.seed}, ${h.clones} clones${locks}${layout}${clients}${old}${skew}${first}${etag}${checked}, ${h.ops.length} ops:`,
    ...h.ops.map((op) => formatOp(op, h.kinds)),
  ]
    .join("\n");
}

/** Parses a history printed as JSON (`--replay`); throws a plain Error naming what is wrong. */
export function parseHistory(text: string): History {
  const j = JSON.parse(text);
  if (
    typeof j?.seed !== "number" || typeof j?.clones !== "number" || !Array.isArray(j?.ops) ||
    j.clones < 1 || j.clones > 9
  ) {
    throw new Error("a history is a JSON object {seed, clones, ops: [...]}");
  }
  if (
    j.kinds !== undefined &&
    (!Array.isArray(j.kinds) || j.kinds.length !== j.clones ||
      !j.kinds.every((k: unknown) => CLIENT_KINDS.includes(k as ClientKind)))
  ) {
    throw new Error(`kinds is a list of ${j.clones} client kinds (${CLIENT_KINDS.join(", ")})`);
  }
  if (
    j.skewMs !== undefined &&
    (!Array.isArray(j.skewMs) || j.skewMs.length !== j.clones ||
      !j.skewMs.every((ms: unknown) => typeof ms === "number" && Number.isFinite(ms)))
  ) {
    throw new Error(`skewMs is a list of ${j.clones} numbers of milliseconds`);
  }
  if (j.indexFirst !== undefined && typeof j.indexFirst !== "boolean") {
    throw new Error("indexFirst is true or false");
  }
  if (j.etag !== undefined && typeof j.etag !== "boolean") {
    throw new Error("etag is true or false");
  }
  if (j.checkedDeletes !== undefined && typeof j.checkedDeletes !== "boolean") {
    throw new Error("checkedDeletes is true or false");
  }
  const kinds = new Set([
    ...Object.keys(WEIGHTS),
    "stall",
    "oldpush",
    "oldpull",
    "unwritten",
    "reshape",
    "foreign",
    "vanish",
    "sibling",
    "oldsame",
    "copy",
    "lockless",
    "torn",
    "damaged",
  ]);
  for (const op of j.ops) {
    if (typeof op?.id !== "number" || !kinds.has(op?.kind)) {
      throw new Error(`not an operation: ${JSON.stringify(op)}`);
    }
    if ("clone" in op && (op.clone < 0 || op.clone >= j.clones)) {
      throw new Error(`operation #${op.id} names clone ${op.clone} of ${j.clones}`);
    }
    if (op.kind === "copy" && !(op.from >= 0 && op.from < j.clones && op.from !== op.clone)) {
      throw new Error(`operation #${op.id} copies from clone ${op.from} of ${j.clones}`);
    }
  }
  return j as History;
}
