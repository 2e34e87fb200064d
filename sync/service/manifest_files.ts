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
import { appendSynced, fsyncDir } from "../transfer/atomic_write.ts";
import { type BaseCarry, logLines, readBase, replayLog, type SyncedEntry } from "./manifest_log.ts";
import { writingState } from "./state_files.ts";
import {
  baseStampSync,
  diskGen,
  filesSnapshot,
  leftByBase,
  logMaxGen,
  logTorn,
  MANIFEST_FILE,
  MANIFEST_LOG,
  readLog,
} from "./manifest_disk.ts";
import {
  type ManifestHooks,
  type ManifestLoad,
  type ManifestState,
  newManifestState,
} from "./manifest_state.ts";
import { takeIn } from "./manifest_take_in.ts";
import { writeBase } from "./manifest_base.ts";

export type { ManifestHooks, ManifestLoad };

/** The log is never compacted below this many lines (a base rewrite costs the whole manifest). */
const LOG_MIN_LINES = 1024;
const ENCODER = new TextEncoder();

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
  /** The files' state as this process knows it (see {@link ManifestState}). */
  readonly #s: ManifestState;
  /**
   * Writes queued or under way ({@link save}, {@link ensureBase}: one at a
   * time, in call order). No line is written ahead meanwhile: it could land
   * in a log a base is replacing, or before an older line of its path.
   */
  #busy = 0;
  #queue: Promise<void> = Promise.resolve();
  /** Tells the damaged log lines a take-in passed over (see {@link tellDamaged}). */
  #tell: ((lines: number[]) => void) | undefined;

  constructor(dir: string, hooks: ManifestHooks = {}) {
    this.#s = newManifestState(dir, hooks);
  }

  /**
   * True once a base was read or written, or a log line of any generation
   * found; a base that records nothing, with no line after it, counts as none.
   */
  get seen(): boolean {
    return (this.#s.gen >= 0 || this.#s.hasBase) && !(this.#s.emptyBase && this.#s.logLines === 0);
  }

  /** True when a save must write even with nothing changed (a damaged base or log is replaced). */
  get mustRewrite(): boolean {
    return this.#s.rewrite;
  }

  /** True when lines were written ahead that no save has made durable yet. */
  get aheadUnsynced(): boolean {
    return this.#s.ahead.unsynced;
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
      if (this.#s.hasBase && !this.#s.rewrite && await diskGen(this.#s.dir) === this.#s.gen) return;
      const own = new Set(unsaved);
      await takeIn(this.#s, manifest, own);
      if (this.#s.hasBase && !this.#s.rewrite) return; // another process's base, taken in
      await writeBase(this.#s, manifest, indexVersion, own);
    });
  }

  /**
   * Runs `write` after every write called before it. Every take-in runs in
   * one ({@link refresh}, {@link save}, {@link ensureBase}): the damaged
   * lines it passed over are told as it ends, whether or not it succeeded.
   */
  async #serial(write: () => Promise<void>): Promise<void> {
    this.#busy++;
    const run = this.#queue.then(write);
    this.#queue = run.catch(() => {});
    try {
      await run;
    } finally {
      this.#busy--;
      this.#tellUntold();
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
    if (this.#s.rewrite || !this.#s.hasBase || this.#busy > 0) return false;
    const out = logLines(manifest, this.#s.gen, paths);
    const bytes = ENCODER.encode(`${out.join("\n")}\n`);
    try {
      // Replaced by another process's base, or cut off part way by its write:
      // left to the save, which takes that base in first, or writes a base.
      const written = this.#s.ahead.write(
        bytes,
        this.#s.seen,
        this.#s.hooks.beforeAheadWrite,
        () => baseStampSync(this.#s.dir) === this.#s.baseStamp,
      );
      if (written !== "written") {
        // After a torn line no line may be appended: the save writes a base.
        if (written === "torn") this.#s.rewrite = true;
        return false;
      }
    } catch {
      // Part of a line may be in the log: no line may follow it there.
      this.#s.rewrite = true;
      this.#s.ahead.release();
      return false;
    }
    this.#s.logLines += out.length;
    return true;
  }

  /**
   * Has `tell` told the numbers of the log lines a take-in ({@link refresh},
   * {@link save}, {@link ensureBase}) passes over as damaged, their records
   * lost, as that take-in ends: each line once (one a load found is
   * reported by the load, in {@link ManifestLoad}, and never told again).
   * Lines passed over before, untold yet, are told at once.
   */
  tellDamaged(tell: (lines: number[]) => void): void {
    this.#tell = tell;
    this.#tellUntold();
  }

  #tellUntold(): void {
    if (this.#tell === undefined || this.#s.damagedUntold.length === 0) return;
    this.#tell(this.#s.damagedUntold.splice(0));
  }

  /** Closes the log held open for lines written ahead, without an fsync (as a process's exit does). */
  release(): void {
    this.#s.ahead.release();
  }

  /**
   * True when the base or the log differ from what this process last read
   * ({@link load}, {@link refresh}) and wrote since: another process over
   * the cache wrote them. Two `stat`s. Files this process found damaged
   * count too: another process may have replaced them since.
   */
  async changedOnDisk(): Promise<boolean> {
    return !this.#s.seen.matches(await filesSnapshot(this.#s.dir));
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
      const seen = await filesSnapshot(this.#s.dir);
      if (this.#s.seen.matches(seen)) return this.#s.seen.take(seen);
      if (await takeIn(this.#s, manifest, new Set(unsaved))) this.#s.seen.take(seen);
    });
  }

  /**
   * Reads the base and applies its generation's log lines into `manifest`.
   * Unreadable files clear it and make the next save write a base numbered
   * past every log line.
   */
  async load(manifest: Map<string, SyncedEntry>): Promise<ManifestLoad> {
    const snap = await filesSnapshot(this.#s.dir);
    this.#s.seen.take(snap);
    try {
      const raw = await Deno.readTextFile(`${this.#s.dir}/${MANIFEST_FILE}`);
      const base = readBase(raw, manifest);
      this.#s.gen = base.gen;
      this.#s.baseStamp = snap.base;
      this.#s.emptyBase = manifest.size === 0 && base.indexVersion === undefined;
      let indexVersion = base.indexVersion;
      const log = await this.#replayLog(manifest, base.carry);
      if (log?.index) indexVersion = log.index.version;
      this.#s.hasBase = true;
      return {
        kind: "read",
        indexVersion,
        ...(log?.damaged.length ? { damaged: log.damaged } : {}),
      };
    } catch (e) {
      // Without a readable base, the log's lines are void: the next base is
      // numbered past every one of them so that none can ever apply to it.
      this.#s.gen = Math.max(this.#s.gen, await logMaxGen(this.#s.dir));
      if (e instanceof Deno.errors.NotFound) return { kind: "none" };
      manifest.clear();
      // The damaged files are replaced at the next save, even by an empty manifest.
      this.#s.rewrite = true;
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
      if (this.#s.hasBase && !this.#s.rewrite && await diskGen(this.#s.dir) !== this.#s.gen) {
        // Another process wrote a base since: taken in, this process's own
        // records written again under it.
        const again = await takeIn(this.#s, manifest, new Set(changed));
        if (again) changed = again;
      }
      // Another process's write ahead cut off part way: no line may follow
      // it, so a new base replaces the log.
      if (this.#s.hasBase && !this.#s.rewrite && await logTorn(this.#s.dir)) this.#s.rewrite = true;
      const lines = changed.length + (index.changed ? 1 : 0);
      if (
        this.#s.rewrite || !this.#s.hasBase ||
        this.#s.logLines + lines > Math.max(LOG_MIN_LINES, manifest.size)
      ) {
        // A new base holds what the files hold now (another process's log
        // lines among them), with this process's own records over it;
        // files that cannot be read are replaced by what this process holds.
        const own = new Set(changed);
        await takeIn(this.#s, manifest, own);
        await writeBase(this.#s, manifest, index.version, own);
      } else if (lines > 0) {
        await this.#appendLog(manifest, changed, index);
      } else {
        await this.#s.ahead.sync();
      }
    });
  }

  async #appendLog(
    manifest: ReadonlyMap<string, SyncedEntry>,
    changed: readonly string[],
    index: { readonly changed: boolean; readonly version: string | undefined },
  ): Promise<void> {
    const out = logLines(
      manifest,
      this.#s.gen,
      changed,
      index.changed ? { version: index.version } : undefined,
    );
    // A failed append may leave part of a line: no line may follow it, so
    // the next save writes a base (and nothing is written ahead until then).
    const torn = (e: unknown) => {
      this.#s.rewrite = true;
      throw e;
    };
    await writingState(this.#s.dir, MANIFEST_LOG, async () => {
      const file = `${this.#s.dir}/${MANIFEST_LOG}`;
      const created = this.#s.logLines === 0 &&
        !(await Deno.lstat(file).then(() => true, () => false));
      const bytes = ENCODER.encode(`${out.join("\n")}\n`);
      // Lines written ahead to this file are made durable too.
      this.#s.seen.appended(await appendSynced(file, bytes), bytes.length);
      if (created || this.#s.ahead.created) await fsyncDir(this.#s.dir);
    }).catch(torn);
    this.#s.logLines += out.length;
    this.#s.ahead.settled();
    for (const p of changed) this.#s.lateUnsaved.delete(p);
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
    carry: BaseCarry | undefined,
  ): Promise<{ index?: { version: string | undefined }; damaged: number[] } | undefined> {
    const log = await readLog(this.#s.dir);
    if (log === undefined) return undefined;
    // Lines the base's writer left in the log it read, ending before it
    // replaced it: before this base's own, the next save writes a base.
    if (leftByBase(carry, log, manifest).length > 0) this.#s.rewrite = true;
    const r = replayLog(new TextDecoder().decode(log.bytes), this.#s.gen, manifest);
    // Told by the load: a take-in of the same log does not tell them again.
    for (const n of r.damaged) this.#s.damagedFound.add(`${log.ino ?? ""}:${n}`);
    if (r.torn || r.glued || r.damaged.length > 0) this.#s.rewrite = true;
    this.#s.logLines += r.applied;
    return { index: r.index, damaged: r.damaged };
  }
}
