/**
 * Unresolved conflicts of a cache: a path changed both here (since this
 * cache last synced it) and on the datastore. Neither side is overwritten:
 * the local copy stays where it is (or in the set-aside area), and the
 * record names both versions until one of the resolutions (`mine`,
 * `theirs`, `merged`) publishes or takes one, each a compare-and-swap on the
 * version recorded here as `theirs`.
 *
 * A record naming a copy set aside (in `.sluice/set-aside/`) is dropped
 * only by a resolution: a later conflict at the path keeps naming it
 * (`keptAside`), and the path agreeing with the datastore again leaves the
 * record as it is ({@link ConflictSet.settle}).
 *
 * A copy a pull sets aside carries its conflict in its `REASON.json`,
 * written before the copy moves: a pull stopped before it saved the record
 * (the process died) leaves a copy no record names, and loading the records
 * names it again from there, until a resolution that resolves the path
 * releases it (`released` in its `REASON.json`).
 *
 * The records live in `<cache>/.sluice/conflicts.json`, written atomically
 * and durably. An unreadable file is treated as empty (with a warning): the
 * records are bookkeeping, not protection. Local changes are protected by
 * the synced manifest (a pull never overwrites a file that differs from what
 * was synced) and by the compare-and-swap of every overwrite-class write.
 *
 * @module
 */
export {
  ADOPT_HINT,
  ADOPTED_UNCOMMITTED,
  adoptedMessage,
  describeVersion,
  mergedAfterDeletion,
  resolveHint,
} from "./conflict_messages.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { atomicWrite } from "../transfer/atomic_write.ts";
import { readSetAsideReason, releaseSetAside, setAsideReasons } from "../transfer/cache_state.ts";
import { strayCopy } from "./conflict_stray.ts";
import { type ConflictFile, keptCopies, parseRecords, sameRecord } from "./conflict_file.ts";
import { carryAside, setAsideCopies, withOthers } from "./conflict_copies.ts";
export { setAsideCopies } from "./conflict_copies.ts";

/** Why a pull sets a copy aside, as its `REASON.json` in the set-aside area says. */
export const PULL_SET_ASIDE_REASON =
  "the pull found a local copy this cache never synced, differing from the datastore's";

/** One side of a conflict as the datastore holds it. */
export interface RemoteSide {
  /** Remote object version. */
  readonly version: string;
  /** Hex SHA-256 (empty when unknown). */
  readonly hash: string;
  /** Size in bytes. */
  readonly size: number;
}

/** This cache's side of a conflict. */
export interface LocalSide {
  /** Where the copy is, cache-relative: the path itself, or a set-aside location. */
  readonly location: string;
  /** Hex SHA-256 of the copy when the conflict was found. */
  readonly hash: string;
  /** Size in bytes. */
  readonly size: number;
}

/** An unresolved conflict. */
export interface ConflictRecord {
  /** Cache-relative path (also the store key). */
  readonly path: string;
  /** This cache's copy, or null when the local change is a deletion. */
  readonly mine: LocalSide | null;
  /** The datastore's version as last seen, or null when it was deleted there. */
  readonly theirs: RemoteSide | null;
  /** The version this cache last synced, when any. */
  readonly base?: string;
  /** Which operation found it. */
  readonly foundBy: "push" | "pull";
  /** When (clock ms). */
  readonly at: number;
  /** What happened, in words. */
  readonly reason: string;
  /**
   * Copies of this path set aside by earlier conflicts of it (oldest first),
   * still in `.sluice/set-aside/`, that `mine` no longer names: a later
   * conflict at the path replaced the record that did. Kept until the
   * conflict is resolved. Absent when there are none.
   */
  readonly keptAside?: readonly LocalSide[];
}

/** The resolutions: publish my copy, take theirs, or publish the merge now in the cache. */
export type Resolution = "mine" | "theirs" | "merged";

const FILE = "conflicts.json";

/**
 * The conflict records of one cache.
 *
 * @example
 * ```ts
 * import { ConflictSet } from "./conflicts.ts";
 * const set = await ConflictSet.open(await Deno.makeTempDir());
 * console.log(set.list()); // []
 * ```
 */
export class ConflictSet {
  readonly #file: string;
  /** The state directory. */
  readonly #stateDir: string;
  #records = new Map<string, ConflictRecord>();
  /**
   * Paths whose record this process set or removed since its last save:
   * its own changes, written over what another process sharing the cache
   * saved meanwhile, still naming the copies set aside that the other's
   * record named (see {@link merge}; the rest of the file is taken as it is
   * on disk).
   */
  readonly #touched = new Set<string>();
  /**
   * Paths among those whose record this process named again at its load
   * from a copy set aside (see {@link nameStrayCopies}), by the set-aside
   * directory of that copy, and changed by nothing of this process's since:
   * a resolution by another process that released the copy drops the
   * record here too.
   */
  readonly #named = new Map<string, string>();
  /** Runs a save under the state directory's lock (see `SyncState`). */
  readonly #locked: <T>(fn: () => Promise<T>) => Promise<T>;
  /** A problem found while loading, if any. */
  loadWarning?: string;
  /** The file as this process last read or wrote it (see {@link refresh}). */
  #seen = "";
  /** The records as this process last read or wrote the file (see {@link refresh}). */
  #disk = new Map<string, ConflictRecord>();
  /**
   * The record of each path as the operation now running read it (at its
   * {@link refresh}, or the load) or this process last saved it: a path
   * whose record on disk differs was recorded or resolved by another
   * process since (see {@link merge}). A save of another path takes in the
   * whole file, but changes none of the others here: what it took in was
   * never read by the operation, whose clear of such a path must keep it.
   */
  #read = new Map<string, ConflictRecord>();
  /** The set-aside copies this process's resolutions released (see {@link release}). */
  readonly #released = new Set<string>();
  /**
   * Records another process saved since this one read them, that a record
   * of this process's for the same path was saved over (naming their
   * copies, see {@link merge}) in the operation now running (since the last
   * {@link refresh}): a clear of the path puts the other's record back.
   */
  readonly #over = new Map<string, ConflictRecord>();
  /**
   * Paths whose record of this process's, not saved yet, gives way to one
   * another process saved since this one read the path (see {@link reopen}).
   */
  readonly #yielding = new Set<string>();
  /** Paths saved only over the record given (see {@link recordOver}), and those not so saved. */
  readonly #expected = new Map<string, ConflictRecord>();
  readonly #stale = new Set<string>();

  private constructor(stateDir: string, locked?: <T>(fn: () => Promise<T>) => Promise<T>) {
    this.#stateDir = stateDir.replace(/\/+$/, "");
    this.#file = `${this.#stateDir}/${FILE}`;
    this.#locked = locked ?? ((fn) => fn());
  }

  /**
   * Loads the records of the cache at `cacheDir`, whose state is in
   * `stateDir` (default `<cacheDir>/.sluice`); none when the file is absent.
   */
  static async open(
    cacheDir: string,
    stateDir: string = defaultStateDir(cacheDir),
    locked?: <T>(fn: () => Promise<T>) => Promise<T>,
  ): Promise<ConflictSet> {
    const set = new ConflictSet(stateDir, locked);
    try {
      set.#records = await set.#readFile();
      set.#disk = new Map(set.#records);
      set.#read = new Map(set.#records);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        set.loadWarning = `the conflict records ${set.#file} are unreadable (${
          (e as Error).message
        }); they were dropped, local files were not touched. A push or pull finds each conflict again`;
      }
    }
    await set.#nameStrayCopies(cacheDir);
    return set;
  }

  /**
   * Names again, in memory (saved with the next change), each copy a pull
   * set aside that no record names and no resolution released: its pull
   * stopped before saving the record (see the module).
   */
  async #nameStrayCopies(cacheDir: string): Promise<void> {
    const asides = await setAsideReasons(this.#stateDir);
    if (asides.length === 0) return; // none set aside
    const named = new Set(
      [...this.#records.values()].flatMap(setAsideCopies).map((c) => c.location),
    );
    for (const { dir, why } of asides) {
      const stray = await strayCopy(this.#stateDir, dir, why);
      if (!stray || named.has(stray.side.location)) continue;
      named.add(stray.side.location);
      const old = this.#records.get(stray.rec.path);
      this.#touched.add(stray.rec.path);
      this.#named.set(stray.rec.path, dir);
      // A record naming the copy in place, whose file is gone from the path
      // and is this very copy (by its bytes): moved aside by a resolution
      // that stopped before saying so. The record names it as yours where
      // it is now, never the empty path (which would read as a deletion).
      const movedMine = old?.mine?.location === old?.path && old?.mine?.hash === stray.side.hash &&
        !(await Deno.lstat(`${cacheDir}/${stray.rec.path}`).then(() => true, () => false));
      this.#records.set(
        stray.rec.path,
        old && movedMine
          ? { ...old, mine: stray.side }
          : old
          ? { ...old, keptAside: [...keptCopies(old.keptAside), stray.side] }
          : stray.rec,
      );
    }
  }

  /**
   * A resolution resolved `rec`'s path: the copies it named in the
   * set-aside area, and those the resolution set aside on its way (`made`),
   * are the user's to keep or remove, never named again.
   */
  async release(rec: ConflictRecord, made: readonly string[] = []): Promise<void> {
    const locations = [...setAsideCopies(rec).map((c) => c.location), ...made];
    for (const location of locations) {
      this.#released.add(location);
      await releaseSetAside(this.#stateDir, location, rec.path);
    }
  }

  /** Every unresolved conflict, by path. */
  list(): ConflictRecord[] {
    return [...this.#records.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /** The conflict of `path`, if any. */
  get(path: string): ConflictRecord | undefined {
    return this.#records.get(path);
  }

  /** True when `path` has an unresolved conflict. */
  has(path: string): boolean {
    return this.#records.has(path);
  }

  /**
   * Records (or replaces) conflicts, durably. A record replaced keeps
   * naming its set-aside copies in the new one (`keptAside`).
   */
  async record(records: readonly ConflictRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const r of records) {
      this.#records.set(r.path, carryAside(this.#records.get(r.path), r));
      this.#touched.add(r.path);
      this.#named.delete(r.path);
    }
    await this.#save();
  }

  /**
   * Records `rec` as {@link record} does, only where the record of its path
   * saved is still `was` (as another process sharing the cache saved it,
   * taken in here): false, and nothing of this process's saved for the
   * path, when that process resolved or replaced it since.
   */
  async recordOver(was: ConflictRecord, rec: ConflictRecord): Promise<boolean> {
    this.#expected.set(rec.path, was);
    await this.record([rec]);
    return !this.#stale.delete(rec.path);
  }

  /**
   * Names `copies` (set aside earlier, oldest first) in the open record of
   * `path` too, before the copies it names, durably: a resolution that
   * ended in a new conflict of the path keeps naming what the conflict it
   * resolved had set aside (only a resolution that resolves drops them).
   * Nothing when the path has no open record.
   */
  async keepNaming(path: string, copies: readonly LocalSide[]): Promise<void> {
    const rec = this.#records.get(path);
    if (!rec || copies.length === 0) return;
    const named = carryAside({ ...rec, mine: null, keptAside: copies }, rec);
    if (named === rec) return;
    this.#records.set(path, named);
    this.#touched.add(path);
    this.#named.delete(path);
    await this.#save();
  }

  /**
   * Records `records` again (a resolution that did not resolve reopens its
   * conflict), each as {@link record} does, only where no other process
   * sharing the cache saved a record of its path since this one read it
   * (or cleared it): such a newer record stays, also naming the copies set
   * aside that the one given names, and is not taken as read here.
   */
  async reopen(records: readonly ConflictRecord[]): Promise<void> {
    for (const r of records) this.#yielding.add(r.path);
    await this.record(records);
  }

  /**
   * Removes the conflicts of `paths` whose two sides agree now, durably,
   * except a record naming a copy set aside: only a resolution drops it
   * (nor one another process saved since, as with {@link clear}).
   */
  async settle(paths: readonly string[]): Promise<void> {
    await this.clear(paths.filter((p) => setAsideCopies(this.#records.get(p)).length === 0));
  }

  /**
   * Removes the conflicts of `paths` (resolved), durably: each record as
   * the operation now running read it, or this process last saved it. One
   * another process sharing the cache saved for the path since (a newer
   * version of theirs found there, a local copy set aside) stays, taken in
   * by a save of another path of this process's meanwhile or not, as does
   * one this process saved its own record over in the operation now running
   * (see {@link refresh}): {@link has} is true after, the path still in
   * conflict.
   */
  async clear(paths: readonly string[]): Promise<void> {
    let changed = false;
    for (const p of paths) {
      if (!this.#records.delete(p)) continue;
      changed = true;
      this.#touched.add(p);
      this.#named.delete(p);
    }
    if (changed) await this.#save();
  }

  /**
   * Takes in what another process sharing the cache recorded or resolved
   * since this one last read or wrote the records (a `sluice resolve` run
   * beside a long-lived process, say), with this process's own unsaved
   * changes over it: called as each push, pull or resolution of this
   * process begins, so that it never warns of a conflict resolved
   * elsewhere, nor misses one recorded there. One `stat` when nothing
   * changed; a file that cannot be read leaves the records as they are.
   */
  async refresh(): Promise<void> {
    this.#over.clear();
    await this.takeIn();
    // The operation beginning reads the records as they are now.
    this.#read = new Map(this.#disk);
  }

  /**
   * Takes in what another process sharing the cache saved since this one
   * last read or wrote the records, within the operation now running: what
   * the operation read stays as it was (a record taken in is not read, see
   * {@link clear}), so that {@link has} and {@link get} tell of a record saved
   * meanwhile.
   */
  async takeIn(): Promise<void> {
    if (await this.#signature() !== this.#seen) await this.#takeIn();
  }

  /** The file as it is now, with this process's unsaved changes over it (see {@link refresh}). */
  async #takeIn(): Promise<void> {
    let disk: Map<string, ConflictRecord>;
    try {
      disk = await this.#readFile();
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) return;
      disk = new Map();
      this.#seen = "";
    }
    await this.#merge(disk);
  }

  /**
   * `disk` (the records as another process sharing the cache saved them)
   * with this process's own changes over it, as the records now. A record
   * named again at load ({@link nameStrayCopies}) whose copy a resolution
   * released since (or that is gone) is no change of this process's: the
   * records on disk stand for its path (none, once resolved; another
   * process's, once that one found a conflict of the path again).
   *
   * A record of this process's over one another process saved for the same
   * path since this one read it ({@link read}; or over none, that process
   * having resolved it) names the copies set aside the other names too, and
   * none a resolution released (`withOthers`): the copy a pull of the
   * other process set aside may be the user's merge, never to be left named
   * by no record. For the same reason a path this process cleared keeps
   * the record another process saved for it since: only the record as this
   * process read or saved it is deleted. A record this process reopens
   * ({@link reopen}) gives way to such a record, which names its copies too;
   * the paths it gave way at are returned.
   */
  async #merge(disk: Map<string, ConflictRecord>): Promise<Set<string>> {
    const before = this.#read;
    const gaveWay = new Set<string>();
    this.#disk = new Map(disk);
    for (const p of [...this.#touched]) {
      const dir = this.#named.get(p);
      if (
        dir !== undefined &&
        !(await strayCopy(this.#stateDir, dir, await readSetAsideReason(this.#stateDir, dir)))
      ) {
        this.#touched.delete(p);
        this.#named.delete(p);
        continue;
      }
      const mine = this.#records.get(p);
      const theirs = disk.get(p);
      const changed = !sameRecord(theirs, before.get(p));
      const over = this.#over.get(p);
      if (mine && changed && theirs && this.#yielding.has(p)) {
        // Reopened here, recorded anew elsewhere: that record stands (see `reopen`).
        gaveWay.add(p);
        disk.set(p, await withOthers(this.#stateDir, this.#released, theirs, mine));
      } else if (mine && changed) {
        if (theirs) this.#over.set(p, theirs);
        disk.set(p, await withOthers(this.#stateDir, this.#released, mine, theirs, before.get(p)));
      } else if (mine) disk.set(p, mine);
      else if (!changed && over) {
        this.#over.delete(p); // cleared here: the other's record stands (see `clear`)
        disk.set(p, await withOthers(this.#stateDir, this.#released, over, undefined));
      } else if (!changed) disk.delete(p); // else recorded anew elsewhere: it stands
    }
    this.#records = disk;
    return gaveWay;
  }

  /** The file's identity and change time ("" when there is none). */
  async #signature(): Promise<string> {
    try {
      const st = await Deno.stat(this.#file);
      return `${st.ino}:${st.size}:${st.mtime?.getTime()}:${st.ctime?.getTime() ?? ""}`;
    } catch {
      return "";
    }
  }

  /** The records on disk; throws when the file is absent or unreadable. */
  async #readFile(): Promise<Map<string, ConflictRecord>> {
    const seen = await this.#signature();
    const out = parseRecords(await Deno.readTextFile(this.#file));
    this.#seen = seen;
    return out;
  }

  /**
   * Writes the records, under the state directory's lock: what is on disk
   * (another process sharing the cache may have recorded or resolved a
   * conflict since) with this process's own changes over it.
   */
  async #save(): Promise<void> {
    await this.#locked(async () => {
      const own = new Set([...this.#touched].filter((p) => this.#records.has(p)));
      const disk = await this.#readFile().catch(() => undefined);
      for (const [p, was] of this.#expected) {
        if (sameRecord(disk?.get(p), was)) continue;
        this.#stale.add(p);
        this.#touched.delete(p);
        if (!disk) this.#records.delete(p);
      }
      this.#expected.clear();
      const gaveWay = disk ? await this.#merge(disk) : new Set<string>();
      const file: ConflictFile = { format: 1, conflicts: Object.fromEntries(this.#records) };
      const text = JSON.stringify(file, null, 1);
      await atomicWrite(this.#file, new TextEncoder().encode(text));
      this.#seen = await this.#signature();
      this.#disk = parseRecords(text);
      // Saved by this process: its own record, or none where it cleared
      // one. A record another process saved, standing over a clear of this
      // process's, was never read: a clear again keeps it too.
      for (const p of this.#touched) {
        const rec = this.#disk.get(p);
        if (rec && own.has(p) && !gaveWay.has(p)) this.#read.set(p, rec);
        else if (!rec) this.#read.delete(p);
      }
      this.#touched.clear();
      this.#named.clear();
      this.#yielding.clear();
    });
  }
}
