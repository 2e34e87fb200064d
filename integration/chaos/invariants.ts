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
 *   version a damaged line of its manifest log then held, or an old
 *   client's push or a clone deleted it and an old client's pull that read
 *   the index before that deletion's commit wrote the entry back (a clone's
 *   deletion made after the version's last put, and no clone's write of
 *   that version since: `old_pull_undone.ts`; a pull past the
 *   dangling-entry grace removes the entry; `workload.ts`), and where such
 *   a pull rolled a clone's commit back to the version it read, the store
 *   holding the version taken out, and that clone's user deleted the file
 *   by hand, unmarked, its pull telling of it (the user's to decide:
 *   `rolledBackDeletedHere` in `old_pull_undone.ts`);
 * - I8: a fresh clone gets every committed file, markers included
 *   (`index_checks.ts`), with the same exceptions;
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
 *   another tool deleted: I19; not one of a run not acknowledged that its
 *   clone's user deleted, `delete` with `run`, as the push of that deletion
 *   must not name a marker pointing at it): no reader is pointed at files
 *   the index does not list;
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
 *   what is there when an index is made is named by it. The object is the
 *   tool's while the store holds the version its put made (no writer's id
 *   on it): the same bytes a writer put there since are that writer's.
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
 *   every clone that held it then, at its path or set aside. One an older
 *   client's push deleted blind (`blind`) is spared once the run's clone
 *   gave up the cache its run published from for a copy (`copy` moves),
 *   where the bytes deleted are that run's and every other acknowledged
 *   run that wrote them there was given up so too: only the cache whose
 *   push created a data version keeps it over a deletion, and a clone that
 *   pulled it follows the deletion;
 * - I20: a push that succeeds accounts for every local change it was asked
 *   to publish: published, still marked dirty, or named in its result
 *   (`accounted.ts`).
 * - I21: a cache the swamp extension drives holds nothing of Sluice's own
 *   that the existing extensions, switched in on it, would upload
 *   (`switch_back.ts`).
 * - I22: a resolution reported resolved took its side: a `--theirs` whose
 *   pull left the path out (something here in the way) is never resolved;
 *   and one that failed part way (its push or pull cut off) leaves its
 *   conflict open; nor is one reported resolved while a conflict of its
 *   path that a second process over the cache recorded as it ran is open.
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
 *   lost meanwhile (the streamed run's other step, `core_steps.ts`), nor
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
 *   (`named_held.ts`), or it is one of I7's exceptions; and a file a clone's user wrote under a directory at
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
 * - I38: a clone's pull right after its push of a `latest` marker, raced
 *   by a peer's marker moved forward (a `sync` with `raced`), records no
 *   conflict at that marker where the marker here names a higher version
 *   than the one the clone synced, and the datastore's one between the two
 *   that no user's rollback wrote: a version listed above the peer's marker
 *   that this cache's own push published is none the peer moved back from
 *   (`moves_lost_race.ts`).
 * - I39: a `resolve --mine` whose side here is a deletion, its conflict
 *   gone as it ended (resolved, or held back for the next push), is
 *   published by the final sync or met again as a conflict: after the
 *   final sync no clone holds such a deletion marked, nothing at the path
 *   here, while the index names the path and no conflict is open there,
 *   unless its user changed the path since (`mine_deletions.ts`).
 *
 * Runs that fail with anything else (`unreachable`, a lock timeout, a crash)
 * are neither acknowledged nor refused: their data may or may not land
 * later, and no invariant speaks about them (a `version_exists` one only
 * through I24).
 *
 * What the ground truth records is in `truth_records.ts`; the checks of
 * writes by old clients and other tools in `checks_others.ts`; those of
 * runs, marks and lockfile transactions in `checks_runs.ts`.
 *
 * @module
 */
import { RunChecks } from "./checks_runs.ts";
import { type Violation, walk } from "./truth_records.ts";

export {
  type Invariant,
  pendingRun,
  type RunFile,
  type RunRecord,
  sameBytes,
  type StoreInspector,
  type TxnRecord,
  type Violation,
} from "./truth_records.ts";

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
export class GroundTruth extends RunChecks {}

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
