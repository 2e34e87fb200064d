/**
 * The synced manifest of one cache in memory (per path: content hash,
 * remote version, size and times as of the last sync), with what differs
 * from its files on disk (`manifest_files.ts`): the paths changed since the
 * last save, and the index version last saved. `SyncState` holds one and
 * takes the state directory's lock around the writes here that need it.
 *
 * @module
 */
import { ManifestFiles, type ManifestLoad } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";
import { settledMtime } from "./synced_time.ts";

/**
 * The manifest, and the changes a save writes.
 *
 * @example
 * ```ts
 * import { SyncedManifest } from "./synced_manifest.ts";
 * const m = new SyncedManifest(await Deno.makeTempDir());
 * m.set("a.txt", { hash: "h", version: "v1", size: 1 });
 * await m.save(undefined);
 * ```
 */
export class SyncedManifest {
  readonly #entries = new Map<string, SyncedEntry>();
  /** Paths changed since the last save. */
  readonly #changed = new Set<string>();
  #savedIndexVersion: string | undefined;
  /** The manifest's base and log on disk. */
  readonly #files: ManifestFiles;

  /** The filesystem's clock, against which an mtime is judged settled. */
  readonly #fileClock: () => number;

  /**
   * The manifest of the state directory `dir` (nothing read until
   * {@link load}), judging mtimes settled by `fileClock` (default `Date.now`).
   */
  constructor(dir: string, fileClock: () => number = Date.now) {
    this.#files = new ManifestFiles(dir);
    this.#fileClock = fileClock;
  }

  get(path: string): SyncedEntry | undefined {
    return this.#entries.get(path);
  }

  /** All paths recorded. */
  paths(): string[] {
    return [...this.#entries.keys()];
  }

  /** How many paths are recorded (without listing them). */
  get size(): number {
    return this.#entries.size;
  }

  /** True once a manifest was found on disk or written. */
  get seen(): boolean {
    return this.#files.seen;
  }

  /** Records `entry` at `path` (its mtime kept only once settled), or none; saved by {@link save}. */
  set(path: string, entry: SyncedEntry | undefined): void {
    if (entry) this.#entries.set(path, settledMtime(entry, this.#fileClock()));
    else this.#entries.delete(path);
    this.#changed.add(path);
  }

  /** {@link set}, written to the log at once without an fsync where a base is ready (see `ManifestFiles.writeAhead`). */
  note(path: string, entry: SyncedEntry): void {
    this.set(path, entry);
    if (this.#files.writeAhead(this.#entries, [path])) this.#changed.delete(path);
  }

  /** Makes {@link note} write ahead: a base on disk (written now if none). Call holding the lock. */
  ensureBase(): Promise<void> {
    return this.#files.ensureBase(this.#entries, this.#savedIndexVersion, this.#changed);
  }

  /** True when the files on disk changed since this process last read them (see `ManifestFiles.changedOnDisk`). */
  changedOnDisk(): Promise<boolean> {
    return this.#files.changedOnDisk();
  }

  /**
   * Takes in what other processes over the cache recorded since this one
   * last read the files, this process's unsaved records over it (see
   * `ManifestFiles.refresh`). Call holding the lock.
   */
  refresh(): Promise<void> {
    return this.#files.refresh(this.#entries, this.#changed);
  }

  /** Has `tell` told the damaged log lines each take-in passes over (see `ManifestFiles.tellDamaged`). */
  tellDamaged(tell: (lines: number[]) => void): void {
    this.#files.tellDamaged(tell);
  }

  /** Closes the files held open for records written ahead, without saving. */
  release(): void {
    this.#files.release();
  }

  /** True when a save with `indexVersion` would write nothing: no change, nothing written ahead, nothing damaged. */
  nothingToSave(indexVersion: string | undefined): boolean {
    return !this.#files.mustRewrite && !this.#files.aheadUnsynced && this.#changed.size === 0 &&
      indexVersion === this.#savedIndexVersion;
  }

  /** Persists the changes and `indexVersion` durably (see `ManifestFiles.save`). Call holding the lock. */
  async save(indexVersion: string | undefined): Promise<void> {
    if (this.nothingToSave(indexVersion)) return;
    const indexChanged = indexVersion !== this.#savedIndexVersion;
    // Taken now: changes made while this save waits belong to the next one.
    const changed = [...this.#changed];
    this.#changed.clear();
    try {
      await this.#files.save(this.#entries, changed, {
        changed: indexChanged,
        version: indexVersion,
      });
    } catch (e) {
      for (const p of changed) this.#changed.add(p);
      throw e;
    }
    this.#savedIndexVersion = indexVersion;
  }

  /** Reads the manifest from disk (see `ManifestFiles.load`); the index version read counts as saved. */
  async load(): Promise<ManifestLoad> {
    const loaded = await this.#files.load(this.#entries);
    if (loaded.kind === "read") this.#savedIndexVersion = loaded.indexVersion;
    return loaded;
  }
}
