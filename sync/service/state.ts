/**
 * Durable sync state in the cache's `.sluice/` directory: the dirty set (an
 * fsynced append-only journal, compacted on each push) and the synced
 * manifest (per path: content hash, remote version, size and mtime as of the
 * last sync). The manifest is a base file plus an fsynced log of the changes
 * made since it was written, so that a push of a few files into a large cache
 * appends a few lines instead of rewriting every entry; the base is rewritten
 * once the log holds as many lines as the manifest has entries (its files:
 * `manifest_files.ts`). An unreadable state file means "walk everything",
 * never "clean".
 *
 * @module
 */
import { defaultStateDir, STATE_DIR } from "../transfer/cache.ts";
import { randomId } from "../hash.ts";
import { UnsafePathError } from "../errors.ts";
import type { StateAccess } from "../context.ts";
import { BlockedRecord } from "./blocked_record.ts";
import { ConflictSet } from "./conflicts.ts";
import { journalLines, liveDirtyPaths, takeJournal } from "./dirty_journal.ts";
import { type OwnMarks, SharedJournal } from "./shared_journal.ts";
import { otherProcess, ownerRuns } from "./state_lock.ts";
import { damagedLinesWarning, SyncedRecords } from "./state_synced.ts";
import { writingState } from "./state_files.ts";

export type { SyncedEntry } from "./manifest_log.ts";

/** The dirty journal's file in the state directory. */
export const DIRTY_FILE = "dirty.log";

export { ownerLockHeld, ownerRuns, OWNERS_DIR, STATE_LOCK_FILE } from "./state_lock.ts";

/**
 * The dirty set and the synced manifest of one cache.
 *
 * @example
 * ```ts
 * import { SyncState } from "./state.ts";
 * const state = await SyncState.open(await Deno.makeTempDir());
 * await state.markDirty("a.txt");
 * ```
 */
export class SyncState extends SyncedRecords implements StateAccess {
  readonly #dir: string;
  readonly #dirty = new Map<string, number>();
  #bulk = false;
  #bulkSeq = 0;
  /**
   * Paths a push was about to write, not dirty by name (found by a walk, or
   * under a marked directory), whose commit has not come yet: the store may
   * hold this cache's own object there that no index names. Kept in the
   * dirty journal, so a crash keeps them too.
   */
  readonly #attempted = new Set<string>();
  #seq = 0;
  /**
   * Whether the dirty journal differs from memory (a push or pull with
   * nothing to do writes no state file).
   */
  #journalStale = false;
  /** Whether a dirty journal was on disk when loaded, or has been written since. */
  #journalSeen = false;
  /** This process's id in the journal's lines (see `dirty_journal.ts`): `<pid>.<random>`. */
  readonly #owner: string;
  /** The journal's file, shared with other processes (see `shared_journal.ts`). */
  readonly #journal: SharedJournal;
  /** Whether the process that wrote journal lines as an owner still runs (see {@link ownerRuns}). */
  readonly #ownerRuns: (owner: string) => boolean;
  /**
   * Whether an owner of journal lines is another process than this one: any
   * owner where `ownerRuns` was given (services of one process told apart by
   * their owner locks), else one of another process id, or of this one's
   * whose owner lock nobody holds (an ended process whose id this one has
   * again, as a container's processes do).
   */
  readonly #otherProcess: (owner: string) => boolean;
  /**
   * A rewrite by another process left out marks of this one (a process that
   * took them over at its start handled them): the next write of the
   * journal writes them all again, so that what this process holds is on
   * disk.
   */
  #ownDropped = false;
  /** Problems found while loading (a corrupted file turns into a walk). */
  readonly loadWarnings: string[] = [];
  /** Unresolved conflicts (see `conflicts.ts`). */
  conflicts!: ConflictSet;
  /** The datastore paths the last pull left out as blocked (see `blocked_record.ts`). */
  blocked!: BlockedRecord;

  private constructor(
    stateDir: string,
    runs?: (owner: string) => boolean,
    fileClock?: () => number,
  ) {
    const dir = stateDir.replace(/\/+$/, "");
    const owner = `${Deno.pid}.${randomId(6)}`;
    super(dir, owner, fileClock);
    this.#dir = dir;
    this.#owner = owner;
    this.#ownerRuns = runs ?? ((owner) => ownerRuns(this.#dir, owner));
    this.#otherProcess = runs ? () => true : (owner) => otherProcess(this.#dir, this.#owner, owner);
    this.#journal = new SharedJournal(`${this.#dir}/${DIRTY_FILE}`, this.#owner);
  }

  /**
   * Loads the state of the cache at `cacheDir`, kept in `stateDir` (default
   * `<cacheDir>/.sluice`), creating nothing until the first write. A state
   * directory that is a symlink is refused with `UnsafePathError`: the state
   * would be written outside the cache.
   */
  static async open(
    cacheDir: string,
    stateDir: string = defaultStateDir(cacheDir),
    options: {
      /** Whether the writer of journal lines as `owner` still runs; default {@link ownerRuns}. */
      readonly ownerRuns?: (owner: string) => boolean;
      /** The filesystem's clock, against which mtimes are judged settled; default `Date.now`. */
      readonly fileClock?: () => number;
    } = {},
  ): Promise<SyncState> {
    const s = new SyncState(stateDir, options.ownerRuns, options.fileClock);
    const st = await Deno.lstat(s.#dir).catch(() => null);
    if (st?.isSymlink) {
      throw new UnsafePathError(
        STATE_DIR,
        "the cache's state directory is a symbolic link, and Sluice never writes its state outside the cache: move the directory it points to into the cache in its place, then run the command again",
      );
    }
    // Read under the lock other processes write these files under (when
    // there is state to read): a base and its log read between another
    // process's writes of the two would not agree.
    if (st?.isDirectory) await s.stateLock.exclusive(() => s.#load());
    else await s.#load();
    s.conflicts = await ConflictSet.open(cacheDir, stateDir, (fn) => s.stateLock.exclusive(fn));
    if (s.conflicts.loadWarning) s.loadWarnings.push(s.conflicts.loadWarning);
    s.blocked = await BlockedRecord.open(stateDir);
    return s;
  }

  dirtyPaths(): string[] {
    return [...this.#dirty.keys()].sort();
  }

  /**
   * True while this cache has no sync state at all: no synced manifest (on
   * disk or in memory) and no remote index version, no dirty journal read or
   * written (no mark, bulk or attempted upload, ever), and no conflict. Files
   * copied into such a cache without a mark are known to no record, so only a
   * walk finds them. Once the cache is pulled with something to record,
   * pushed with something to record, or marked, it is never true again.
   */
  get untouched(): boolean {
    return !this.#journalSeen && this.#seq === 0 && !this.syncedManifest.seen &&
      this.syncedManifest.size === 0 && this.indexVersion === undefined && !this.#bulk &&
      this.#dirty.size === 0 && this.#attempted.size === 0 && this.#journal.foreign.size === 0 &&
      this.conflicts.list().length === 0 && this.loadWarnings.length === 0;
  }

  bulkPending(): boolean {
    return this.#bulk;
  }

  /** A snapshot of dirty marks (path → sequence), for committing only what a push saw. */
  snapshot(): { paths: Map<string, number>; bulkSeq: number } {
    return { paths: new Map(this.#dirty), bulkSeq: this.#bulk ? this.#bulkSeq : -1 };
  }

  /**
   * Marks one path dirty, or everything (a walk) when `path` is undefined.
   * Durable on return. `attempted`: the path is also recorded as one a push
   * may write (see {@link markAttempted}), in the same append.
   */
  async markDirty(path?: string, attempted = false): Promise<void> {
    const record = path !== undefined && attempted && !this.#attempted.has(path);
    await this.#append(
      path === undefined
        ? journalLines({ bulk: true, owner: this.#owner })
        : journalLines({ dirty: [path], attempted: record ? [path] : [], owner: this.#owner }),
    );
    this.#journalStale = true;
    if (record) this.#attempted.add(path!);
    const seq = ++this.#seq;
    if (path === undefined) {
      this.#bulk = true;
      this.#bulkSeq = seq;
    } else {
      this.#dirty.set(path, seq);
    }
  }

  /**
   * Marks many paths dirty with one durable append; those of `attempted`
   * are also recorded as paths a push may write (see {@link markAttempted}).
   */
  async markDirtyMany(
    paths: readonly string[],
    attempted: readonly string[] = [],
  ): Promise<void> {
    if (paths.length === 0) return;
    const fresh = attempted.filter((p) => !this.#attempted.has(p));
    await this.#append(journalLines({ dirty: paths, attempted: fresh, owner: this.#owner }));
    this.#journalStale = true;
    for (const p of paths) this.#dirty.set(p, ++this.#seq);
    for (const p of fresh) this.#attempted.add(p);
  }

  /**
   * Paths a push wrote (or was about to) without naming them, or named but
   * never synced, whose commit has not come yet, sorted: a later push that
   * covers them checks those it no longer plans (see `buildPlan`).
   */
  attemptedPaths(): string[] {
    return [...this.#attempted].sort();
  }

  /** True when `path` itself is recorded as attempted (see {@link attemptedPaths}). */
  attempted(path: string): boolean {
    return this.#attempted.has(path);
  }

  /** Records, durably and before they are written, the paths a push is about to write unnamed. */
  async markAttempted(paths: readonly string[]): Promise<void> {
    const fresh = paths.filter((p) => !this.#attempted.has(p));
    if (fresh.length === 0) {
      // Recorded here already: on disk too, unless another process's
      // rewrite left them out since (see `#ownDropped`).
      await this.stateLock.exclusive(async () => {
        await this.#catchUp();
        if (this.#ownDropped) await this.#compact();
      });
      return;
    }
    await this.#append(journalLines({ attempted: fresh, owner: this.#owner }));
    this.#journalStale = true;
    for (const p of fresh) this.#attempted.add(p);
  }

  async clean(paths: readonly string[]): Promise<void> {
    await this.stateLock.exclusive(async () => {
      await this.#catchUp();
      for (const p of paths) {
        if (p.endsWith("/")) {
          for (const k of [...this.#dirty.keys()]) if (k.startsWith(p)) this.#dirty.delete(k);
        } else {
          this.#dirty.delete(p);
        }
      }
      this.#journalStale = true;
      await this.#compact();
    });
  }

  /**
   * Drops the record of an upload this cache may have left at `paths` (see
   * {@link attemptedPaths}): for paths where the store was just seen to hold
   * another writer's committed version, so nothing of this cache's is there.
   */
  async settleAttempted(paths: readonly string[]): Promise<void> {
    if (!paths.some((p) => this.#attempted.has(p))) return;
    await this.stateLock.exclusive(async () => {
      await this.#catchUp();
      let any = false;
      for (const p of paths) if (this.#attempted.delete(p)) any = true;
      if (!any) return;
      this.#journalStale = true;
      await this.#compact();
    });
  }

  /**
   * After a push: removes the marks the push handled unless they were set
   * again meanwhile (and the record of an upload it committed or checked),
   * clears the bulk mark if the push was a walk started after it, and
   * persists the manifest.
   */
  async commit(
    handled: readonly string[],
    snapshot: { paths: Map<string, number>; bulkSeq: number },
    walkDone: boolean,
  ): Promise<void> {
    // Another process's marks since this one last looked are taken in first:
    // a path it marked again since the snapshot stays dirty.
    await this.stateLock.exclusive(async () => {
      await this.#catchUp();
      for (const p of handled) {
        const seen = snapshot.paths.get(p);
        const now = this.#dirty.get(p);
        if (now !== undefined && (seen === undefined || now <= seen)) {
          this.#dirty.delete(p);
          this.#journalStale = true;
        }
        if (this.#attempted.delete(p)) this.#journalStale = true;
      }
      if (walkDone && this.#bulk && this.#bulkSeq <= snapshot.bulkSeq) {
        this.#bulk = false;
        this.#journalStale = true;
      }
      await this.syncedManifest.save(this.indexVersion);
      await this.#compact();
    });
  }

  async #append(text: string): Promise<void> {
    this.#journalSeen = true;
    await writingState(this.#dir, DIRTY_FILE, async () => {
      await this.stateLock.exclusive(async () => {
        this.stateLock.holdOwner();
        await this.#catchUp();
        if (this.#ownDropped) await this.#compact();
        await this.#journal.append(text);
      });
    });
  }

  /**
   * The paths other processes over this cache marked dirty by name and have
   * not pushed, of those that still run (their owner lock held): theirs to
   * push, never a walk's of this process (a run of theirs may be refused
   * yet). Reads what they wrote since this process last looked.
   */
  async markedElsewhere(): Promise<Set<string>> {
    if (!(await Deno.lstat(`${this.#dir}/${DIRTY_FILE}`).then(() => true, () => false))) {
      return new Set();
    }
    await this.stateLock.exclusive(() => this.#catchUp());
    return liveDirtyPaths(this.#journal.foreign, this.#ownerRuns);
  }

  /** Rewrites the journal from memory (call holding the lock, after {@link catchUp}). */
  async #compact(): Promise<void> {
    if (!this.#journalStale) return;
    this.#journalSeen = true;
    this.stateLock.holdOwner();
    await writingState(this.#dir, DIRTY_FILE, () => this.#journal.rewrite(this.#ownMarks()));
    this.#ownDropped = false;
    this.#journalStale = false;
  }

  #ownMarks(): OwnMarks {
    return { bulk: this.#bulk, dirty: this.#dirty.keys(), attempted: this.#attempted };
  }

  /**
   * Takes in what other processes wrote to the journal since this one last
   * looked (call holding the lock; see `SharedJournal.catchUp`). A line no
   * one can read makes this process walk everything (its walk clears it),
   * as at a load; marks of its own another process's rewrite left out are
   * written again by the next write of the journal.
   */
  async #catchUp(): Promise<void> {
    // Read only where another process rewrote the journal: not a copy per mark.
    const found = await this.#journal.catchUp(this.#ownMarks());
    if (found.unreadable) {
      this.#bulk = true;
      this.#bulkSeq = ++this.#seq;
      this.#journalStale = true;
    }
    if (found.ownDropped) {
      this.#ownDropped = true;
      this.#journalStale = true;
    }
  }

  /**
   * Writes the marks this process took over at its load from a process that
   * ended under its own name at once (its load holds the state lock), so
   * that another process opening the cache while this one runs carries them
   * as this one's instead of taking them over too: two processes settling
   * one ended process's record of uploads each would take the other's
   * upload for a stray of its own. Where the journal cannot be written (a
   * read-only cache), both take them, as before.
   */
  async #takeOver(): Promise<void> {
    this.#journalStale = true;
    try {
      await this.#compact();
    } catch { /* left for the next write of the journal */ }
  }

  async #load(): Promise<void> {
    let text: string | null = null;
    try {
      text = await Deno.readTextFile(`${this.#dir}/${DIRTY_FILE}`);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        this.#bulk = true;
        this.loadWarnings.push(
          `dirty set unreadable (${(e as Error).message}): walking everything`,
        );
      }
    }
    // Whatever the journal holds (repeats, a torn line) is rewritten at the next commit.
    if (text) this.#journalStale = true;
    // What was read is this process's view of the journal (see `catchUp`).
    if (text !== null) this.#journal.loaded(text);
    if (text !== null) this.#journalSeen = true;
    if (text !== null) {
      this.stateLock.sweepOwners();
      const taken = takeJournal(text, this.#ownerRuns);
      for (const line of taken.foreign) this.#journal.foreign.add(line);
      const base = this.#seq;
      for (const m of taken.marks) {
        const seq = base + m.at;
        if (m.kind === "dirty") this.#dirty.set(m.path!, seq);
        else if (m.kind === "attempted") this.#attempted.add(m.path!);
        else {
          this.#bulk = true;
          this.#bulkSeq = seq;
          if (m.kind === "unreadable") {
            this.loadWarnings.push("dirty set has an unreadable line: walking everything");
          }
        }
      }
      this.#seq = base + taken.count;
      if (taken.marks.some((m) => m.owner !== undefined && this.#otherProcess(m.owner))) {
        await this.#takeOver();
      }
    }
    const loaded = await this.syncedManifest.load();
    if (loaded.kind === "read") {
      this.indexVersion = loaded.indexVersion;
      if (loaded.damaged) this.loadWarnings.push(damagedLinesWarning(loaded.damaged));
    } else if (loaded.kind === "unreadable") {
      this.indexVersion = undefined;
      this.#bulk = true;
      this.loadWarnings.push(
        `synced manifest unreadable (${loaded.error.message}): walking everything`,
      );
    }
  }
}

export { checkedToken, racyWindowMs, settledAt, UNCHECKED } from "./synced_time.ts";
