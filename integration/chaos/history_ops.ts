/**
 * The operations of a chaos history and the history itself: the models,
 * data names and shared files the moves name, each kind of operation with
 * its fields, and the client kinds a history's clones use.
 *
 * @module
 */

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
 * way, not after it. `under` writes a new file (`<path>/part-<id>.md`) in
 * the directory of that name the clone holds (a peer's, pulled here) and
 * marks the directory's name, not the file's, leaving it for the clone's
 * next push; nothing happens where no directory is there.
 */
export type EditHow = "hand" | "hand-tick" | "mark" | "push" | "revert" | "during" | "under";

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
    /**
     * A `parallel` run that saves as the tool's `save` does: its data
     * name's directory marked (no version directory marked after), made,
     * and its files written only after a wait inside which its parallel
     * step flushes (`moves_save_gap.ts`).
     */
    readonly saveGap?: boolean;
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
    /**
     * With `push`: an edit of a file this clone synced whose entry an old
     * client's pull dropped since, before any pull here saw the drop
     * (I37 looks at what that push does; see {@link insertDroppedEdit}).
     */
    readonly dropped?: true;
  }
  /**
   * A user deletes one of {@link SHARED_FILES}: by hand, or marked dirty and
   * pushed. With `run`, the files of the version that run (an operation's
   * id) wrote here instead, each that still holds its bytes, if the run was
   * not acknowledged; where that run's version was set aside here
   * (`version_exists`), the empty directory it left, by hand (see
   * {@link insertPutBackLost}).
   */
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
    readonly run?: number;
    /**
     * With `run`: the files of that run's version, committed (acknowledged),
     * as this clone holds them while its `latest` marker here names that
     * version, removed here, marked by name and pushed (see
     * {@link insertUnderMarker}); nothing happens otherwise.
     */
    readonly committed?: boolean;
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
   * may be taken over and another move run). With `at: "withdraw"`, it
   * happens when the clone's push, after an index write, next deletes an
   * object that is no index object (its own upload, whose entry that write
   * took out: the window in which a peer may name the path again). With
   * `at: "commit"`, it happens once the clone's run `run` (its operation's
   * id) put a file of a data version, at its next call on a lock or a latest
   * marker: its push stops once its version's uploads landed, before the
   * check of its lock that precedes its commit (the window in which a peer's
   * create of the same bytes may meet those uploads and publish them).
   * Aimed: the scheduler goes on (a few hundred decisions at most, with
   * choices drawn from `pick`) until it stops there, or the run is neither
   * under way nor queued.
   */
  | {
    readonly id: number;
    readonly kind: "stall";
    readonly clone: number;
    readonly on: boolean;
    readonly at?: "companions" | "move" | "withdraw" | "commit";
    /** With `at: "commit"`: the run aimed at, and the choices of the decisions taken meanwhile. */
    readonly run?: number;
    readonly pick?: number;
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
  | {
    readonly id: number;
    readonly kind: "oldpull";
    readonly clone: number;
    /**
     * It stops between its read of the index (and its looks at the objects
     * named) and its write-back until a command of clone `window` begun
     * after its read ends, or attempts the global lock, or 50 s of fake
     * time pass: what other clones commit meanwhile, its write drops (see
     * `insertDroppedDeletion`).
     */
    readonly window?: number;
  }
  | {
    readonly id: number;
    readonly kind: "oldpush";
    readonly clone: number;
    readonly file?: number;
    readonly del?: boolean;
    /**
     * Its push stops between its read of the index and its write of it
     * (its global lock held, and renewed, meanwhile) until a command of
     * clone `window` begun after this push began ends, or makes its attempt
     * at the global lock (its preparation done), or 50 s of fake time pass:
     * that clone's push runs inside the old client's read-modify-write (see
     * `insertOldWindow`).
     */
    readonly window?: number;
  }
  /**
   * A user replaces one of the `notes/` files of {@link SHARED_FILES} by a
   * directory of that name holding a new file (`<path>/part-<id>.md`, bytes
   * of its own), or such a directory by a plain file again, by hand (`rm`,
   * `mkdir`, write); then, with `how: "push"`, marks the path by its name
   * and pushes, or (`hand`) leaves it for a later walk, or (`mark`) marks
   * it by its name and leaves it for the clone's next push. Nothing happens
   * when the clone has neither a file nor a directory there. Inserted into
   * some histories from a generator of their own (see {@link insertReshapes}
   * and {@link insertBlips}).
   */
  | {
    readonly id: number;
    readonly kind: "reshape";
    readonly clone: number;
    readonly file: number;
    readonly how: "hand" | "push" | "mark";
  }
  /**
   * A brief outage, armed when the clone's queue gets to it (its commands
   * before it done): the clone's next write (`put`) or deletion
   * (`delete`) of a file's object (no index, lock or lockfile object: a
   * push's transfer, its uploads, deletions and commit-step writes) fails
   * as unreachable, with each retry of that call (one more than the
   * retries), and the store answers every other call, before and after:
   * the push stops its further writes and deletions there, and its commit
   * meets the store back. Disarmed once it struck, and for the final sync.
   * Inserted from a generator of its own (see {@link insertBlips}).
   * With `marker`, only a call on a `latest` marker strikes (a `put` only
   * as a create: a take-back's put-back of the committed bytes, see
   * {@link insertTakeBackFault}); with `landed`, the first attempt of the
   * struck put takes effect before its answer is lost.
   */
  | {
    readonly id: number;
    readonly kind: "blip";
    readonly clone: number;
    readonly call: "put" | "delete";
    readonly marker?: boolean;
    readonly landed?: boolean;
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
    /** With `run`: every file of that version (its `raw` and `metadata.yaml`), not its `raw` alone. */
    readonly whole?: boolean;
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
    /**
     * At the number below the run's instead (the version a run of the clone
     * before it wrote, its commit cut off: its uploads there written over),
     * at the same moment.
     */
    readonly below?: boolean;
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
   * line before its last. With `open`, the clone's process stays open
   * instead, and another process over the cache writes a whole line ahead
   * after the damage (the record of another path the files hold, as it
   * synced it too): the clone's next command takes the log in, and must
   * tell the damaged line as an open does (I30). With `dies`, the process
   * started afresh (whose open found the damaged line, so its next save
   * writes a base) dies inside that save, once the base is renamed into
   * place and before the log is replaced, after another process wrote a
   * whole line ahead (the dying one's record of a path, its mtime another)
   * since the save's take-in read the log: to the log in place (`log`), or
   * to one it creates, the log having gone from beside the base before
   * (`nolog`). I30: the process started afresh after that death holds the
   * line's record. With `replaceFails`, the process started afresh lives
   * on, and the replacement of the log after the rename of a base its save
   * writes fails (no space left on the device), another process having
   * written a whole line ahead to the log in place since that save's
   * take-in read it: a line of a path the save records anew (its record,
   * its mtime another), which the save's own record stands over. I30: that
   * record stays the process's, and is what the files hold once it has
   * saved again (the final sync). Inserted from a generator of its own (see
   * {@link insertDamagedLogs}).
   */
  | {
    readonly id: number;
    readonly kind: "damaged";
    readonly clone: number;
    readonly file: number;
    readonly pick: number;
    readonly open?: boolean;
    readonly dies?: "log" | "nolog";
    readonly replaceFails?: boolean;
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
