/**
 * The synced manifest on disk: a base file and an fsynced log of the changes
 * made since it was written (line formats in `manifest_log.ts`). A save
 * appends the changed entries to the log, or, once the log holds as many
 * lines as the manifest has entries, writes a new base of the next
 * generation; a log line of another generation than the base's never
 * applies.
 *
 * Processes sharing the cache write these files under the state
 * directory's lock (`SyncState` takes it): a save that finds another
 * process's base on disk (another generation than the one it read) first
 * takes that base and its log in, with its own unsaved records over them,
 * and a new base is written only over what the files hold now, read under
 * that lock, so that no process's records are dropped by another's base.
 *
 * @module
 */
import { appendSynced, atomicWrite, fsyncDir } from "../transfer/atomic_write.ts";
import { baseText, logLines, readBase, replayLog, type SyncedEntry } from "./manifest_log.ts";
import { writingState } from "./state_files.ts";
import {
  baseStamp,
  baseStampSync,
  diskGen,
  filesSnapshot,
  lateLines,
  logMaxGen,
  logTorn,
  MANIFEST_FILE,
  MANIFEST_LOG,
  openLogIfSame,
  readLog,
  SeenFiles,
} from "./manifest_disk.ts";
import { AheadLog } from "./manifest_ahead.ts";

/** The log is never compacted below this many lines (a base rewrite costs the whole manifest). */
const LOG_MIN_LINES = 1024;
const ENCODER = new TextEncoder();

/** What {@link ManifestFiles.load} found. */
export type ManifestLoad =
  | { readonly kind: "none" }
  | {
    readonly kind: "read";
    readonly indexVersion: string | undefined;
    /** Numbers of the log lines passed over as unreadable (their records lost); absent when none. */
    readonly damaged?: readonly number[];
  }
  | { readonly kind: "unreadable"; readonly error: Error };

/**
 * Points inside a write where a test puts another process's write (two
 * processes' writes interleave there, one thread's cannot).
 */
export interface ManifestHooks {
  /** A base's take-in read the files; the base is about to be written. */
  readonly beforeBase?: () => void;
  /** A line written ahead found the log it holds in place; its bytes are about to be written. */
  readonly beforeAheadWrite?: () => void;
}

/**
 * The manifest's files in the state directory `dir`.
 *
 * @example
 * ```ts
 * import { ManifestFiles } from "./manifest_files.ts";
 * const files = new ManifestFiles(await Deno.makeTempDir());
 * const manifest = new Map();
 * console.log((await files.load(manifest)).kind); // "none"
 * ```
 */
export class ManifestFiles {
  readonly #dir: string;
  /** Generation of the base on disk (-1 before the first); the next base takes a higher one. */
  #gen = -1;
  /**
   * The base of generation {@link #gen} as found before this process read
   * it, or once it wrote it (see `baseStamp`): lines are written ahead only
   * while it is in place.
   */
  #baseStamp: string | undefined;
  /** Whether a readable base is on disk: until then every save writes one. */
  #hasBase = false;
  /** Lines of this generation in the log. */
  #logLines = 0;
  /** The next save writes a base (the files were damaged, or the log's last line torn). */
  #rewrite = false;
  /** The log as lines are written ahead of a save (see {@link writeAhead}). */
  readonly #ahead: AheadLog;
  /**
   * Writes queued or under way ({@link save}, {@link ensureBase}: one at a
   * time, in call order). No line is written ahead meanwhile: it could land
   * in a log a base is replacing, or before an older line of its path.
   */
  #busy = 0;
  #queue: Promise<void> = Promise.resolve();
  /** The base on disk records nothing (no entry, no index version). */
  #emptyBase = false;
  /** The files as this process last read them, with its own appends since (see {@link refresh}). */
  readonly #seen = new SeenFiles();
  /** The log the last take-in read (inode, null for none; bytes of its whole lines read): see {@link #writeBase}. */
  #readThrough: { readonly ino: number | null; readonly size: number } | undefined;

  /**
   * Paths whose lines another process wrote ahead to a log this process's
   * base replaced, taken into its records but not yet written again under a
   * base (the append failed): its own records until its next base or
   * append holds them, as no file does.
   */
  readonly #lateUnsaved = new Set<string>();

  readonly #hooks: ManifestHooks;

  constructor(dir: string, hooks: ManifestHooks = {}) {
    this.#dir = dir;
    this.#hooks = hooks;
    this.#ahead = new AheadLog(dir);
  }

  /**
   * True once a base was read or written, or a log line of any generation
   * found; a base that records nothing, with no line after it, counts as none.
   */
  get seen(): boolean {
    return (this.#gen >= 0 || this.#hasBase) && !(this.#emptyBase && this.#logLines === 0);
  }

  /** True when a save must write even with nothing changed (a damaged base or log is replaced). */
  get mustRewrite(): boolean {
    return this.#rewrite;
  }

  /** True when lines were written ahead that no save has made durable yet. */
  get aheadUnsynced(): boolean {
    return this.#ahead.unsynced;
  }

  /**
   * Writes a base now unless a readable one is on disk (one that
   * {@link writeAhead} can append to), recording `indexVersion`.
   */
  async ensureBase(
    manifest: Map<string, SyncedEntry>,
    indexVersion: string | undefined,
    unsaved: Iterable<string> = [],
  ): Promise<void> {
    await this.#serial(async () => {
      if (this.#hasBase && !this.#rewrite && await diskGen(this.#dir) === this.#gen) return;
      const own = new Set(unsaved);
      await this.#takeIn(manifest, own);
      if (this.#hasBase && !this.#rewrite) return; // another process's base, taken in
      await this.#writeBase(manifest, indexVersion, own);
    });
  }

  /**
   * Takes in what the files hold now (a base, and its log: another process
   * may have written either since this one read them), with this process's
   * own records of `unsaved` paths over them (a record written ahead is in
   * the log taken in, or superseded there by another process's since);
   * `manifest` then holds the result. Returns the paths whose lines this
   * process must write again (its own, under the base taken in), or
   * undefined when there is no readable base on disk (nothing taken in).
   */
  async #takeIn(
    manifest: Map<string, SyncedEntry>,
    unsaved: ReadonlySet<string>,
  ): Promise<string[] | undefined> {
    const fresh = new Map<string, SyncedEntry>();
    let gen: number;
    let applied = 0;
    let torn = false;
    let glued = false;
    let damaged = false;
    let read: { ino: number | null; size: number };
    this.#readThrough = undefined;
    let baseRead = false;
    // Before the read: a base replaced in between is found changed at the next write ahead.
    const stamp = await baseStamp(this.#dir);
    try {
      const raw = await Deno.readTextFile(`${this.#dir}/${MANIFEST_FILE}`);
      gen = readBase(raw, fresh).gen;
      baseRead = true;
      const logFile = `${this.#dir}/${MANIFEST_LOG}`;
      const st = await Deno.lstat(logFile).catch(() => null);
      if (st?.isSymlink) return undefined; // never read through: the next base replaces it
      const bytes = st ? await Deno.readFile(logFile) : new Uint8Array();
      const r = replayLog(new TextDecoder().decode(bytes), gen, fresh);
      applied = r.applied;
      torn = r.torn;
      glued = r.glued;
      damaged = r.damaged.length > 0;
      // Read on from the end of the last whole line: a last line that looks
      // torn may be another process's write ahead still under way.
      const whole = bytes.lastIndexOf(10) + 1;
      read = { ino: st ? st.ino : null, size: whole };
    } catch {
      // A readable base whose log is not (a line newer than that base, of
      // one never written whole): the next save replaces them with this
      // process's records.
      if (baseRead) this.#rewrite = true;
      return undefined;
    }
    // This process's unsaved records only: one it wrote ahead is in the log
    // taken in, where another process may have recorded the path since.
    const own = new Set([...unsaved, ...this.#lateUnsaved]);
    for (const p of own) {
      const e = manifest.get(p);
      if (e) fresh.set(p, e);
      else fresh.delete(p);
    }
    manifest.clear();
    for (const [p, e] of fresh) manifest.set(p, e);
    if (gen !== this.#gen) {
      // Lines written ahead under the older base were in the log that base's
      // writer took in (or superseded by a newer record there).
      this.#ahead.settled();
    }
    this.#gen = gen;
    this.#baseStamp = stamp;
    this.#hasBase = true;
    this.#emptyBase = false;
    this.#logLines = applied;
    // A line glued to a torn one is read, the log replaced by the next save;
    // so is a log with a damaged line, every other line of it taken in.
    this.#rewrite ||= torn || glued || damaged;
    this.#readThrough = read;
    return [...own];
  }

  /** Runs `write` after every write called before it. */
  async #serial(write: () => Promise<void>): Promise<void> {
    this.#busy++;
    const run = this.#queue.then(write);
    this.#queue = run.catch(() => {});
    try {
      await run;
    } finally {
      this.#busy--;
    }
  }

  /**
   * Appends the lines of `paths` to the log at once, in one synchronous write
   * and without an fsync (the next {@link save} makes them durable), so that
   * they are on disk even if the process dies before that save. Returns
   * false, having written nothing, when there is no base to append to, a
   * write of the files is queued or under way, or the write failed (the next
   * save then writes a base): the caller leaves those paths to the next save.
   */
  writeAhead(manifest: ReadonlyMap<string, SyncedEntry>, paths: readonly string[]): boolean {
    if (this.#rewrite || !this.#hasBase || this.#busy > 0) return false;
    const out = logLines(manifest, this.#gen, paths);
    const bytes = ENCODER.encode(`${out.join("\n")}\n`);
    try {
      // Replaced by another process's base, or cut off part way by its write:
      // left to the save, which takes that base in first, or writes a base.
      const written = this.#ahead.write(
        bytes,
        this.#seen,
        this.#hooks.beforeAheadWrite,
        () => baseStampSync(this.#dir) === this.#baseStamp,
      );
      if (written !== "written") {
        // After a torn line no line may be appended: the save writes a base.
        if (written === "torn") this.#rewrite = true;
        return false;
      }
    } catch {
      // Part of a line may be in the log: no line may follow it there.
      this.#rewrite = true;
      this.#ahead.release();
      return false;
    }
    this.#logLines += out.length;
    return true;
  }

  /** Closes the log held open for lines written ahead, without an fsync (as a process's exit does). */
  release(): void {
    this.#ahead.release();
  }

  /**
   * True when the base or the log differ from what this process last read
   * ({@link load}, {@link refresh}) and wrote since: another process over
   * the cache wrote them. Two `stat`s. Files this process found damaged
   * count too: another process may have replaced them since.
   */
  async changedOnDisk(): Promise<boolean> {
    return !this.#seen.matches(await filesSnapshot(this.#dir));
  }

  /**
   * Takes in what another process over the cache recorded since this one
   * last read the files (its pull's records of the files it fetched, say),
   * with this process's own unsaved records of `unsaved` over it, as a save
   * does (see {@link save}): a process open for long (swamp's extension)
   * then plans its push over what the cache's other processes synced, not
   * over what it read at its start. Nothing is taken in from files that
   * cannot be read (the next save replaces them); files this process found
   * damaged (a torn log) are read again once they changed, since another
   * process may have written a base over them (the next save of this one
   * still writes a base). Call holding the lock.
   */
  async refresh(manifest: Map<string, SyncedEntry>, unsaved: Iterable<string>): Promise<void> {
    await this.#serial(async () => {
      const seen = await filesSnapshot(this.#dir);
      if (this.#seen.matches(seen)) return this.#seen.take(seen);
      if (await this.#takeIn(manifest, new Set(unsaved))) this.#seen.take(seen);
    });
  }

  /**
   * Reads the base and applies its generation's log lines into `manifest`.
   * Unreadable files clear it and make the next save write a base numbered
   * past every log line.
   */
  async load(manifest: Map<string, SyncedEntry>): Promise<ManifestLoad> {
    const snap = await filesSnapshot(this.#dir);
    this.#seen.take(snap);
    try {
      const raw = await Deno.readTextFile(`${this.#dir}/${MANIFEST_FILE}`);
      const base = readBase(raw, manifest);
      this.#gen = base.gen;
      this.#baseStamp = snap.base;
      this.#emptyBase = manifest.size === 0 && base.indexVersion === undefined;
      let indexVersion = base.indexVersion;
      const log = await this.#replayLog(manifest);
      if (log?.index) indexVersion = log.index.version;
      this.#hasBase = true;
      return {
        kind: "read",
        indexVersion,
        ...(log?.damaged.length ? { damaged: log.damaged } : {}),
      };
    } catch (e) {
      // Without a readable base, the log's lines are void: the next base is
      // numbered past every one of them so that none can ever apply to it.
      this.#gen = Math.max(this.#gen, await logMaxGen(this.#dir));
      if (e instanceof Deno.errors.NotFound) return { kind: "none" };
      manifest.clear();
      // The damaged files are replaced at the next save, even by an empty manifest.
      this.#rewrite = true;
      return { kind: "unreadable", error: e as Error };
    }
  }

  /**
   * Persists `changed` (and the index version, when `indexChanged`) durably:
   * appended to the log (one fsync), or a new base written atomically.
   */
  async save(
    manifest: Map<string, SyncedEntry>,
    changed: readonly string[],
    index: { readonly changed: boolean; readonly version: string | undefined },
  ): Promise<void> {
    await this.#serial(async () => {
      if (this.#hasBase && !this.#rewrite && await diskGen(this.#dir) !== this.#gen) {
        // Another process wrote a base since: taken in, this process's own
        // records written again under it.
        const again = await this.#takeIn(manifest, new Set(changed));
        if (again) changed = again;
      }
      // Another process's write ahead cut off part way: no line may follow
      // it, so a new base replaces the log.
      if (this.#hasBase && !this.#rewrite && await logTorn(this.#dir)) this.#rewrite = true;
      const lines = changed.length + (index.changed ? 1 : 0);
      if (
        this.#rewrite || !this.#hasBase ||
        this.#logLines + lines > Math.max(LOG_MIN_LINES, manifest.size)
      ) {
        // A new base holds what the files hold now (another process's log
        // lines among them), with this process's own records over it;
        // files that cannot be read are replaced by what this process holds.
        const own = new Set(changed);
        await this.#takeIn(manifest, own);
        await this.#writeBase(manifest, index.version, own);
      } else if (lines > 0) {
        await this.#appendLog(manifest, changed, index);
      } else {
        await this.#ahead.sync();
      }
    });
  }

  /**
   * Writes a new base of the next generation, then empties the log (whose
   * lines it supersedes). Lines another process wrote ahead to that log
   * after the take-in before it read it (none holds the lock to write
   * ahead) are taken into `manifest`, except those of `own` paths (this
   * process's records stand over them, as at a take-in), and appended to
   * the new log under the new base; an append of them that fails throws,
   * as a failed append of a save does, and they are this process's own
   * records until its next save writes them.
   */
  async #writeBase(
    manifest: Map<string, SyncedEntry>,
    indexVersion: string | undefined,
    own: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const before = this.#gen;
    const readThrough = this.#readThrough;
    this.#readThrough = undefined;
    const old = readThrough ? await openLogIfSame(this.#dir, readThrough.ino) : undefined;
    try {
      // Past every generation on disk (another process's base, or lines of a
      // base no longer readable): a number no other base ever had.
      const gen =
        Math.max(this.#gen, (await diskGen(this.#dir)) ?? -1, await logMaxGen(this.#dir)) +
        1;
      const text = baseText(manifest, gen, indexVersion);
      this.#hooks.beforeBase?.();
      await writingState(
        this.#dir,
        MANIFEST_FILE,
        () => atomicWrite(`${this.#dir}/${MANIFEST_FILE}`, new TextEncoder().encode(text)),
      );
      // Every line this process wrote ahead so far is in this base (none is
      // written while it is), and every record taken in from a replaced log.
      this.#ahead.settled();
      this.#lateUnsaved.clear();
      this.#gen = gen;
      // Under the state directory's lock, which every base's writer holds.
      this.#baseStamp = await baseStamp(this.#dir);
      this.#hasBase = true;
      this.#emptyBase = manifest.size === 0 && indexVersion === undefined;
      this.#logLines = 0;
      this.#rewrite = false;
      // Lines of an older generation are ignored when loading, so this may fail
      // harmlessly. Replaced, not truncated: a link in its place is never followed.
      await atomicWrite(`${this.#dir}/${MANIFEST_LOG}`, new Uint8Array()).catch(() => {});
      // Lines another process wrote ahead to the replaced log since it was
      // read: no longer written there (its writer finds the log replaced),
      // they are taken in and written again under this base.
      const late = old && readThrough
        ? await lateLines(old, readThrough.size, before, manifest, own)
        : [];
      let appended = 0;
      if (late.length > 0) {
        const bytes = ENCODER.encode(`${logLines(manifest, gen, late).join("\n")}\n`);
        await writingState(this.#dir, MANIFEST_LOG, async () => {
          await appendSynced(`${this.#dir}/${MANIFEST_LOG}`, bytes);
        }).catch((e) => {
          // Part of a line may be in the log: the next save writes a base,
          // which holds these records (in `manifest`, kept there as this
          // process's own until then: no file holds them now).
          for (const p of late) this.#lateUnsaved.add(p);
          this.#rewrite = true;
          this.#seen.forget();
          throw e;
        });
        appended = bytes.length;
        this.#logLines = late.length;
      }
      // What the files hold is this process's manifest, unless a line was
      // appended to the new log since (read again at the next look).
      const now = await filesSnapshot(this.#dir);
      if (now.log?.size === appended) this.#seen.take(now);
      else this.#seen.forget();
    } finally {
      old?.close();
    }
  }

  async #appendLog(
    manifest: ReadonlyMap<string, SyncedEntry>,
    changed: readonly string[],
    index: { readonly changed: boolean; readonly version: string | undefined },
  ): Promise<void> {
    const out = logLines(
      manifest,
      this.#gen,
      changed,
      index.changed ? { version: index.version } : undefined,
    );
    // A failed append may leave part of a line: no line may follow it, so
    // the next save writes a base (and nothing is written ahead until then).
    const torn = (e: unknown) => {
      this.#rewrite = true;
      throw e;
    };
    await writingState(this.#dir, MANIFEST_LOG, async () => {
      const file = `${this.#dir}/${MANIFEST_LOG}`;
      const created = this.#logLines === 0 &&
        !(await Deno.lstat(file).then(() => true, () => false));
      const bytes = ENCODER.encode(`${out.join("\n")}\n`);
      // Lines written ahead to this file are made durable too.
      this.#seen.appended(await appendSynced(file, bytes), bytes.length);
      if (created || this.#ahead.created) await fsyncDir(this.#dir);
    }).catch(torn);
    this.#logLines += out.length;
    this.#ahead.settled();
    for (const p of changed) this.#lateUnsaved.delete(p);
  }

  /**
   * Applies the log lines of the base's generation; returns the last index
   * version they record. A last line cut short (a crash during an append
   * that was never acknowledged) is dropped, and the next save rewrites the
   * base so that no line is ever appended to it; so is one cut short with a
   * whole line glued on after it (that line is applied), and so is any
   * other unreadable line before the last (passed over, its record lost,
   * every other kept; its number in `damaged`).
   */
  async #replayLog(
    manifest: Map<string, SyncedEntry>,
  ): Promise<{ index?: { version: string | undefined }; damaged: number[] } | undefined> {
    const text = await readLog(this.#dir);
    if (text === undefined) return undefined;
    const r = replayLog(text, this.#gen, manifest);
    if (r.torn || r.glued || r.damaged.length > 0) this.#rewrite = true;
    this.#logLines += r.applied;
    return { index: r.index, damaged: r.damaged };
  }
}
