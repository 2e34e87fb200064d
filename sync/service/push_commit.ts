/**
 * The commit step of a push: what a push (or its preparation) leaves to
 * commit, and the commit itself, which merges the index change into the
 * remote index and then commits the dirty set and the synced manifest.
 *
 * @module
 */
import { forgetVanished } from "./vanished_record.ts";
import {
  type HeldObject,
  type IndexDiscovery,
  type IndexEntry,
  type IndexMemo,
  readIndexAround,
  updateIndex,
} from "../transfer/remote_index.ts";
import { withRetry } from "../retry.ts";
import { checkedToken, type SyncState, UNCHECKED } from "./state.ts";
import type { PushContext } from "../context.ts";
import { dropOwnOverDeletions, goneAfterCommit, putBackOwn } from "./push_commit_own.ts";

/** What a prepared push leaves for its commit: the index change and the local state to commit. */
export interface PendingCommit {
  /** Index entries to set. */
  readonly set: Record<string, IndexEntry>;
  /** Index entries to remove. */
  readonly remove: readonly string[];
  /** The version each change was conditional on (see `IndexChange.base`). */
  readonly base?: Readonly<Record<string, string | null>>;
  /** The hash of the copy each deletion was based on (see `IndexChange.baseHash`). */
  readonly baseHash?: Readonly<Record<string, string>>;
  /** The size of the copy each deletion was based on (see `IndexChange.baseSize`). */
  readonly baseSize?: Readonly<Record<string, number>>;
  /** Paths set only while the store holds their version (see `IndexChange.check`). */
  readonly check?: readonly string[];
  /** Paths written where the store no longer held their base (see `IndexChange.baseGone`). */
  readonly baseGone?: readonly string[];
  /** Paths written over the version the index named when synced here (see `IndexChange.namedBase`). */
  readonly namedBase?: readonly string[];
  /** Paths written over a dropped entry's version kept here (see `IndexChange.keptBase`). */
  readonly keptBase?: readonly string[];
  /** Removals whose delete found the object gone (see `IndexChange.foundGone`). */
  readonly foundGone?: readonly string[];
  /** Dirty paths the commit cleans. */
  readonly handled: readonly string[];
  /**
   * Marked directories whose commit-step writes (markers, index files) a
   * preparation deferred: the commit cleans each once those are made.
   */
  readonly deferredDirs?: readonly string[];
  /** The dirty-set snapshot taken when the push started. */
  readonly snapshot: ReturnType<SyncState["snapshot"]>;
  /** True when a walk push completed without failures (the bulk mark is then cleared). */
  readonly walkDone: boolean;
  /**
   * What the synced manifest records for each written path, once the index
   * names it: a write whose commit fails (or never comes) leaves the
   * manifest at the version before it, so the next push writes it again.
   */
  readonly synced?: Readonly<
    Record<
      string,
      { hash: string; version: string; size: number; mtimeMs?: number; ctimeMs?: number }
    >
  >;
}

/** A path another writer replaced or deleted before the commit, as {@link commitPrepared} recorded it. */
export interface Overwritten {
  readonly path: string;
  /** What the store held there at the commit (null: nothing). */
  readonly theirs: HeldObject | null;
}

/** Why such a path is a conflict (its record's `reason`). */
export const OVERWRITTEN_CONFLICT =
  "another writer replaced or deleted this push's write, or committed a deletion of the path, before the push committed it (an old swamp client writes without a compare-and-swap; a peer's deletion can land between this push's write and its commit): nothing of it was published";

/** The same reason as recorded by earlier releases (still read as one). */
const OVERWRITTEN_CONFLICT_BEFORE =
  "another writer replaced or deleted this push's write before the push committed it (an old swamp client, which writes without a compare-and-swap, never having seen it): nothing of it was published";

/** True when a conflict record's reason is {@link OVERWRITTEN_CONFLICT}. */
export function isOverwrittenConflict(reason: string | undefined): boolean {
  return reason === OVERWRITTEN_CONFLICT || reason === OVERWRITTEN_CONFLICT_BEFORE;
}

/**
 * The commit of a push: merges its index change into the remote index
 * (compare-and-swap) and commits the dirty set and the synced manifest.
 * Returns the paths whose write another writer replaced or deleted before
 * the commit (an old client, writing without a compare-and-swap: see
 * `apply` in `index_apply.ts`): none of them is published; each stays at the
 * version this cache synced before, marked dirty, with a conflict recorded
 * against what the store holds, so that neither side's change is lost and
 * the user chooses (`sluice resolve`).
 */
export async function commitPrepared(
  pending: PendingCommit,
  deps: {
    readonly store: PushContext["store"];
    readonly state: SyncState;
    readonly retry: PushContext["config"]["retry"];
    readonly signal?: AbortSignal;
    readonly indexMemo?: IndexMemo;
    /** Parallel index requests (shards); default 4. */
    readonly concurrency?: number;
    /** Time of the entries written; default the system clock. */
    readonly now?: () => number;
    /** Check each create against the store (see `PushOptions.checkCreates`). */
    readonly checkCreates?: boolean;
    /**
     * This cache's writer id: a write of its own left unpublished over a
     * committed deletion is deleted again (see below).
     */
    readonly writerId?: string | null;
    /** The cache, to put back from a found-in-place object gone after the commit. */
    readonly cache?: { read(path: string): Promise<Uint8Array | null> };
    /** On a datastore with no index: what the index this commit creates names besides. */
    readonly discovery?: IndexDiscovery;
  },
): Promise<{
  overwritten: Overwritten[];
  unpublished: string[];
  clashing: Map<string, string>;
  superseded: string[];
}> {
  // The index this cache reflects, as of its last pull: when the commit lands
  // on exactly that index and applies all of its change, the cache reflects
  // the new index too, and the next pull need not read it.
  const reflected = checkedToken(deps.state.indexVersion);
  let current = false;
  let overwritten: Overwritten[] = [];
  let unpublished: string[] = [];
  // A deletion through Sluice: no longer a file the datastore lost (a
  // record naming it would make its holders keep it as such). Dropped
  // before the index names the deletion; one request, on pushes that delete.
  if (pending.remove.length > 0) {
    await forgetVanished(deps.store, pending.remove, deps.retry, deps.signal);
  }
  // Paths new to the index left out beside the other shape of their name there.
  const clashing = new Map<string, string>();
  // The index around a file found above a new path in the commit's shard,
  // read only then, once per such file (see `IndexChange.besideElsewhere`).
  const around = new Map<string, Promise<Record<string, IndexEntry>>>();
  const removed = new Set(pending.remove);
  const besideElsewhere = async (dir: string) => {
    if (!around.has(dir)) {
      around.set(dir, readIndexAround(deps.store, dir, deps.retry, deps.signal, deps.concurrency));
    }
    const entries = await around.get(dir)!;
    return Object.keys(entries).some((k) => k.startsWith(`${dir}/`) && !removed.has(k));
  };
  // A write a later push of this same cache replaced before this commit
  // without moving its synced record (a new path's upload withdrawn, the
  // file deleted here; the synced bytes put back over it, on a store whose
  // versions are the bytes'): never named, since nothing of it is there;
  // left out as superseded, as a later push's committed write or deletion
  // that moved the record is (see below).
  const withdrawn = await withdrawnSince(pending, deps);
  const left = new Set(withdrawn);
  const set = left.size > 0
    ? Object.fromEntries(Object.entries(pending.set).filter(([p]) => !left.has(p)))
    : pending.set;
  const base = left.size > 0 && pending.base
    ? Object.fromEntries(Object.entries(pending.base).filter(([p]) => !left.has(p)))
    : pending.base;
  const check = left.size > 0 ? pending.check?.filter((p) => !left.has(p)) : pending.check;
  const version = await updateIndex(
    deps.store,
    {
      clashing,
      besideElsewhere,
      set,
      remove: pending.remove,
      base,
      baseHash: pending.baseHash,
      baseSize: pending.baseSize,
      check,
      baseGone: pending.baseGone,
      namedBase: pending.namedBase,
      keptBase: pending.keptBase,
      foundGone: pending.foundGone,
      checkCreates: deps.checkCreates,
    },
    deps.retry,
    deps.signal,
    deps.indexMemo,
    deps.concurrency,
    deps.now,
    (base, complete, foreign, gone) => {
      current = complete && base !== null && base === reflected;
      overwritten = [...foreign].map(([path, theirs]) => ({ path, theirs }))
        .sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
      unpublished = [...gone].sort();
    },
    deps.discovery,
  );
  // A write replaced before this commit by a later push of this same cache
  // (a structural command's, between a run's preparation and its commit),
  // which committed it: the store holds exactly the version this cache
  // records as synced, its own newer change, already published. Not another
  // writer's and no conflict: this commit's older write is left out, the
  // synced record stays at the newer one, and a mark set on the path stays
  // (the next push compares the copy with that record).
  // Only where that record moved since the preparation (away from the base
  // its write was conditional on): on a store whose versions are ETags, a
  // peer's write of the bytes synced before carries the very version the
  // record names, and is another writer's overwrite, a conflict.
  // So too a committed deletion of the path by that later push: nothing
  // there, and the record the write's base named is gone since.
  const superseded = overwritten.filter((o) => {
    if (!Object.hasOwn(pending.base ?? {}, o.path)) return false;
    const base = pending.base![o.path];
    const synced = deps.state.synced(o.path)?.version;
    if (o.theirs === null) return typeof base === "string" && synced === undefined;
    return synced === o.theirs.version && synced !== base;
  }).map((o) => o.path);
  superseded.push(...withdrawn);
  if (superseded.length > 0) {
    const newer = new Set(superseded);
    overwritten = overwritten.filter((o) => !newer.has(o.path));
  }
  // Bytes found in place and named by this commit can be deleted just after
  // its check by their writer's erasure (a refused run's), which read the
  // index before this commit landed: looked at again now. The erasure reads
  // the index again after its deletes and puts back what a commit named, so
  // one of the two sees the other; a path found gone here is not taken as
  // published (kept dirty, reported with the others), and the cache does not
  // reflect the index, which names it for now.
  const after = await goneAfterCommit(
    pending,
    [...unpublished, ...clashing.keys()],
    overwritten,
    deps,
  );
  if (after.length > 0) {
    current = false;
    // Written again at once from the local copy and named in place of the
    // gone object: this commit's (its lock, if any, was checked for it), and
    // it named the path already. What cannot be is not taken as published.
    const { back, overtaken } = await putBackOwn(pending, after, deps);
    const still = after.filter((p) => !back.has(p) && !overtaken.has(p));
    unpublished = [...new Set([...unpublished, ...still])].sort();
    // A deletion (or a write) of the path committed meanwhile: a conflict, as
    // any write such a commit overtook (the local copy is kept).
    for (const [path, theirs] of overtaken) overwritten.push({ path, theirs });
  }
  // On v2, only with the shard versions of the new index as far as this
  // commit knows them (unverified: its meta bump may also have published a
  // peer's shard write whose own bump was overtaken or cut off, so the next
  // pull lists the shards before it takes the index as unchanged).
  let token = version;
  if (current && version.startsWith("v2:")) {
    current = (await deps.indexMemo?.shardsAt(version.slice("v2:".length))) !== undefined;
    token = `${version}${UNCHECKED}`;
  }
  // Otherwise peers may have pushed too: the next pull reads it.
  if (version) deps.state.indexVersion = current ? token : undefined;
  // Recorded before the manifest moves on: the base is the version synced before.
  const theirs = new Set(overwritten.map((o) => o.path));
  for (const path of superseded) theirs.add(path);
  if (overwritten.length > 0) {
    const at = (deps.now ?? Date.now)();
    await deps.state.conflicts.record(overwritten.map((o) => {
      const mine = pending.synced?.[o.path];
      return {
        path: o.path,
        mine: mine && !pending.remove.includes(o.path)
          ? { location: o.path, hash: mine.hash, size: mine.size }
          : null,
        theirs: o.theirs ? { version: o.theirs.version, hash: "", size: o.theirs.size } : null,
        base: deps.state.synced(o.path)?.version,
        foundBy: "push",
        at,
        reason: OVERWRITTEN_CONFLICT,
      };
    }));
    await deps.state.markDirtyMany([...theirs]);
    await dropOwnOverDeletions(pending, overwritten, deps);
  }
  // Bytes found in place whose object was gone by the commit: nothing of
  // them is published, so they stay dirty at the version synced before, and
  // the next push writes them.
  if (unpublished.length > 0) await deps.state.markDirtyMany(unpublished);
  for (const path of unpublished) theirs.add(path);
  // Left out beside the other shape of their name: they stay dirty, and the
  // paths of that shape are kept as blocked (this cache's file or directory
  // is in their way), so that the next push holds them back with the way on
  // until the way is clear (see `blocked_record.ts`).
  if (clashing.size > 0) {
    await deps.state.markDirtyMany([...clashing.keys()]);
    for (const path of clashing.keys()) theirs.add(path);
    await deps.state.blocked.add([...new Set(clashing.values())]);
  }
  // A deleted path is forgotten only once the index no longer names it: a
  // push whose index update failed keeps it synced, so the next push deletes
  // it again (finding it gone) and removes its index entry.
  for (const path of pending.remove) if (!theirs.has(path)) deps.state.setSynced(path, undefined);
  // The written paths, listed once for the passes below.
  const synced = pending.synced ?? {};
  const written = Object.keys(synced);
  for (const path of written) {
    if (!theirs.has(path)) deps.state.setSynced(path, synced[path]);
  }
  // A data version's write goes on despite such a conflict (create-only, it
  // never replaces theirs): once it is committed, the conflict is settled.
  const settled = written.filter((p) =>
    !theirs.has(p) && isOverwrittenConflict(deps.state.conflicts.get(p)?.reason)
  );
  // A deletion committed over a conflict with the datastore's own deletion
  // (a data version's, which a push does not hold back): both sides deleted
  // the file, settled.
  for (const p of pending.remove) {
    const open = deps.state.conflicts.get(p);
    if (!theirs.has(p) && open && !open.theirs) settled.push(p);
  }
  // A copy kept over the datastore's deletion (a data version, which a push
  // does not hold back: pushed again by name rather than resolved), its
  // very bytes committed now: the datastore holds it again, settled as
  // `resolve --mine` settles it.
  for (const p of written) {
    const entry = synced[p];
    const open = deps.state.conflicts.get(p);
    if (
      !theirs.has(p) && Object.hasOwn(pending.set, p) && open && !open.theirs &&
      open.mine?.location === p &&
      open.mine.hash === entry.hash && !settled.includes(p)
    ) settled.push(p);
  }
  if (settled.length > 0) await deps.state.conflicts.settle(settled);
  const handled = theirs.size > 0 ? pending.handled.filter((p) => !theirs.has(p)) : pending.handled;
  await deps.state.commit(handled, pending.snapshot, pending.walkDone && theirs.size === 0);
  return { overwritten, unpublished, clashing, superseded };
}

/**
 * The paths of this commit's writes that a later push of this same cache
 * replaced before it, whose upload the store no longer holds:
 * - a new path whose record of this cache's write (see
 *   `SyncState.markAttempted`) is gone since the preparation made it: that
 *   push settled the record and withdrew the upload (the file deleted here);
 * - a path whose mark (or the bulk mark of a walk) the preparation saw and
 *   that push handled since, the synced record still at this write's base,
 *   the store holding that very version: that push put the synced bytes
 *   back over the upload (on a store whose versions are the bytes', the
 *   version synced before).
 * One HEAD each, only for such paths: a commit whose records and marks
 * stand pays nothing.
 */
async function withdrawnSince(
  pending: PendingCommit,
  deps: Pick<Parameters<typeof commitPrepared>[1], "store" | "state" | "retry" | "signal">,
): Promise<string[]> {
  const covered = (path: string, marks: Iterable<string>) => {
    for (const m of marks) {
      if (m === path || path.startsWith(`${m.replace(/\/+$/, "")}/`)) return true;
    }
    return false;
  };
  const now = deps.state.dirtyPaths();
  // A walk's preparation saw the bulk mark: a later walk of this cache
  // cleared it since (its commit), having handled every path.
  const walkedSince = pending.snapshot.bulkSeq >= 0 && !deps.state.bulkPending();
  const out: string[] = [];
  for (const path of Object.keys(pending.set)) {
    const entry = pending.set[path];
    const base = pending.base?.[path];
    const synced = deps.state.synced(path)?.version;
    const created = base === null && !deps.state.attempted(path) && synced === undefined;
    const putBack = typeof base === "string" && synced === base &&
      (covered(path, pending.snapshot.paths.keys()) || walkedSince) && !covered(path, now);
    if (!created && !putBack) continue;
    const held = await withRetry(
      () => deps.store.head(path, { signal: deps.signal }),
      deps.retry,
      deps.signal,
    );
    if (held?.version === entry.v) continue;
    if (created || held?.version === synced) out.push(path);
  }
  return out;
}
