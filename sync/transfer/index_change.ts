/**
 * What a commit asks of the remote index (`remote_index.ts` `updateIndex`):
 * the change it applies, with the conditions each path's write or deletion
 * was made on, what it is told when the commit lands, and what it asks
 * first of a datastore with no index. Types only: `index_apply.ts` applies
 * a change, `index_v2.ts` and `remote_index.ts` write it.
 *
 * @module
 */
import type { IndexEntry } from "./bucket_layout.ts";
import type { HeldObject } from "./index_apply.ts";

/** A change of the index. */
export interface IndexChange {
  readonly set: Record<string, IndexEntry>;
  readonly remove: readonly string[];
  /**
   * For a path written or deleted conditionally: the version it was
   * conditional on (`null`: created). When the index names another version
   * by then, the change is applied only while the store still holds what it
   * wrote (or, for a delete, nothing): an entry a peer committed over this
   * write is never put back.
   */
  readonly base?: Readonly<Record<string, string | null>>;
  /**
   * For a deletion: the hash of the copy it was based on. Where the index
   * names that copy by another client's entry (no version of Sluice's), the
   * entry is taken for the one the deletion was based on (see `apply`).
   */
  readonly baseHash?: Readonly<Record<string, string>>;
  /**
   * For a deletion: the size of the copy it was based on, for another
   * client's entry that records no hash (see `apply`).
   */
  readonly baseSize?: Readonly<Record<string, number>>;
  /**
   * Apply each `set` only while the store holds the version it names, and
   * each `remove` only while it holds nothing at the path: for a change
   * replayed from an older commit (an index move's catch-up, or a v1 commit
   * carried into a bucket that turned v2), which a later commit may have
   * overtaken by deleting, replacing or creating the object again.
   */
  readonly verify?: boolean;
  /**
   * Paths whose `set` is applied only while the store holds the version it
   * names: writes that found their bytes already there (a peer that saw
   * them may have deleted them since).
   */
  readonly check?: readonly string[];
  /**
   * Paths whose write found its `base` gone from the store and went
   * through all the same: the object created again over a deletion nobody
   * had committed, this cache's own stranded write replaced, or equal
   * bytes met in place. Set only while the index still names an entry
   * there: once the entry is gone, a deletion was committed, and this
   * change, not based on it, is left out as a conflict (see `apply`).
   */
  readonly baseGone?: readonly string[];
  /**
   * Paths written over their `base` where the index named that version when
   * their writer last synced it (not an entry another client dropped, kept
   * to be named again). Set while an entry is there. Once none is, and the
   * store no longer holds this write or a take-back's note names `base`
   * (`withdrawal_note.ts`), a deletion was committed since, which this
   * change never saw (its delete met this write in place of the base, after
   * its entry was taken out), and the path is left out as a conflict, as
   * with `baseGone` (see `apply`); any other missing entry is one an old
   * client's write-back dropped, and the path is named.
   */
  readonly namedBase?: readonly string[];
  /**
   * Paths written over the version their writer synced where a pull of it
   * found the entry gone while the store held that version, and kept it as
   * an entry another client dropped, to name again. Such a pull may have run
   * inside a take-back of that version (the entry taken out before the
   * object is deleted): once no entry names the path and the store no longer
   * holds this write either, or a take-back's note names `base` (a delete
   * that checks the version, then deletes, can take this write after its
   * commit), a deletion was committed since, and the path is left out as a
   * conflict, as with `namedBase`. A write still held there otherwise is
   * over the dropped entry, and named.
   */
  readonly keptBase?: readonly string[];
  /**
   * Removals whose delete found nothing there (the object already gone), or
   * whose delete was a check then a delete (`ObjectStore.deletesChecked`).
   * Where the entry names another version than the removal's `base` (a
   * peer's commit this cache never saw, whose object went outside Sluice,
   * or that such a delete removed in its window), it is left, not taken out
   * (see `apply`).
   */
  readonly foundGone?: readonly string[];
  /**
   * Removals made before their delete: the object the entry names (the
   * removal's `base`) is still in the store, and its writer deletes it once
   * the entry is gone. Taken out while the entry and the store both still
   * name that version, also where every conditional path is checked against
   * the store (`checkCreates`, or beside old clients' entries), which would
   * otherwise take the object standing there for another writer's.
   */
  readonly removeHeld?: readonly string[];
  /**
   * Check every conditional path (`base` set: creates, writes and
   * deletions) against the store, as a path another client may have
   * overwritten (see `apply`): an old client may have replaced or deleted
   * it without a compare-and-swap before this commit, with no trace in the
   * index yet.
   */
  readonly checkCreates?: boolean;
  /**
   * Filled by the commit: each path of `set` the index did not name that was
   * left out because the index names the other shape of it (a file above
   * it, or files under it), with one such path: published, it would leave a
   * file and files under a directory of one name, which no cache can pull
   * whole.
   */
  readonly clashing?: Map<string, string>;
  /**
   * With `clashing`: whether the index holds, beyond the entries the commit
   * sees (another shard of a v2 index), a path under the directory `dir`
   * that this change does not remove: a file `dir` then already stands
   * beside files under a directory of its name, and a path under it is no
   * new clash (see `apply`). Asked only of a file found above a new path.
   */
  readonly besideElsewhere?: (dir: string) => Promise<boolean>;
}

/**
 * Told, when an index commit lands, the token of the index it was applied
 * to (null: there was none), whether every path of the change was applied
 * (false when a peer's write stood in the way of some), and the paths left
 * out because another writer replaced or deleted their write before the
 * commit, with what the store holds there, and the paths whose bytes found
 * in place were gone by the commit, published by no one (see `apply` in
 * `index_apply.ts`).
 */
export type OnCommit = (
  base: string | null,
  complete: boolean,
  foreign: ReadonlyMap<string, HeldObject | null>,
  unpublished: ReadonlySet<string>,
) => void;

/**
 * What a commit into a datastore with no index asks first: the entries of
 * the objects already there to name in the index it creates (see
 * `index_discovery.ts`), and, once that write landed, how many it named.
 */
export interface IndexDiscovery {
  /** Made for the discovery alone (a pull): an empty change still looks for an index. */
  readonly alone?: boolean;
  /**
   * Write an index where there is none even when it names nothing (a
   * cache's first push makes it as its uploads begin: see
   * `push_first_index.ts`).
   */
  readonly create?: boolean;
  /** `own`: the paths of the commit's change (its own writes: not looked at). */
  find(own: ReadonlySet<string>): Promise<Record<string, IndexEntry>>;
  landed?(count: number): void;
}
