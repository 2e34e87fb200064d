/**
 * Ground truth of a chaos history and the invariants checked against it:
 *
 * - I1: every run that reported success has its version on the store with
 *   its bytes, and on every clone after the final sync (but a file another
 *   tool deleted from the store: I19; and a user's edit there, kept in a
 *   conflict naming those bytes as theirs, is checked after the final
 *   resolution instead);
 * - I2: no byte of a run that failed with `model_lock_lost` is on the store
 *   or on any clone, checked after every scheduling decision as well as at
 *   the end (during the history a refused upload may sit on the store while
 *   its deletion waits for the store to come back, but never committed to
 *   the remote index, so no clone can pull it; at the end it must be gone);
 * - I3: every lockfile entry an acknowledged transaction added is present,
 *   unless a transaction that removes it was issued;
 * - I4: no hang (recorded by the workload: a command past its budget of
 *   its own fake time, which leaves out the latency of other commands'
 *   store calls released meanwhile; a unit stuck in real time; a livelock);
 * - I5: nothing is written outside the cache directories;
 * - I6: no local change is lost by a pull or a resolution (`local_changes.ts`),
 *   and after the final sync every copy a pull set aside is named by an
 *   open conflict record until its clone resolves the path
 *   (`set_aside_named.ts`);
 * - I7: after the final sync, the remote index never names an object version
 *   the store does not hold (`index_checks.ts`), but where the store holds
 *   a clone's own write over it at a path that clone has an open conflict on
 *   (a resolution cut off before its index update: the conflict's
 *   resolution publishes or drops it, as in I11, and I13 resolves it),
 *   and where a cache a `copy` move replaced deleted the version named,
 *   its deletion's commit cut off, or a clone did whose record of that
 *   version a damaged line of its manifest log then held (a pull past the
 *   dangling-entry grace removes the entry; `workload.ts`);
 * - I8: a fresh clone gets every committed file, markers included
 *   (`index_checks.ts`), with the same exception;
 * - I9: a committed edit is replaced only by a writer that had seen it
 *   (`lost_updates.ts`);
 * - I10: the index stays readable and every download matches its entry
 *   (no fault injected here corrupts bytes): no command fails with
 *   `corrupt_download` (the workload);
 * - I11: after the final sync, the store holds no object the index does not
 *   name, but a clone's own write of a path it has an open conflict on, or
 *   an upload of a run it holds for `erasure_refused` (its erasure journal
 *   records it; the user's `--keep` publishes it, `--discard` deletes it),
 *   or an object another tool wrote mid-history with no index entry
 *   (`lockless` moves) (`index_checks.ts`);
 * - I12: every push an old client made (histories with old clients) is
 *   named by the index after the final sync, with its bytes' hash, and is
 *   on every clone;
 * - I13: every conflict left open after the final sync can be resolved:
 *   with no other writer left, `resolve --mine` of each, clone by clone,
 *   publishes, or meets a version another clone's resolution published
 *   just before as a new conflict (`workload.ts`);
 * - I14: after each operation that leaves no command running (Sluice
 *   clones alone, no adoption or move: see `workload.ts`), every `latest`
 *   marker the remote index names that a run wrote (not a user's marker
 *   edit) names a version whose `raw` the index names too (but a `raw`
 *   another tool deleted: I19; or one of a run not acknowledged that its
 *   clone's user deleted, `delete` with `run`): no reader is pointed at
 *   files the index does not list;
 * - I15: every clone ends with one shape per path (`shapes.ts`);
 * - I16: every command that fails says why with a stable code: none ends
 *   in an error that is not a Sluice error (a raw filesystem error, say;
 *   the workload);
 * - I17: a lock is taken over as stale only once its holder has left it
 *   unrenewed for its TTL by the store's clock, also by a clone whose clock
 *   runs ahead of or behind the store's (`skewMs`; the workload);
 * - I18: an object another tool put into the bucket before any index named
 *   anything (`foreign` moves) is, while the store still holds its bytes
 *   after the final sync, named by the index with them; a file of that
 *   tool's own is also on every clone. The rule a first index is made by:
 *   what is there when an index is made is named by it.
 *   So too a data version another tool published mid-history honouring no
 *   lock, at a run's number while the run held its lock with its version
 *   written (`lockless` moves): its `raw` and `metadata.yaml` are held by
 *   the store with their bytes after the final sync (Sluice never deletes
 *   nor writes over another writer's data version), and each of its
 *   objects written with its index entry that the store still holds is
 *   named by the index with its bytes (its `latest` marker may be moved on
 *   since by a later run).
 * - I19: the bytes of a shared file (or a run's raw output) another tool
 *   deleted from the store (`vanish` moves) where a clone held them are, after the final sync,
 *   on the store or on a clone, unless a user changed, deleted or took
 *   theirs for that path since (or had deleted the file a clone synced
 *   there before, or the clone's own write of those bytes it never recorded
 *   as synced, its push's answer lost, and not pushed the deletion yet): an
 *   entry a pull removed for naming nothing
 *   is not a deletion for the clones holding the last copies. Until such
 *   an entry is removed it names a missing object, which I7 and I8 allow.
 *   A run's `raw` another client published again with other bytes (a
 *   `vanish` move with `rewrite`) is, after the final sync, still held by
 *   every clone that held it then, at its path or set aside;
 * - I20: a push that succeeds accounts for every local change it was asked
 *   to publish: published, still marked dirty, or named in its result
 *   (`accounted.ts`).
 * - I21: a cache the swamp extension drives holds nothing of Sluice's own
 *   that the existing extensions, switched in on it, would upload
 *   (`switch_back.ts`).
 * - I22: a resolution reported resolved took its side: a `--theirs` whose
 *   pull left the path out (something here in the way) is never resolved;
 *   and one that failed part way (its push or pull cut off) leaves its
 *   conflict open.
 * - I23: a clone deletes another writer's object at a shared file's path
 *   (or under one) only where a mark of its user's still names it, or a
 *   directory above it, once its user removed the copy here: a copy
 *   removed by hand and left to a walk is never deleted on the datastore
 *   (`named_deletions.ts`). So too its own write that it holds synced at
 *   that very version (a committed one, which peers may hold: an entry an
 *   old client's pull dropped leaves it named by no index, and a deletion
 *   of it nobody asked for is gone from every clone); only its own
 *   uncommitted write is its to withdraw. The marks a push under the
 *   global lock settles count as a plain push's do (histories with old
 *   clients);
 * - I27: a run refused with `version_exists` lost its version to a version
 *   another writer published: after the final sync the index names that
 *   version's `raw`, with bytes no refused run wrote (a refused run's upload,
 *   erased since, is no version to lose to), unless another tool deleted it,
 *   or put its own there with no index entry, which the store holds
 *   (`lockless` moves);
 * - I26: a step of a workflow whose model lock nobody broke is never
 *   refused (`model_lock_lost`, `erasure_refused`) for another step's lock
 *   lost meanwhile (the streamed run's other step, `core_driven.ts`), nor
 *   is a core-driven run refused for any lock but its own (another run of
 *   its process, released after its flush: `parallel` runs);
 * - I25: a mark whose write never came (nothing ever at the path here) is
 *   never taken for a deletion here: no conflict records one there, unless
 *   a user changed or deleted the path since (`unwritten` moves);
 * - I24: a run refused with `version_exists` for its own version (another
 *   writer published it first) has none of its bytes in a file the remote index names
 *   after the final sync: a streamed run's `raw`, published part way by
 *   another step's flush, counts.
 * - I28: a version a second process over a clone's cache marked dirty and
 *   did not push itself (it died first, or its push failed) is published
 *   by the final sync, which runs in a process started afresh on that
 *   cache: another process's commit meanwhile never erases its marks
 *   (`sibling` moves).
 * - I29: a pull never records a conflict whose datastore copy is the
 *   clone's own write (an upload of its cache whose commit landed, its
 *   answer lost or not): a conflict with itself (`own_conflicts.ts`).
 * - I30: a process opening a clone's cache reads its synced manifest: what
 *   the cache's processes synced is never lost to another process's write
 *   ahead cut off part way (`torn` moves leave a torn last line, which a
 *   reader drops; a line written after it is not) nor to a line in the
 *   middle of the log damaged on disk (`damaged` moves: the process started
 *   afresh after one holds every record the files held before the damage
 *   but the damaged line's, whose path counts as synced at its record
 *   before or as never synced; I6 and I29 spare what that leads to at that
 *   path alone, a deletion there fetched again or a conflict with the
 *   clone's own write), nor otherwise, since the checker never damages the
 *   manifest beyond that; a process that finds it unreadable takes every
 *   file for one never synced (`workload.ts`). A damaged line a process
 *   open since before it takes in (`damaged` moves with `open`) is told by
 *   the first of its commands since that succeeds, a `state_unreadable`
 *   warning naming it, as an open tells it (`world_slots.ts`); a command
 *   that calls nothing of the library taking the manifest in (a user's
 *   edit or deletion by hand) reads no line and is passed over. A line
 *   another process wrote ahead after a base's take-in read the log is held
 *   by the process started afresh after that base's writer died once its
 *   base was in place, before it replaced the log (`damaged` moves with
 *   `dies`, `save_crash.ts`).
 * - I31: a core-driven run refused with `model_lock_lost` lost its model
 *   lock: a heartbeat found it gone or taken, or its record on the store no
 *   longer names the run's acquisition (`core_driven.ts`; with third-party
 *   locks, which expose no nonce, unchecked). A lock object a process takes
 *   again for a later run (`reusedLocks` histories) is that run's, whatever
 *   became of the run before.
 * - I32: a push that reports an upload of its cache withdrawn (taken back as
 *   a deleted file's), with no conflict at that path, leaves no index entry
 *   naming the path as it ends (`commands.ts`: a peer's commit naming it
 *   again mid-withdrawal is a conflict, never a deletion done). Spared
 *   (`withdrawals.ts`): an entry committed after the push's last read of the
 *   index, and any beside an upload no index ever named; but one naming the
 *   withdrawn upload itself, which the store no longer holds, whenever
 *   committed, is never spared (an old client's read-modify-write from a
 *   read made before the withdrawal put it back).
 * - I33: a file the index names at a shared file's path or under its name
 *   is on every clone after the final sync, unless that clone's user
 *   changed or deleted that very path, a conflict of its is open at or
 *   around it, or something of its own of the other shape is in the way
 *   (`named_held.ts`); and a file a clone's user wrote under a directory at
 *   such a name and marked by the directory's name (`under` edits) is named
 *   by the index with its bytes after the final sync, unless that clone
 *   still holds it marked, has a conflict open near it, or anyone changed
 *   that path since.
 * - I34: right after a lockfile transaction that succeeded, its clone holds
 *   no conflict open at the managed lockfile: the transaction wrote the
 *   datastore's copy there, holding this clone's change, so a conflict a
 *   pull recorded at it (changed here and on the datastore) is over, and
 *   left open it would have every later pull and push warn
 *   `conflicts_left` over a path whose two sides agree. Spared: a record
 *   naming a copy set aside, which only a resolution drops.
 * - I35: an old client's push stopped inside its read-modify-write of the
 *   index (an `oldpush` with `window`), alone inside the global lock,
 *   writes back no `latest` marker's entry naming a version the store no
 *   longer holds where the index named another as it went on to write: an
 *   index write a Sluice writer made meanwhile outside the global lock (a
 *   marker's take-back: the committed bytes put back and named) is undone
 *   so. Spared: a marker another tool wrote honouring no lock.
 * - I36: a clone's push of its user's deletion of a committed data version
 *   (a `delete` with `committed`), made while the marker there names that
 *   version, deletes none of the version's objects the store held as the
 *   user deleted them, while the marker there still names it: a version is
 *   never deleted under its marker, also where an old client's index write
 *   from an earlier read dropped its entries (`under_marker.ts`).
 * - I37: a clone's push of its edit of a file it synced, whose entry an
 *   old client's pull dropped before any pull here saw the drop (an `edit`
 *   with `dropped`), never meets the file as deleted: nobody deleted it
 *   (`insertDroppedEdit`).
 *
 * Runs that fail with anything else (`unreachable`, a lock timeout, a crash)
 * are neither acknowledged nor refused: their data may or may not land
 * later, and no invariant speaks about them (a `version_exists` one only
 * through I24).
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { sha256Hex } from "../../sync/hash.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";
import { indexEntriesOf } from "./index_checks.ts";

/** The invariants. */
export type Invariant =
  | "I1"
  | "I2"
  | "I3"
  | "I4"
  | "I5"
  | "I6"
  | "I7"
  | "I8"
  | "I9"
  | "I10"
  | "I11"
  | "I12"
  | "I13"
  | "I14"
  | "I15"
  | "I16"
  | "I17"
  | "I18"
  | "I19"
  | "I20"
  | "I21"
  | "I22"
  | "I23"
  | "I24"
  | "I25"
  | "I26"
  | "I27"
  | "I28"
  | "I29"
  | "I30"
  | "I31"
  | "I32"
  | "I33"
  | "I34"
  | "I35"
  | "I36"
  | "I37";

/** A broken invariant. */
export interface Violation {
  readonly invariant: Invariant;
  readonly message: string;
  /** The history operation after which it was seen (-1: at the end). */
  readonly afterOp: number;
}

/** One file a run wrote. */
export interface RunFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** What happened to a model run. */
export interface RunRecord {
  /** History operation id. */
  readonly op: number;
  readonly clone: number;
  readonly model: string;
  /** Unique text inside every file the run wrote (unless `same`). */
  readonly token: string;
  /**
   * A deterministic run: its files hold what any run of that version
   * writes, so they tell nothing of this run (no I2 for it; I1 holds).
   */
  readonly same?: boolean;
  /** The version files, once written. */
  files: RunFile[];
  /** `pending`, `success`, `crashed`, `hung`, or the error code it failed with. */
  outcome: string;
  /** With `version_exists`: the keys the error named (a version of its own, or another left dirty here). */
  refusedKeys?: readonly string[];
}

/** The record of a run not ended yet, of `op` on its clone, for `model`, its bytes carrying `token`. */
export function pendingRun(
  op: { readonly id: number; readonly clone: number },
  model: string,
  token: string,
): RunRecord {
  return { op: op.id, clone: op.clone, model, token, files: [], outcome: "pending" };
}

/** What happened to a lockfile transaction. */
export interface TxnRecord {
  readonly op: number;
  readonly clone: number;
  /** The change it publishes: its own merged with the clone's pending delta. */
  readonly set: Readonly<Record<string, unknown>>;
  readonly remove: readonly string[];
  /** `pending`, `acked`, `crashed`, `hung`, or an error code. */
  outcome: string;
}

/** Reads the store directly, without faults or scheduling. */
export interface StoreInspector {
  /** Every key. */
  keys(): Promise<string[]>;
  /** An object's bytes, or undefined when absent. */
  read(key: string): Promise<Uint8Array | undefined>;
}

const dec = new TextDecoder();

/** True when two byte arrays are equal. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function readCacheFile(dir: string, path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(`${dir}/${path}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw e;
  }
}

async function* walk(dir: string, rel = ""): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(rel ? `${dir}/${rel}` : dir)];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  for (const e of entries) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) yield* walk(dir, p);
    else yield p;
  }
}

/**
 * The ground truth of one history and its violations (each reported once).
 *
 * @example
 * ```ts
 * import { GroundTruth } from "./invariants.ts";
 * const truth = new GroundTruth();
 * truth.violate({ invariant: "I4", message: "hung", afterOp: 3 });
 * console.log(truth.violations.length); // 1
 * ```
 */
export class GroundTruth {
  /** Model runs, in start order. */
  readonly runs: RunRecord[] = [];
  /** The `raw` outputs of runs not acknowledged that their clone's user deleted (`delete` with `run`). */
  readonly userDeletedRaws = new Set<string>();
  /**
   * Files of committed versions a clone's user deleted while the marker
   * there named their version (`delete` with `committed`): held by the
   * push while the marker names the version (I36), gone once a later push
   * finds the marker moved on; I1 spares them.
   */
  readonly userDeletedCommitted = new Set<string>();
  /**
   * Versions a second process over a clone's cache marked dirty (`sibling`
   * moves): one it did not push itself (it died, or its push failed) is the
   * next process's on that cache to publish (I28).
   */
  readonly marked: RunRecord[] = [];
  /** Lockfile transactions, in start order. */
  readonly txns: TxnRecord[] = [];
  /** Entry names some issued transaction removes (acknowledged or not). */
  readonly removals = new Set<string>();
  /** Old clients' writes of a refused run's bytes (`oldsame` moves), for I12 at every decision. */
  readonly oldCommitted: { op: number; path: string; bytes: Uint8Array }[] = [];
  /** Pushes old clients completed (histories with old clients): a new file each. */
  readonly oldPushes: { op: number; path: string; text: string }[] = [];
  /**
   * Old clients' pushes started and not returned yet (a crash, an outage):
   * an old client whose push stopped pushes again when it comes back (its
   * file still differs from the index), which the final sync does first.
   */
  /**
   * Shared files an old client's push left as old clients leave them: its
   * stopped push, pushed again on a bucket turned v2 (where old clients
   * index no such file), or a push whose lock another old client took over
   * as stale meanwhile (the two rewrote the index over each other). I7, I8
   * and I11 spare them.
   */
  readonly oldStranded = new Set<string>();
  /** Marks whose writes never came (`unwritten` moves), for I25. */
  readonly unwritten: { op: number; clone: number; path: string; touchedBefore: number }[] = [];
  /** Every old client's push, in the order they started. */
  readonly oldStarted: {
    readonly id: number;
    readonly clone: number;
    readonly file?: number;
    readonly del?: boolean;
  }[] = [];
  /** Paths an old client's pull wrote an index over that no longer named them (`oldpull` moves). */
  readonly oldPullDropped = new Set<string>();
  /**
   * Paths of Sluice writes (their object written by a clone, its writer id
   * on it) an old client's pull wrote an index over without (`oldpull`
   * moves): a commit it dropped, named again by its writer's next pull
   * unless that writer lost its record of the path (see I11).
   */
  readonly oldPullUnnamed = new Set<string>();
  /**
   * Files of runs' versions the store held that an old client's pull wrote
   * an index over without (`oldpull` moves): a commit it dropped, which its
   * writer's next pull names again (`index_entry_dropped`); meanwhile a
   * run of another clone numbered from that index may make the same
   * version (see `checkFinal`).
   */
  readonly oldPullRunsUnnamed = new Set<string>();
  /**
   * Paths of old clients' writes of a refused run's bytes (`oldsame` moves)
   * that an old client's pull wrote an index over without their entry: on a
   * store whose versions are ETags, the run's erasure deletes such a write
   * when it lands between the erasure's look at the object and its delete
   * (the same bytes, the same version), and puts it back once the index
   * names it; an old client's pull that meets the object gone in between
   * drops the entry, by their design. Spared by I11 and I12 while the store
   * holds the write's bytes (put back); gone, it is I12's.
   */
  readonly oldPullMissed = new Set<string>();
  /**
   * Of `oldPullMissed`, those the store did not hold as that pull wrote
   * (the erasure's delete had taken them, and nothing had put them back):
   * with the index naming no entry there, the erasure puts nothing back,
   * and the version's path stands empty, so a later writer that holds the
   * model's lock may make that version with bytes of its own (a create-only
   * put, an object it met absent). I12 spares the write then when the index
   * names other bytes there that the store holds (seed 197300051), unless
   * the store held the old client's bytes again since (`seeOldPutBack`).
   */
  readonly oldPullMetGone = new Set<string>();

  /**
   * At each scheduling decision: a path of `oldPullMetGone` whose object
   * the store holds with the old client's bytes again (put back) leaves
   * it, so that a write over that object after is still I12's.
   */
  async seeOldPutBack(store: StoreInspector): Promise<void> {
    for (const w of this.oldCommitted) {
      if (!this.oldPullMetGone.has(w.path)) continue;
      if (sameBytes(await store.read(w.path), w.bytes)) this.oldPullMetGone.delete(w.path);
    }
  }
  /** Old clients' pushes inside the global lock now (op ids). */
  readonly oldInside = new Set<number>();
  /** `<marker path>\0<hash>` of every marker a user wrote (a marker edit, a merge): not I14's. */
  readonly userMarkers = new Set<string>();
  /** `<marker path>\0<hash>` of every marker a user moved back (`marker` moves with `back`): I9's. */
  readonly markerRollbacks = new Set<string>();
  /** SHA-256 of the marker text `<n>` → n, for I14. */
  #markerNumbers: Map<string, number> | undefined;
  /** Old clients' pushes that were inside the global lock together with another (op ids). */
  readonly oldOverlapped = new Set<number>();
  readonly oldUnfinished = new Map<
    number,
    { readonly id: number; readonly clone: number; readonly file?: number; readonly del?: boolean }
  >();
  /** The objects another tool put into the bucket (`foreign` moves); `own`: a path of its own. */
  readonly foreign: { op: number; path: string; text: string; own: boolean }[] = [];
  /**
   * The objects another tool published mid-history honouring no lock
   * (`lockless` moves): `indexed`, written with its index entry; `marker`,
   * a `latest` marker (not a version's file).
   */
  readonly lockless: {
    op: number;
    path: string;
    text: string;
    indexed: boolean;
    marker: boolean;
  }[] = [];
  /** Objects another tool deleted (`vanish` moves): their bytes, version, and the clones holding them then. */
  readonly #vanished: {
    /** Published again with other bytes by another client (not deleted): see `checkVanished`. */
    rewritten: boolean;
    op: number;
    path: string;
    bytes: Uint8Array;
    hash: string;
    version: string;
    holders: number[];
    /** Paths touched before it (`LocalChanges.touched`), and paths let go of before it. */
    touchedBefore: number;
    letGoBefore: number;
    /** A clone's user had deleted the file it synced there, and not pushed that yet (its push may delete the path). */
    pending: boolean;
    /**
     * The version the remote index named at the path when the object went:
     * another than `version` where a write no commit named yet had replaced
     * it (the index then names an object gone for the same deletion).
     */
    indexed?: string;
  }[] = [];
  /** Paths a user let go of by taking theirs, in order. */
  readonly #letGo: string[] = [];
  /** Violations found so far. */
  readonly violations: Violation[] = [];
  readonly #seen = new Set<string>();
  readonly #hashes = new WeakMap<RunFile, string>();

  /**
   * I12 after the final sync: each old client's push is named by the
   * remote index (`entries`, path → its sha256) with its bytes, and every
   * clone holds the file.
   */
  async checkOldPushes(
    entries: Readonly<Record<string, { h?: string }>>,
    cloneDirs: readonly string[],
    read: (path: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    for (const p of this.oldPushes) {
      // Dropped by an old client's pull, by their design (no lock, no compare-and-swap).
      if (this.oldPullDropped.has(p.path)) continue;
      const hash = await sha256Hex(new TextEncoder().encode(p.text));
      const e = entries[p.path];
      // Dropped by an old client's pull that met it deleted by a refused
      // run's erasure before its put-back (see `oldPullMissed`): theirs to
      // lose while the store holds its bytes again.
      if (
        !e && this.oldPullMissed.has(p.path) &&
        sameBytes(await read(p.path), new TextEncoder().encode(p.text))
      ) continue;
      // Dropped so while the store held none of it (see `oldPullMetGone`),
      // the path then filled by another writer whose bytes the index names
      // and the store holds: no write over the old client's object.
      if (
        e?.h !== undefined && e.h !== hash && this.oldPullMetGone.has(p.path)
      ) {
        const held = await read(p.path);
        if (held && await sha256Hex(held) === e.h) continue;
      }
      if (!e || (e.h !== undefined && e.h !== hash)) {
        this.violate({
          invariant: "I12",
          message: `an old client's push of ${p.path} (op #${p.op}) is ${
            e ? "named with other bytes" : "not named"
          } by the remote index after the final sync`,
          afterOp: -1,
        });
        continue;
      }
      await this.#onEveryClone(cloneDirs, p.path, p.text, (dir) => ({
        invariant: "I12",
        message:
          `${dir} does not hold an old client's push of ${p.path} (op #${p.op}) after the final sync`,
        afterOp: -1,
      }));
    }
  }

  /**
   * I12 during the history (at each point no command runs) and after the
   * final sync: each old client's committed write recorded here (`oldsame`
   * moves) is held by the store, with its bytes, while the remote index
   * names those bytes there: no erasure of a refused run deletes an old
   * client's object of the same bytes (on S3, the same ETag) for good.
   */
  async checkOldCommittedNow(
    store: StoreInspector,
    afterOp: number,
    pendingPutBack: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    if (this.oldCommitted.length === 0) return;
    const index = await indexEntriesOf(store);
    for (const w of this.oldCommitted) {
      // An erasure's put-back of it recorded as pending (see the workload):
      // made by that clone's next push; the final check holds it then.
      if (afterOp >= 0 && pendingPutBack.has(w.path)) continue;
      const e = index[w.path];
      if (!e || e.h !== await sha256Hex(w.bytes)) continue;
      if (sameBytes(await store.read(w.path), w.bytes)) continue;
      this.violate({
        invariant: "I12",
        message:
          `an old client's committed write of ${w.path} (op #${w.op}) is gone from the store while the remote index names it: a refused run's erasure deleted another client's object of the same bytes`,
        afterOp,
      }, `gone ${w.op} ${w.path}`);
    }
  }

  /**
   * I28 after the final sync: each version a process marked dirty in a
   * cache it shared with another process, and did not push itself (it died
   * before its push, or its push failed), is named by the remote index
   * (`entries`) with its bytes, held by the store (`read`), and on every
   * clone: the final sync, in a process started afresh on that cache, took
   * the marks in and published it. (One acknowledged is I1's; one refused,
   * its lock lost, is erased.)
   */
  async checkMarked(
    entries: Readonly<Record<string, { h?: string }>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
  ): Promise<void> {
    const settled = ["success", "model_lock_lost", "version_exists"];
    for (const r of this.marked) {
      if (settled.includes(r.outcome)) continue;
      for (const f of r.files) {
        const hash = await this.#hash(f);
        const missing: string[] = [];
        if (entries[f.path]?.h !== hash) missing.push("the remote index");
        if (!sameBytes(await read(f.path), f.bytes)) missing.push("the store");
        for (const [i, dir] of cloneDirs.entries()) {
          if (!sameBytes(await readCacheFile(dir, f.path), f.bytes)) missing.push(`clone c${i}`);
        }
        if (missing.length === 0) continue;
        this.violate({
          invariant: "I28",
          message:
            `a second process over c${r.clone}'s cache marked ${f.path} dirty (op #${r.op}) and ${
              r.outcome === "crashed" ? "died before its push" : `its push failed (${r.outcome})`
            }; after the final sync, in a process started afresh on that cache, ${
              missing.join(", ")
            } ${missing.length > 1 ? "do" : "does"} not hold it: its marks were lost`,
          afterOp: -1,
        });
      }
    }
  }

  /**
   * I18 after the final sync: each object another tool put into the
   * bucket whose bytes the store (`read`, past faults) still holds is named
   * by the remote index (`entries`) with its hash; one at a path of the
   * tool's own is also on every clone, but a clone whose user changed that
   * path (`changedBy`: an edit, a merge of a conflict there), whose copy is
   * its user's choice (published, the store would no longer hold the
   * tool's bytes; else it is held here, dirty or in conflict: I6's).
   */
  async checkForeign(
    entries: Readonly<Record<string, { h?: string }>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
    changedBy: (clone: number, path: string) => boolean = () => false,
  ): Promise<void> {
    for (const f of this.foreign) {
      const hash = await sha256Hex(new TextEncoder().encode(f.text));
      const held = await read(f.path);
      if (!held || (await sha256Hex(held)) !== hash) continue;
      const e = entries[f.path];
      // A discovered entry has no hash (`h` empty), as other clients' entries.
      if (!e || (e.h && e.h !== hash)) {
        this.violate({
          invariant: "I18",
          message:
            `the store still holds the object another tool put at ${f.path} (op #${f.op}) before any index, but the remote index ${
              e ? "names other bytes there" : "does not name it"
            } after the final sync: no reader sees it`,
          afterOp: -1,
        });
        continue;
      }
      if (!f.own) continue;
      const unchanged = cloneDirs.filter((_, i) => !changedBy(i, f.path));
      await this.#onEveryClone(unchanged, f.path, f.text, (dir) => ({
        invariant: "I18",
        message:
          `${dir} does not hold ${f.path}, which another tool put into the bucket (op #${f.op}), after the final sync`,
        afterOp: -1,
      }));
    }
    for (const f of this.lockless) {
      const hash = await sha256Hex(new TextEncoder().encode(f.text));
      const held = await read(f.path);
      const kept = held !== undefined && (await sha256Hex(held)) === hash;
      // A version's file another tool deleted since (`vanish` moves) is I19's.
      if (!kept && !f.marker && !this.#vanished.some((v) => v.path === f.path)) {
        this.violate({
          invariant: "I18",
          message:
            `another tool published ${f.path} honouring no lock (op #${f.op}), but after the final sync the store ${
              held ? "holds other bytes there" : "no longer holds it"
            }: a data version of another writer's was ${held ? "written over" : "deleted"}`,
          afterOp: -1,
        });
        continue;
      }
      if (!kept || !f.indexed) continue;
      const e = entries[f.path];
      if (!e || (e.h && e.h !== hash)) {
        this.violate({
          invariant: "I18",
          message:
            `another tool published ${f.path} with its index entry (op #${f.op}), and the store still holds it, but the remote index ${
              e ? "names other bytes there" : "does not name it"
            } after the final sync: no reader sees it`,
          afterOp: -1,
        });
      }
    }
  }

  /**
   * Clone `clone`'s cache was replaced by a copy of another's (a `copy`
   * move): what it held there its user gave up, and it holds it no more.
   */
  cacheReplaced(clone: number): void {
    for (const v of this.#vanished) v.holders = v.holders.filter((c) => c !== clone);
  }

  /**
   * Another tool deleted the object at `path` (op `op`), holding `bytes` at
   * `version`; `holders` held them; the remote index named `indexed` there
   * then (undefined: nothing).
   */
  async vanished(
    op: number,
    path: string,
    bytes: Uint8Array,
    version: string,
    holders: number[],
    touchedBefore: number,
    pending = false,
    indexed?: string,
    rewritten = false,
  ): Promise<void> {
    this.#vanished.push({
      rewritten,
      op,
      path,
      bytes,
      hash: await sha256Hex(bytes),
      version,
      holders,
      touchedBefore,
      letGoBefore: this.#letGo.length,
      pending,
      ...(indexed !== undefined ? { indexed } : {}),
    });
  }

  /** A user took theirs at `path` (for I19: a deletion of theirs stands by choice). */
  letGo(path: string): void {
    this.#letGo.push(path);
  }

  /**
   * True when `e` names an object another tool deleted at `path`: its
   * version, or, for an entry naming no version, its bytes' hash (or, naming
   * no hash either, as a listing's entry does, their size); or the version
   * the index named there when it was deleted (a write replaced that object
   * before the deletion, and its commit never came).
   */
  namesVanished(path: string, e: { v: string; h?: string; s?: number }): boolean {
    return this.#vanished.some((v) =>
      v.path === path &&
      (v.version === e.v || v.indexed === e.v ||
        (e.v.startsWith("~") && (e.h ? e.h === v.hash : e.s === v.bytes.length)))
    );
  }

  /**
   * I19 after the final sync: the bytes of each object another tool deleted
   * where a clone held them are on the store (`read`) or on a clone
   * (`cloneDirs`), unless a user changed or deleted that path since
   * (`touched`: `LocalChanges.touched`) or took theirs there.
   */
  /**
   * I27 after the final sync (see the module): each run refused with
   * `version_exists` lost to a version the index names, not to nothing nor
   * to a refused run's bytes.
   */
  async checkLostVersions(
    entries: Readonly<Record<string, unknown>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    const refused = this.runs.filter((r) => r.outcome === "model_lock_lost" && !r.same);
    for (const r of this.runs) {
      if (r.outcome !== "version_exists") continue;
      const raw = r.files.find((f) => f.path.endsWith("/raw"));
      if (!raw || this.#vanished.some((v) => v.path === raw.path)) continue;
      // The version lost to: its raw, or, where an old client wrote only
      // another file of it (the same bytes as a run's, over its upload), that.
      const dir = raw.path.slice(0, raw.path.lastIndexOf("/") + 1);
      const files = r.files.map((f) => f.path).filter((p) => p.startsWith(dir));
      const shown = [raw.path, ...files.filter((p) => p !== raw.path)].find((p) =>
        Object.hasOwn(entries, p)
      );
      const named = shown !== undefined;
      const bytes = named ? new TextDecoder().decode(await read(shown) ?? new Uint8Array()) : "";
      const to = refused.find((x) => bytes.includes(x.token));
      if (named && !to) continue;
      // Lost to another tool's version put there with no index entry (a
      // `lockless` move), which the store holds: a version, named or not.
      if (!named && await this.#heldUnindexed(raw.path, read)) continue;
      this.violate({
        invariant: "I27",
        message: `run #${r.op} (c${r.clone}) was refused with version_exists for ${raw.path}, ${
          to
            ? `which holds run #${to.op}'s bytes, a run refused for losing its lock`
            : "which no index names after the final sync"
        }: it lost its version to no version`,
        afterOp: -1,
      });
    }
  }

  /** True when the store (`read`) holds at `path` what another tool wrote there with no index entry. */
  async #heldUnindexed(
    path: string,
    read: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<boolean> {
    const held = await read(path);
    return held !== undefined &&
      this.lockless.some((l) =>
        !l.indexed && l.path === path && sameBytes(held, new TextEncoder().encode(l.text))
      );
  }

  /**
   * I25 after the final sync: a mark whose write never came (nothing was
   * ever at the path here) is no deletion here: no conflict of the clone's
   * records one at that path, unless a user changed or deleted the path
   * since (`touched`).
   */
  checkUnwritten(
    conflictsOf: (clone: number) => readonly { path: string; mine: unknown }[],
    touched: readonly string[],
  ): void {
    for (const u of this.unwritten) {
      if (touched.slice(u.touchedBefore).includes(u.path)) continue;
      const rec = conflictsOf(u.clone).find((c) => c.path === u.path);
      if (!rec || rec.mine !== null) continue;
      this.violate({
        invariant: "I25",
        message:
          `c${u.clone} marked ${u.path} dirty with nothing there (op #${u.op}: its write never came), and a conflict of its records that as a deletion here: --mine would delete theirs, which no user deleted`,
        afterOp: -1,
      });
    }
  }

  async checkVanished(
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
    touched: readonly string[],
  ): Promise<void> {
    for (const v of this.#vanished) {
      if (v.holders.length === 0 || v.pending) continue;
      if (v.rewritten) {
        await this.#checkRewritten(v, cloneDirs);
        continue;
      }
      if (touched.slice(v.touchedBefore).includes(v.path)) continue;
      if (this.#letGo.slice(v.letGoBefore).includes(v.path)) continue;
      if (await read(v.path)) continue;
      let kept = false;
      for (const dir of cloneDirs) {
        if (sameBytes(await Deno.readFile(`${dir}/${v.path}`).catch(() => undefined), v.bytes)) {
          kept = true;
        }
      }
      if (kept) continue;
      this.violate({
        invariant: "I19",
        message: `another tool deleted ${v.path} from the store (op #${v.op}) while c${
          v.holders.join(", c")
        } held its bytes; after the final sync neither the store nor any clone holds them, and no user changed, deleted or took theirs for that path since: the last copies were removed`,
        afterOp: -1,
      });
    }
  }

  /**
   * A data version another client published again with other bytes: each
   * clone that held the bytes published first still holds them somewhere in
   * its directory (at the path, or set aside by the pull that met the
   * rewrite), whatever its user resolved since: a data version is never
   * rewritten, and nothing deletes a set-aside copy but its user.
   */
  async #checkRewritten(
    v: { path: string; op: number; bytes: Uint8Array; holders: number[] },
    cloneDirs: readonly string[],
  ): Promise<void> {
    for (const c of v.holders) {
      const dir = cloneDirs[c];
      if (dir === undefined || await holdsBytes(dir, v.bytes)) continue;
      this.violate({
        invariant: "I19",
        message:
          `another client published ${v.path} again with other bytes (op #${v.op}) while c${c} held the bytes published first; after the final sync c${c} holds them nowhere: its pull wrote over the last copy`,
        afterOp: -1,
      });
    }
  }

  /** Records `missing(dir)` for each of `cloneDirs` that does not hold `text` at `path`. */
  async #onEveryClone(
    cloneDirs: readonly string[],
    path: string,
    text: string,
    missing: (dir: string) => Violation,
  ): Promise<void> {
    for (const dir of cloneDirs) {
      const here = await Deno.readTextFile(`${dir}/${path}`).catch(() => null);
      if (here !== text) this.violate(missing(dir));
    }
  }

  /** Records a violation unless the same (invariant, key) was recorded before. */
  violate(v: Violation, key = v.message): void {
    const k = `${v.invariant} ${key}`;
    if (this.#seen.has(k)) return;
    this.#seen.add(k);
    this.violations.push(v);
  }

  async #hash(f: RunFile): Promise<string> {
    let h = this.#hashes.get(f);
    if (!h) this.#hashes.set(f, h = await sha256Hex(f.bytes));
    return h;
  }

  /**
   * I2 during the history: no clone holds a refused run's file, and the store
   * holds one only uncommitted (absent from the remote index).
   */
  async checkRefusedNow(
    store: StoreInspector,
    cacheDirs: readonly string[],
    afterOp: number,
  ): Promise<void> {
    const lost = this.runs.filter((r) =>
      r.outcome === "model_lock_lost" && r.files.length > 0 && !r.same
    );
    if (lost.length === 0) return;
    let index: Record<string, { h?: string }> | undefined;
    // Read as every client reads it: the v1 index object, or the v2 shards.
    for (const r of lost) {
      for (const f of r.files) {
        if (sameBytes(await store.read(f.path), f.bytes)) {
          index ??= await indexEntriesOf(store);
          if (index[f.path]?.h === await this.#hash(f)) {
            this.violate({
              invariant: "I2",
              message:
                `${f.path} of run #${r.op} (c${r.clone}, refused with model_lock_lost) is committed to the remote index, so clones pull it`,
              afterOp,
            }, `${r.op} index ${f.path}`);
          }
        }
        for (const [i, dir] of cacheDirs.entries()) {
          if (sameBytes(await readCacheFile(dir, f.path), f.bytes)) {
            this.violate({
              invariant: "I2",
              message:
                `clone c${i} holds ${f.path} of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
              afterOp,
            }, `${r.op} c${i} ${f.path}`);
          }
        }
      }
    }
  }

  /**
   * True when clone `clone` holds at `f.path` the bytes of a run of its own
   * that did not succeed, in an open conflict naming `f`'s bytes as theirs,
   * and an old client's pull wrote an index over without `f.path` while the
   * store held it (`oldPullRunsUnnamed`: a commit of run `r` it dropped,
   * README's old-client limits): a run of the clone
   * numbered from that index made the same version, its push found `r`'s
   * upload uncommitted in the way, and `r`'s writer named it again only at
   * the final sync, whose pull kept the clone's own version in a conflict
   * (a data version is never written over). Seed 209700114.
   */
  async #ownRunAtDropped(
    r: RunRecord,
    f: RunFile,
    clone: number,
    dir: string,
    theirsInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean>,
  ): Promise<boolean> {
    if (!this.oldPullRunsUnnamed.has(f.path) || r.clone === clone) return false;
    const here = await readCacheFile(dir, f.path);
    const own = this.runs.some((o) =>
      o.clone === clone && o.outcome !== "success" &&
      o.files.some((g) => g.path === f.path && sameBytes(g.bytes, here))
    );
    return own && await theirsInConflict(clone, f.path, f.bytes);
  }

  /** Files of acknowledged runs that I1 checks on a clone after the final resolution. */
  readonly #afterResolution: {
    run: RunRecord;
    path: string;
    bytes: Uint8Array;
    clone: number;
    /** What held the run's bytes back there at the final sync. */
    met: string;
  }[] = [];

  /**
   * I1 for the files `checkFinal` found a user's edit, or a run of the
   * clone's own at that version (see `checkFinal`), in conflict at: the
   * final resolution (`--mine`, refused for a data version another writer
   * published, then `--theirs` or the pull its refusal names) must have
   * brought the run's bytes there.
   */
  async checkAfterResolution(cacheDirs: readonly string[]): Promise<void> {
    for (const { run: r, path, bytes, clone, met } of this.#afterResolution) {
      if (sameBytes(await readCacheFile(cacheDirs[clone], path), bytes)) continue;
      this.violate({
        invariant: "I1",
        message:
          `run #${r.op} (c${r.clone}) reported success, but after the final resolution of the conflict ${met} there met, clone c${clone} does not hold its ${path}`,
        afterOp: -1,
      });
    }
  }

  /** I14 (see the module) over the index `store` holds now. */
  async checkMarkersNow(store: StoreInspector, afterOp: number): Promise<void> {
    if (!this.#markerNumbers) {
      this.#markerNumbers = new Map();
      for (let n = 1; n <= 256; n++) {
        this.#markerNumbers.set(await sha256Hex(new TextEncoder().encode(`${n}`)), n);
      }
    }
    const index = await indexEntriesOf(store);
    for (const [path, e] of Object.entries(index)) {
      if (!path.endsWith("/latest") || !e.h || this.userMarkers.has(`${path}\0${e.h}`)) continue;
      const n = this.#markerNumbers.get(e.h);
      const raw = `${path.slice(0, -"latest".length)}${n}/raw`;
      if (n === undefined || Object.hasOwn(index, raw)) continue;
      // Its raw output deleted by another tool, and its entry removed since,
      // or by its clone's user (a run not acknowledged: `delete` with `run`).
      if (this.#vanished.some((v) => v.path === raw) || this.userDeletedRaws.has(raw)) continue;
      this.violate({
        invariant: "I14",
        message:
          `the remote index names ${path} = ${n}, but not ${raw}: readers are pointed at a version whose files it does not list`,
        afterOp,
      }, `I14 ${path} ${e.h}`);
    }
  }

  /**
   * I1, the final I2 scan, and I3, after the final sync. `leftForGood`
   * names the keys whose refused bytes I2's store scan spares (a refused
   * run's upload whose erasure went with a cache a `copy` move replaced,
   * named by no index: `workload.ts`); returns how many it spared.
   */
  async checkFinal(
    store: StoreInspector,
    cacheDirs: readonly string[],
    leftForGood: (key: string) => boolean = () => false,
    editedInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean> = () =>
      Promise.resolve(false),
    theirsInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean> = () =>
      Promise.resolve(false),
  ): Promise<number> {
    const afterOp = -1;
    let spared = 0;
    for (const r of this.runs.filter((r) => r.outcome === "success")) {
      for (const f of r.files) {
        // Deleted by a user of a clone while its marker named it: I36.
        if (this.userDeletedCommitted.has(f.path)) continue;
        // Deleted by another tool: I19 checks its bytes instead.
        if (this.#vanished.some((v) => v.path === f.path && sameBytes(v.bytes, f.bytes))) continue;
        const missing: string[] = [];
        if (!sameBytes(await store.read(f.path), f.bytes)) missing.push("the store");
        for (const [i, dir] of cacheDirs.entries()) {
          if (sameBytes(await readCacheFile(dir, f.path), f.bytes)) continue;
          // A user's edit there (a merge its resolution left in place, cut
          // off), kept by the pull in a conflict naming these bytes as
          // theirs: never written over; checked again after the final
          // resolution (see `checkAfterResolution`).
          if (await editedInConflict(i, f.path, f.bytes)) {
            const met = "its user's edit";
            this.#afterResolution.push({ run: r, path: f.path, bytes: f.bytes, clone: i, met });
          } else if (await this.#ownRunAtDropped(r, f, i, cacheDirs[i], theirsInConflict)) {
            const met = "a run of its own at that version";
            this.#afterResolution.push({ run: r, path: f.path, bytes: f.bytes, clone: i, met });
          } else missing.push(`clone c${i}`);
        }
        if (missing.length > 0) {
          this.violate({
            invariant: "I1",
            message: `run #${r.op} (c${r.clone}) reported success, but after the final sync ${
              missing.join(", ")
            } ${missing.length > 1 ? "do" : "does"} not hold its ${f.path}`,
            afterOp,
          });
        }
      }
    }
    // I24: a run that lost its version to another writer (`version_exists`)
    // has none of its own bytes committed: the version is the other's, whole.
    const own = (r: RunRecord) => {
      const dirs = r.files.map((f) => f.path.slice(0, f.path.lastIndexOf("/") + 1));
      return (r.refusedKeys ?? []).some((k) => dirs.some((d) => k.startsWith(d)));
    };
    const beaten = this.runs.filter((r) =>
      r.outcome === "version_exists" && r.files.length > 0 && !r.same && own(r)
    );
    if (beaten.length > 0) {
      const index = await indexEntriesOf(store);
      for (const path of Object.keys(index)) {
        const text = dec.decode((await store.read(path)) ?? new Uint8Array());
        const r = beaten.find((r) => text.includes(r.token));
        if (r) {
          this.violate({
            invariant: "I24",
            message:
              `the remote index names ${path}, which holds bytes of run #${r.op} (c${r.clone}), refused with version_exists: a version another writer won holds part of the loser's output`,
            afterOp,
          });
        }
      }
    }
    const lost = this.runs.filter((r) =>
      r.outcome === "model_lock_lost" && r.files.length > 0 && !r.same
    );
    if (lost.length > 0) {
      const find = (text: string) => lost.find((r) => text.includes(r.token));
      for (const key of await store.keys()) {
        const r = find(dec.decode((await store.read(key)) ?? new Uint8Array()));
        if (r && leftForGood(key)) spared++;
        else if (r) {
          this.violate({
            invariant: "I2",
            message:
              `the store holds ${key} with bytes of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
            afterOp,
          });
        }
      }
      for (const [i, dir] of cacheDirs.entries()) {
        for await (const p of walk(dir)) {
          const r = find(dec.decode((await readCacheFile(dir, p)) ?? new Uint8Array()));
          if (r) {
            this.violate({
              invariant: "I2",
              message:
                `clone c${i} holds ${p} with bytes of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
              afterOp,
            });
          }
        }
      }
    }
    const body = await store.read(MANAGED_LOCKFILE_PATH);
    let entries: Record<string, unknown> = {};
    try {
      entries = body ? JSON.parse(dec.decode(body)) : {};
    } catch (e) {
      this.violate({
        invariant: "I3",
        message: `the managed lockfile on the store is not JSON (${(e as Error).message})`,
        afterOp,
      });
    }
    for (const t of this.txns.filter((t) => t.outcome === "acked")) {
      for (const [name, value] of Object.entries(t.set)) {
        if (this.removals.has(name)) continue;
        if (!(name in entries)) {
          this.violate({
            invariant: "I3",
            message:
              `lockfile entry ${name}, added by acknowledged transaction #${t.op} (c${t.clone}), is missing from the store and no transaction removed it`,
            afterOp,
          }, `missing ${name}`);
        } else if (!isDeepStrictEqual(entries[name], value)) {
          this.violate({
            invariant: "I3",
            message: `lockfile entry ${name} holds ${JSON.stringify(entries[name])}, not ${
              JSON.stringify(value)
            } as transaction #${t.op} published`,
            afterOp,
          }, `changed ${name}`);
        }
      }
    }
    return spared;
  }
}

/** The sentinel file planted beside the cache dirs. */
export const SENTINEL = { dir: "outside", file: "sentinel.txt", text: "nothing may write here\n" };

/** Plants the I5 sentinel in `root`. */
export async function plantSentinel(root: string): Promise<void> {
  await Deno.mkdir(`${root}/${SENTINEL.dir}`);
  await Deno.writeTextFile(`${root}/${SENTINEL.dir}/${SENTINEL.file}`, SENTINEL.text);
}

/**
 * I5: `root` holds exactly the cache dirs `allowed` and the sentinel dir,
 * which still holds exactly the sentinel file, unchanged.
 */
export async function checkOutside(
  root: string,
  allowed: readonly string[],
): Promise<Violation[]> {
  const out: Violation[] = [];
  const expected = new Set([...allowed, SENTINEL.dir]);
  for (const e of Deno.readDirSync(root)) {
    if (!expected.has(e.name) || !e.isDirectory) {
      out.push({
        invariant: "I5",
        message: `${root}/${e.name} was written outside every cache dir`,
        afterOp: -1,
      });
    }
  }
  const inside: string[] = [];
  for await (const p of walk(`${root}/${SENTINEL.dir}`)) inside.push(p);
  if (inside.length !== 1 || inside[0] !== SENTINEL.file) {
    out.push({
      invariant: "I5",
      message: `the sentinel dir holds ${JSON.stringify(inside)}`,
      afterOp: -1,
    });
  } else {
    const text = await Deno.readTextFile(`${root}/${SENTINEL.dir}/${SENTINEL.file}`);
    if (text !== SENTINEL.text) {
      out.push({ invariant: "I5", message: "the sentinel file was changed", afterOp: -1 });
    }
  }
  return out;
}

/** True when a file anywhere under `dir` (links not followed) holds exactly `bytes`. */
async function holdsBytes(dir: string, bytes: Uint8Array): Promise<boolean> {
  for await (const e of Deno.readDir(dir)) {
    const at = `${dir}/${e.name}`;
    if (e.isDirectory && await holdsBytes(at, bytes)) return true;
    if (e.isFile && sameBytes(await Deno.readFile(at).catch(() => undefined), bytes)) return true;
  }
  return false;
}
