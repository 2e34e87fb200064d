/**
 * The operations of a chaos history that come from around the clones: the
 * operator's breakglass, store outages, latency and faults, crashes and
 * stalls, old clients and other tools writing to the bucket, and the
 * scheduler's decisions and fake time. Part of {@link Op} (`history_ops.ts`).
 *
 * @module
 */

/** Store calls a `flaky` operation can make fail. */
export type FlakyCall = "get" | "head" | "put" | "delete";

/** An operation from around the clones (see `Op` in `history_ops.ts`). */
export type WorldOp =
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
   * `at: "marker"`, it happens when the clone's command, past its delete of
   * a `latest` marker's object, next calls the store (the window in which
   * the path is empty between a take-back's delete and the create after it,
   * where an old client's pull drops the entry). With
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
    readonly at?: "companions" | "move" | "withdraw" | "commit" | "marker";
    /** With `at: "commit"`: the run aimed at, and the choices of the decisions taken meanwhile. */
    readonly run?: number;
    readonly pick?: number;
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
    /**
     * With `file`: it writes the bytes that clone's edit operation `op`
     * wrote there (the same version where versions are ETags; see
     * `insertOldTakeBack`).
     */
    readonly again?: { readonly op: number; readonly clone: number };
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
   * struck put takes effect before its answer is lost. A `head` (a look at
   * a file's object) is armed at once, not when the queue gets to it: it
   * strikes the clone's command under way (a refusal's look at what an
   * earlier push left, see {@link insertCutPush}). With `putBack` (a
   * `head`, armed when the queue gets to it), only the clone's second look
   * at a file's object since its delete of it strikes, once, where the
   * store holds that object again: a take-back's look at the same bytes a
   * peer put back over its delete (see {@link insertSameBytesLook}).
   */
  | {
    readonly id: number;
    readonly kind: "blip";
    readonly clone: number;
    readonly call: "put" | "delete" | "head";
    readonly marker?: boolean;
    readonly landed?: boolean;
    readonly putBack?: boolean;
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
    /**
     * Aimed: the scheduler first goes on (in arrival order, a few hundred
     * decisions at most) until that clone runs no command and has none
     * queued (see {@link insertCommittedDeleted}).
     */
    readonly idle?: number;
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
  /** `n` scheduling decisions, their choices drawn from a generator seeded with `pick`. */
  | { readonly id: number; readonly kind: "tick"; readonly n: number; readonly pick: number }
  /** Fake time passes (timers fire: heartbeats, lock waits, TTLs). */
  | { readonly id: number; readonly kind: "wait"; readonly ms: number };
