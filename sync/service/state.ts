/**
 * Durable sync state in the cache's `.sluice/` directory: the dirty set (an
 * fsynced append-only journal, compacted on each push) and the synced
 * manifest (per path: content hash, remote version, size and mtime as of the
 * last sync). The manifest is a base file plus an fsynced log of the changes
 * made since it was written, so that a push of a few files into a large cache
 * appends a few lines instead of rewriting every entry; the base is rewritten
 * once the log holds as many lines as the manifest has entries. An
 * unreadable state file means "walk everything", never "clean".
 *
 * @module
 */
import { STATE_DIR } from "../transfer/cache.ts";
import { atomicWrite, fsyncDir } from "../transfer/atomic_write.ts";
import { SluiceError, UnsafePathError } from "../errors.ts";
import type { StateAccess } from "../context.ts";
import { ConflictSet } from "./conflicts.ts";

/** A manifest entry. */
export interface SyncedEntry {
  /** Hex SHA-256 of the content. */
  readonly hash: string;
  /** Remote version (ETag, generation, …). */
  readonly version: string;
  /** Size in bytes. */
  readonly size: number;
  /** Local mtime when synced (lets a walk skip hashing unchanged files). */
  readonly mtimeMs?: number;
}

/** A manifest entry as stored. */
interface StoredEntry {
  h: string;
  v: string;
  s: number;
  m?: number;
}

interface ManifestFile {
  format: 1;
  /** Generation: log lines of another generation predate this base and are ignored. */
  gen?: number;
  indexVersion?: string;
  entries: Record<string, StoredEntry>;
}

/** One line of the manifest log: a path set (`e`) or removed (no `e`), or the index version (`i`). */
interface LogLine {
  g: number;
  p?: string;
  e?: StoredEntry;
  i?: string | null;
}

const DIRTY_FILE = "dirty.log";
const MANIFEST_FILE = "manifest.json";
const MANIFEST_LOG = "manifest.log";
/** The log is folded into the base once it has more lines than this and than the manifest has entries. */
const LOG_MIN_LINES = 1024;

function stored(e: SyncedEntry): StoredEntry {
  return { h: e.hash, v: e.version, s: e.size, m: e.mtimeMs };
}

function checkedEntry(path: string, e: Partial<StoredEntry> | undefined): SyncedEntry {
  if (typeof e?.h !== "string" || typeof e?.v !== "string") throw new Error(`bad entry ${path}`);
  return { hash: e.h, version: e.v, size: e.s as number, mtimeMs: e.m };
}
const BULK = "*";
/** Prefix of a dirty-journal line naming a path a push wrote unnamed and has not committed yet. */
const ATTEMPTED = "?";

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
export class SyncState implements StateAccess {
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
  #manifest = new Map<string, SyncedEntry>();
  /**
   * What differs between memory and disk: manifest paths changed since the
   * last save, whether the base must be rewritten, and the dirty journal. A
   * push or pull with nothing to do writes no state file.
   */
  #changed = new Set<string>();
  #rewrite = false;
  #savedIndexVersion: string | undefined;
  #journalStale = false;
  /** Generation of the base on disk (-1 before the first); the next base takes a higher one. */
  #gen = -1;
  /** Whether a readable base is on disk: until then every save writes one. */
  #hasBase = false;
  /** Lines of this generation in the manifest log. */
  #logLines = 0;
  /** Remote index version as of the last sync. */
  indexVersion: string | undefined;
  /** Problems found while loading (a corrupted file turns into a walk). */
  readonly loadWarnings: string[] = [];
  /** Unresolved conflicts (see `conflicts.ts`). */
  conflicts!: ConflictSet;

  private constructor(cacheDir: string) {
    this.#dir = `${cacheDir.replace(/\/+$/, "")}/${STATE_DIR}`;
  }

  /**
   * Loads the state of the cache at `cacheDir` (creating nothing until the
   * first write). A state directory that is a symlink is refused with
   * `UnsafePathError`: the state would be written outside the cache.
   */
  static async open(cacheDir: string): Promise<SyncState> {
    const s = new SyncState(cacheDir);
    const st = await Deno.lstat(s.#dir).catch(() => null);
    if (st?.isSymlink) {
      throw new UnsafePathError(
        STATE_DIR,
        "the cache's state directory is a symbolic link, and Sluice never writes its state outside the cache: move the directory it points to into the cache in its place, then run the command again",
      );
    }
    await s.#load();
    s.conflicts = await ConflictSet.open(cacheDir);
    if (s.conflicts.loadWarning) s.loadWarnings.push(s.conflicts.loadWarning);
    return s;
  }

  dirtyPaths(): string[] {
    return [...this.#dirty.keys()].sort();
  }

  bulkPending(): boolean {
    return this.#bulk;
  }

  /** A snapshot of dirty marks (path → sequence), for committing only what a push saw. */
  snapshot(): { paths: Map<string, number>; bulkSeq: number } {
    return { paths: new Map(this.#dirty), bulkSeq: this.#bulk ? this.#bulkSeq : -1 };
  }

  /** Marks one path dirty, or everything (a walk) when `path` is undefined. Durable on return. */
  async markDirty(path?: string): Promise<void> {
    const line = path === undefined ? BULK : JSON.stringify(path);
    await this.#append(`${line}\n`);
    this.#journalStale = true;
    const seq = ++this.#seq;
    if (path === undefined) {
      this.#bulk = true;
      this.#bulkSeq = seq;
    } else {
      this.#dirty.set(path, seq);
    }
  }

  /** Marks many paths dirty with one durable append. */
  async markDirtyMany(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.#append(paths.map((p) => `${JSON.stringify(p)}\n`).join(""));
    this.#journalStale = true;
    for (const p of paths) this.#dirty.set(p, ++this.#seq);
  }

  /**
   * Paths a push wrote (or was about to) without naming them, whose commit
   * has not come yet, sorted: a later push that covers them checks those it
   * no longer plans (see `buildPlan`).
   */
  attemptedPaths(): string[] {
    return [...this.#attempted].sort();
  }

  /** Records, durably and before they are written, the paths a push is about to write unnamed. */
  async markAttempted(paths: readonly string[]): Promise<void> {
    const fresh = paths.filter((p) => !this.#attempted.has(p));
    if (fresh.length === 0) return;
    await this.#append(fresh.map((p) => `${ATTEMPTED}${JSON.stringify(p)}\n`).join(""));
    this.#journalStale = true;
    for (const p of fresh) this.#attempted.add(p);
  }

  async clean(paths: readonly string[]): Promise<void> {
    for (const p of paths) {
      if (p.endsWith("/")) {
        for (const k of [...this.#dirty.keys()]) if (k.startsWith(p)) this.#dirty.delete(k);
      } else {
        this.#dirty.delete(p);
      }
    }
    this.#journalStale = true;
    await this.#compact();
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
    await this.saveManifest();
    await this.#compact();
  }

  synced(path: string): SyncedEntry | undefined {
    return this.#manifest.get(path);
  }

  /** All manifest paths. */
  syncedPaths(): string[] {
    return [...this.#manifest.keys()];
  }

  async forget(paths: readonly string[]): Promise<void> {
    for (const p of paths) {
      if (p.endsWith("/")) {
        for (const k of [...this.#manifest.keys()]) {
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

  /** Records without persisting (the caller persists once with {@link saveManifest}). */
  setSynced(path: string, entry: SyncedEntry | undefined): void {
    if (entry) this.#manifest.set(path, entry);
    else this.#manifest.delete(path);
    this.#changed.add(path);
  }

  /** How many paths are recorded as synced (without listing them). */
  get syncedCount(): number {
    return this.#manifest.size;
  }

  /**
   * Persists the manifest durably: the changes since the last save are
   * appended to the log (one fsync), or, when the log has grown as large as
   * the manifest, a new base is written atomically. Nothing is written when
   * nothing changed.
   */
  async saveManifest(): Promise<void> {
    const indexVersion = this.indexVersion;
    const indexChanged = indexVersion !== this.#savedIndexVersion;
    if (!this.#rewrite && this.#changed.size === 0 && !indexChanged) return;
    // Taken now: changes made while this save waits belong to the next one.
    const changed = [...this.#changed];
    this.#changed.clear();
    const lines = changed.length + (indexChanged ? 1 : 0);
    try {
      if (
        this.#rewrite || !this.#hasBase ||
        this.#logLines + lines > Math.max(LOG_MIN_LINES, this.#manifest.size)
      ) {
        await this.#writeBase(indexVersion);
      } else {
        await this.#appendLog(changed, indexChanged, indexVersion);
      }
    } catch (e) {
      for (const p of changed) this.#changed.add(p);
      throw e;
    }
    this.#savedIndexVersion = indexVersion;
  }

  /** Writes a new base of the next generation, then empties the log (whose lines it supersedes). */
  async #writeBase(indexVersion: string | undefined): Promise<void> {
    const gen = this.#gen + 1;
    const file: ManifestFile = { format: 1, gen, indexVersion, entries: {} };
    for (const [p, e] of this.#manifest) file.entries[p] = stored(e);
    await this.#writing(MANIFEST_FILE, () =>
      atomicWrite(
        `${this.#dir}/${MANIFEST_FILE}`,
        new TextEncoder().encode(JSON.stringify(file)),
      ));
    this.#gen = gen;
    this.#hasBase = true;
    this.#logLines = 0;
    this.#rewrite = false;
    // Lines of an older generation are ignored when loading, so this may fail
    // harmlessly. Replaced, not truncated: a link in its place is never followed.
    await atomicWrite(`${this.#dir}/${MANIFEST_LOG}`, new Uint8Array()).catch(() => {});
  }

  async #appendLog(
    changed: readonly string[],
    indexChanged: boolean,
    indexVersion: string | undefined,
  ): Promise<void> {
    const g = this.#gen;
    const out: string[] = [];
    for (const p of changed) {
      const e = this.#manifest.get(p);
      const line: LogLine = e ? { g, p, e: stored(e) } : { g, p };
      out.push(JSON.stringify(line));
    }
    if (indexChanged) out.push(JSON.stringify({ g, i: indexVersion ?? null } satisfies LogLine));
    await this.#writing(MANIFEST_LOG, async () => {
      const file = `${this.#dir}/${MANIFEST_LOG}`;
      const created = this.#logLines === 0 &&
        !(await Deno.lstat(file).then(() => true, () => false));
      const f = await Deno.open(file, { append: true, create: true, write: true });
      try {
        const bytes = new TextEncoder().encode(`${out.join("\n")}\n`);
        let off = 0;
        while (off < bytes.length) off += await f.write(bytes.subarray(off));
        await f.sync();
      } finally {
        f.close();
      }
      if (created) await fsyncDir(this.#dir);
    });
    this.#logLines += out.length;
  }

  /**
   * Runs a write of a state file; a failure (the file turned into a
   * directory, a read-only disk…) becomes a coded error that says what to do
   * instead of a bare OS error.
   */
  async #writing(name: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (e) {
      if (e instanceof SluiceError) throw e;
      const file = `${this.#dir}/${name}`;
      throw new SluiceError(
        "internal",
        `Could not write the sync state file ${file} (${
          e instanceof Error ? e.message : String(e)
        }). No file in the cache was lost, but this cache's record of what is dirty or synced may be out of date. Make ${file} a writable regular file again (move a directory or a damaged file out of the way), then mark everything dirty (markDirty with no path) and push: the walk uploads only files that changed.`,
        { cause: e },
      );
    }
  }

  async #append(text: string): Promise<void> {
    await this.#writing(DIRTY_FILE, async () => {
      await Deno.mkdir(this.#dir, { recursive: true });
      const f = await Deno.open(`${this.#dir}/${DIRTY_FILE}`, {
        append: true,
        create: true,
        write: true,
      });
      try {
        await f.write(new TextEncoder().encode(text));
        await f.sync();
      } finally {
        f.close();
      }
    });
  }

  async #compact(): Promise<void> {
    if (!this.#journalStale) return;
    const lines = [
      ...(this.#bulk ? [BULK] : []),
      ...[...this.#dirty.keys()].map((p) => JSON.stringify(p)),
      ...[...this.#attempted].map((p) => `${ATTEMPTED}${JSON.stringify(p)}`),
    ];
    await this.#writing(DIRTY_FILE, () =>
      atomicWrite(
        `${this.#dir}/${DIRTY_FILE}`,
        new TextEncoder().encode(lines.map((l) => `${l}\n`).join("")),
      ));
    this.#journalStale = false;
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
    if (text !== null) {
      for (const line of text.split("\n")) {
        if (line === "") continue;
        const seq = ++this.#seq;
        if (line === BULK) {
          this.#bulk = true;
          this.#bulkSeq = seq;
          continue;
        }
        try {
          const attempted = line.startsWith(ATTEMPTED);
          const p = JSON.parse(attempted ? line.slice(ATTEMPTED.length) : line);
          if (typeof p !== "string") throw new Error("not a path");
          if (attempted) this.#attempted.add(p);
          else this.#dirty.set(p, seq);
        } catch {
          this.#bulk = true;
          this.#bulkSeq = seq;
          this.loadWarnings.push("dirty set has an unreadable line: walking everything");
        }
      }
    }
    try {
      const raw = await Deno.readTextFile(`${this.#dir}/${MANIFEST_FILE}`);
      const m = JSON.parse(raw) as ManifestFile;
      if (m.format !== 1 || typeof m.entries !== "object" || m.entries === null) {
        throw new Error("unknown format");
      }
      const gen = m.gen ?? 0;
      if (!Number.isSafeInteger(gen) || gen < 0) throw new Error("bad generation");
      this.indexVersion = typeof m.indexVersion === "string" ? m.indexVersion : undefined;
      for (const [p, e] of Object.entries(m.entries)) this.#manifest.set(p, checkedEntry(p, e));
      this.#gen = gen;
      await this.#replayLog();
      this.#hasBase = true;
      this.#savedIndexVersion = this.indexVersion;
    } catch (e) {
      // Without a readable base, the log's lines are void: the next base is
      // numbered past every one of them so that none can ever apply to it.
      this.#gen = Math.max(this.#gen, await this.#logMaxGen());
      if (e instanceof Deno.errors.NotFound) return;
      this.#manifest.clear();
      this.indexVersion = undefined;
      // The damaged files are replaced at the next save, even by an empty manifest.
      this.#rewrite = true;
      this.#bulk = true;
      this.loadWarnings.push(
        `synced manifest unreadable (${(e as Error).message}): walking everything`,
      );
    }
  }

  /** The highest generation among the log's readable lines; -1 when none. */
  async #logMaxGen(): Promise<number> {
    const text = await Deno.readTextFile(`${this.#dir}/${MANIFEST_LOG}`).catch(() => "");
    let max = -1;
    for (const line of text.split("\n")) {
      try {
        const g = JSON.parse(line)?.g;
        if (Number.isSafeInteger(g)) max = Math.max(max, g);
      } catch { /* a damaged line carries no generation */ }
    }
    return max;
  }

  /**
   * Applies the log lines of the base's generation. A last line cut short (a
   * crash during an append that was never acknowledged) is dropped, and the
   * next save rewrites the base so that no line is ever appended to it; an
   * unreadable line before the last makes the whole manifest unreadable.
   */
  async #replayLog(): Promise<void> {
    const file = `${this.#dir}/${MANIFEST_LOG}`;
    let text: string;
    try {
      if ((await Deno.lstat(file)).isSymlink) {
        // Never read or appended through: the next save replaces it.
        throw new Error("the manifest log is a symbolic link");
      }
      text = await Deno.readTextFile(file);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      throw e;
    }
    const lines = text.split("\n");
    // Complete lines end in a newline, so the last piece is "" unless an append was cut short.
    const tail = lines.pop();
    if (tail !== "") this.#rewrite = true;
    for (const [n, line] of lines.entries()) {
      let r: LogLine;
      try {
        r = JSON.parse(line);
        if (typeof r !== "object" || r === null || !Number.isSafeInteger(r.g)) throw new Error();
      } catch {
        throw new Error(`the manifest log's line ${n + 1} is unreadable`);
      }
      if (r.g < this.#gen) continue; // written before the base: already in it
      if (r.g > this.#gen) throw new Error("the manifest log is newer than its base");
      if ("i" in r) {
        this.indexVersion = typeof r.i === "string" ? r.i : undefined;
      } else if (typeof r.p === "string") {
        if (r.e) this.#manifest.set(r.p, checkedEntry(r.p, r.e));
        else this.#manifest.delete(r.p);
      } else throw new Error(`the manifest log's line ${n + 1} names no path`);
      this.#logLines++;
    }
  }
}

/**
 * Marks an index token a cache took from its own v2 commit: the shard
 * versions that commit derived are checked against a listing before a pull
 * skips the read (see `pull.ts`).
 */
export const UNCHECKED = "?";

/** The token without its {@link UNCHECKED} mark. */
export function checkedToken(token: string | undefined): string | undefined {
  return token?.endsWith(UNCHECKED) ? token.slice(0, -UNCHECKED.length) : token;
}
