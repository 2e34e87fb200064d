/**
 * What a cache's state holds of the synced manifest, and the state
 * directory's locks around it: the records of what this cache synced (each
 * path's version, hash, size and times), read, recorded, written ahead and
 * saved under the lock other processes sharing the cache write them under,
 * and taken in again from disk as each push, pull and resolution begins; a
 * damaged line of another process's a take-in passes over is told by the
 * state itself ({@link SyncedRecords.tellManifestDamage}), whoever took it in.
 * `SyncState` (`state.ts`) adds the dirty marks and the conflict records.
 *
 * @module
 */
import type { SyncedEntry } from "./manifest_log.ts";
import { StateLock } from "./state_lock.ts";
import { SyncedManifest } from "./synced_manifest.ts";

/**
 * The warning for damaged lines `lines` (numbers from 1) of the manifest's
 * log, passed over when it was read: their records are lost.
 */
export function damagedLinesWarning(lines: readonly number[]): string {
  const n = lines.length;
  return `synced manifest: ${n === 1 ? "line" : "lines"} ${
    lines.join(", ")
  } of its log (.sluice/manifest.log) ${n === 1 ? "is" : "are"} damaged and unreadable: the ${
    n === 1 ? "record" : "records"
  } written there ${
    n === 1 ? "is" : "are"
  } lost, every other record kept (the manifest is written again whole at the next save). A file whose latest record was there counts as synced at its record before, or as never synced: a change to it meets the datastore's copy as a conflict, not a loss; a file deleted here whose only record was there may be fetched again by a pull. Run \`sluice status\` before the next push to see which files it would publish and which meet the datastore's copies as conflicts (\`sluice resolve\` settles them)`;
}

/** The synced records of one cache, in one process (see the module). */
export class SyncedRecords {
  /** The synced manifest, and what of it differs from its files (see `synced_manifest.ts`). */
  protected readonly syncedManifest: SyncedManifest;
  /** The state directory's locks this process takes (see `state_lock.ts`). */
  protected readonly stateLock: StateLock;
  /** Remote index version as of the last sync. */
  indexVersion: string | undefined;
  /** The filesystem's clock, against which a file's mtime is judged settled (see `settledAt`). */
  readonly fileClock: () => number;

  /**
   * Over the state directory `dir`, as the process whose journal lines are
   * `owner`'s, judging mtimes settled by `fileClock` (default `Date.now`).
   */
  protected constructor(dir: string, owner: string, fileClock: () => number = Date.now) {
    this.fileClock = fileClock;
    this.syncedManifest = new SyncedManifest(dir, fileClock);
    this.stateLock = new StateLock(dir, owner);
  }

  synced(path: string): SyncedEntry | undefined {
    return this.syncedManifest.get(path);
  }

  /** All manifest paths. */
  syncedPaths(): string[] {
    return this.syncedManifest.paths();
  }

  async forget(paths: readonly string[]): Promise<void> {
    for (const p of paths) {
      if (p.endsWith("/")) {
        for (const k of this.syncedManifest.paths()) {
          if (k.startsWith(p)) this.setSynced(k, undefined);
        }
      } else {
        this.setSynced(p, undefined);
      }
    }
    await this.saveManifest();
  }

  async recordSynced(path: string, entry: SyncedEntry): Promise<void> {
    this.setSynced(path, entry);
    await this.saveManifest();
  }

  /**
   * Takes in the synced records other processes over the cache wrote since
   * this one last read the manifest (a pull of another process fetched a
   * file, say), with this process's own unsaved records over them: called
   * as each push, pull or resolution of this process begins, so that it
   * plans over what the cache's processes synced, not what it read at its
   * start. Two `stat`s when nothing changed.
   */
  async refreshSynced(): Promise<void> {
    if (!(await this.syncedManifest.changedOnDisk())) return;
    await this.stateLock.exclusive(() => this.syncedManifest.refresh());
  }

  /**
   * Has `tell` told, with its warning ({@link damagedLinesWarning}), what
   * this process finds damaged in the manifest's files once it is open
   * (another process's records taken in, lost), as each take-in that finds
   * it ends, whatever took the files in (a push's, pull's or resolution's
   * refresh, any save, the base a pull writes to note its records on): once
   * for each line. What the open found is in `loadWarnings`; what was found
   * before `tell` was given is told at once.
   */
  tellManifestDamage(tell: (message: string) => void): void {
    this.syncedManifest.tellDamaged((lines) => tell(damagedLinesWarning(lines)));
  }

  /** Records without persisting (the caller persists once with {@link saveManifest}). */
  setSynced(path: string, entry: SyncedEntry | undefined): void {
    this.syncedManifest.set(path, entry);
  }

  /**
   * {@link setSynced}, its record written to the manifest's log at once,
   * without an fsync (the next {@link saveManifest} makes it durable): a
   * process that dies before that save still leaves it on disk. Once
   * {@link readyToNote} has run; otherwise left to the next save.
   */
  noteSynced(path: string, entry: SyncedEntry): void {
    this.syncedManifest.note(path, entry);
  }

  /** Makes {@link noteSynced} write ahead: a manifest base on disk (written now if none). */
  async readyToNote(): Promise<void> {
    await this.stateLock.exclusive(() => this.syncedManifest.ensureBase());
  }

  /**
   * Closes the files held open for records written ahead, without saving
   * (what a process's exit does): for a service dropped in the middle of a
   * pull that will never return, as a test of a crash drops it.
   */
  release(): void {
    this.syncedManifest.release();
  }

  /**
   * Ends this process's hold on the cache (what its exit does): the files it
   * held open are closed and its owner lock released, so that the next
   * process to open the cache takes its marks over.
   */
  exit(): void {
    this.release();
    this.stateLock.release();
  }

  /** See {@link StateAccess.holdLock}. */
  holdLock(name: string, wait: () => Promise<void>): Promise<() => void> {
    return this.stateLock.hold(name, wait);
  }

  /** How many paths are recorded as synced (without listing them). */
  get syncedCount(): number {
    return this.syncedManifest.size;
  }

  /**
   * Persists the manifest durably: the changes since the last save are
   * appended to the log (one fsync), or, when the log has grown as large as
   * the manifest, a new base is written atomically. Nothing is written when
   * nothing changed.
   */
  async saveManifest(): Promise<void> {
    if (this.syncedManifest.nothingToSave(this.indexVersion)) return;
    await this.stateLock.exclusive(() => this.syncedManifest.save(this.indexVersion));
  }
}
