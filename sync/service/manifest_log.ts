/**
 * The synced manifest's two files, as text: the base (`manifest.json`, every
 * entry, numbered by a generation) and the log (`manifest.log`, one JSON line
 * per change since that base: a path set or removed, or the index version).
 * `SyncState` owns the files and their durability; this reads and writes
 * their contents.
 *
 * @module
 */

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
  /**
   * Local ctime when synced: an edit that puts size and mtime back (`touch
   * -r`, `cp -p`, `rsync -t`, a restore) still changes it. Absent in records
   * made before it was kept: size and mtime alone are compared then.
   */
  readonly ctimeMs?: number;
  /**
   * The index no longer names this version although the store holds it
   * (another client rewrote the index without it): the next push of the
   * path names it again (see `dropped_entries.ts`).
   */
  readonly republish?: boolean;
  /**
   * A data version file this cache's push created (not one it pulled or
   * found in place): the writer id it was written with. A pull that finds it
   * deleted on the datastore keeps it, a conflict, since this copy may be
   * its only one, while the cache still has that id (a copy of the cache
   * does not: see `pull_removals.ts`).
   */
  readonly own?: string;
}

/** A manifest entry as stored. */
interface StoredEntry {
  h: string;
  v: string;
  s: number;
  m?: number;
  c?: number;
  r?: 1;
  o?: string;
}

interface ManifestFile {
  format: 1;
  /** Generation: log lines of another generation predate this base and are ignored. */
  gen?: number;
  indexVersion?: string;
  entries: Record<string, StoredEntry>;
  /** See {@link BaseCarry}. */
  carry?: BaseCarry;
}

/**
 * The log a base's writer read before it wrote the base: its inode (null:
 * there was none), the bytes of its whole lines read (`at`) and the
 * generation of its lines (`g`). Lines of that generation another process
 * wrote ahead there past those bytes (without the lock) were not read:
 * the writer takes them in once its base is in place and writes them to
 * the log that replaces that one. A writer that ended before it replaced
 * the log left them there, in a log of an older generation: whoever reads
 * the base while that log is still in place takes them in from it (over
 * the base's records of their paths: that writer's save never ended).
 */
export interface BaseCarry {
  readonly g: number;
  readonly ino: number | null;
  readonly at: number;
}

/** One line of the manifest log: a path set (`e`) or removed (no `e`), or the index version (`i`). */
interface LogLine {
  g: number;
  p?: string;
  e?: StoredEntry;
  i?: string | null;
}

function stored(e: SyncedEntry): StoredEntry {
  return {
    h: e.hash,
    v: e.version,
    s: e.size,
    m: e.mtimeMs,
    ...(e.ctimeMs !== undefined ? { c: e.ctimeMs } : {}),
    ...(e.republish ? { r: 1 } : {}),
    ...(e.own ? { o: e.own } : {}),
  };
}

function checkedEntry(path: string, e: Partial<StoredEntry> | undefined): SyncedEntry {
  if (typeof e?.h !== "string" || typeof e?.v !== "string") throw new Error(`bad entry ${path}`);
  return {
    hash: e.h,
    version: e.v,
    size: e.s as number,
    // Left out when none was recorded (a racy mtime), as the record was made.
    ...(typeof e.m === "number" ? { mtimeMs: e.m } : {}),
    ...(typeof e.c === "number" ? { ctimeMs: e.c } : {}),
    ...(e.r === 1 ? { republish: true } : {}),
    ...(typeof e.o === "string" ? { own: e.o } : {}),
  };
}

/** A base's text for `manifest` at generation `gen`, with the log its writer read (see {@link BaseCarry}). */
export function baseText(
  manifest: ReadonlyMap<string, SyncedEntry>,
  gen: number,
  indexVersion: string | undefined,
  carry?: BaseCarry,
): string {
  const file: ManifestFile = { format: 1, gen, indexVersion, entries: {} };
  for (const [p, e] of manifest) file.entries[p] = stored(e);
  // Last: the generation stays among the first bytes (see `diskGen`).
  if (carry) file.carry = { g: carry.g, ino: carry.ino, at: carry.at };
  return JSON.stringify(file);
}

function readCarry(c: Partial<BaseCarry> | undefined): BaseCarry | undefined {
  if (typeof c !== "object" || c === null) return undefined;
  const { g, ino, at } = c;
  if (!Number.isSafeInteger(g) || !Number.isSafeInteger(at) || (at as number) < 0) return undefined;
  if (ino !== null && !Number.isSafeInteger(ino)) return undefined;
  return { g: g as number, ino: ino as number | null, at: at as number };
}

/**
 * Reads a base into `manifest`; its generation and index version. Throws on
 * anything unreadable (an unknown format, a bad generation or entry).
 *
 * @example
 * ```ts
 * import { baseText, readBase } from "./manifest_log.ts";
 * const m = new Map();
 * console.log(readBase(baseText(new Map([["a", { hash: "h", version: "v", size: 1 }]]), 3, "t"), m).gen); // 3
 * ```
 */
export function readBase(
  raw: string,
  manifest: Map<string, SyncedEntry>,
): { gen: number; indexVersion: string | undefined; carry?: BaseCarry } {
  const m = JSON.parse(raw) as ManifestFile;
  if (m.format !== 1 || typeof m.entries !== "object" || m.entries === null) {
    throw new Error("unknown format");
  }
  const gen = m.gen ?? 0;
  if (!Number.isSafeInteger(gen) || gen < 0) throw new Error("bad generation");
  for (const [p, e] of Object.entries(m.entries)) manifest.set(p, checkedEntry(p, e));
  const carry = readCarry(m.carry);
  return {
    gen,
    indexVersion: typeof m.indexVersion === "string" ? m.indexVersion : undefined,
    ...(carry ? { carry } : {}),
  };
}

/**
 * The paths of the whole lines of generation `gen` in `text` (lines
 * written ahead to a log past what a base's writer read of it), their
 * records taken into `manifest` except for `own` paths (those found are
 * added to `passed`). Lines that cannot be read, or of another
 * generation, are left out; a line glued to another cut off part way
 * reads as itself (see {@link readLogLine}).
 */
export function carriedLines(
  text: string,
  gen: number,
  manifest: Map<string, SyncedEntry>,
  own: ReadonlySet<string> = new Set(),
  passed?: Set<string>,
): string[] {
  const lines = text.split("\n");
  lines.pop(); // a last piece without a newline is no whole line
  const paths = new Set<string>();
  for (const line of lines) {
    const r = readLogLine(line)?.line;
    if (r?.g !== gen || typeof r.p !== "string") continue;
    if (own.has(r.p)) {
      passed?.add(r.p);
      continue;
    }
    if (r.e) {
      try {
        // A line whose record cannot be read (a malformed entry) is passed over.
        manifest.set(r.p, checkedEntry(r.p, r.e));
      } catch {
        continue;
      }
    } else manifest.delete(r.p);
    paths.add(r.p);
  }
  return [...paths];
}

/** Log lines (without newlines) for the `changed` paths of `manifest`, and the index version when it changed. */
export function logLines(
  manifest: ReadonlyMap<string, SyncedEntry>,
  gen: number,
  changed: readonly string[],
  index?: { readonly version: string | undefined },
): string[] {
  const out: string[] = [];
  for (const p of changed) {
    const e = manifest.get(p);
    const line: LogLine = e ? { g: gen, p, e: stored(e) } : { g: gen, p };
    out.push(JSON.stringify(line));
  }
  if (index) out.push(JSON.stringify({ g: gen, i: index.version ?? null } satisfies LogLine));
  return out;
}

/** The start of every log line (its generation first): never found inside one, where quotes are escaped. */
const LINE_START = '{"g":';

function parsedLine(text: string): LogLine | undefined {
  try {
    const r = JSON.parse(text);
    return typeof r === "object" && r !== null && Number.isSafeInteger(r.g) ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One log line, read; undefined when it cannot be. A line another process
 * cut off part way (its disk full, or its end), with a whole line written
 * right after it glued on, reads as that whole line (`glued`): the cut-off
 * part was never acknowledged to its writer.
 */
export function readLogLine(line: string): { line: LogLine; glued: boolean } | undefined {
  const r = parsedLine(line);
  if (r) return { line: r, glued: false };
  const at = line.lastIndexOf(LINE_START);
  if (at <= 0 || !line.startsWith("{")) return undefined;
  const whole = parsedLine(line.slice(at));
  return whole ? { line: whole, glued: true } : undefined;
}

/**
 * Applies the log lines of generation `gen` to `manifest`. A last line cut
 * short (a crash during an append never acknowledged) is dropped and
 * reported as `torn` (the next save then rewrites the base); so is a line
 * cut short with another glued on after it (see {@link readLogLine}),
 * reported as `glued`, the line after it applied. Any other line before the
 * last that cannot be read (damaged on disk: not JSON, no path, a malformed
 * entry) is passed over and its number reported in `damaged`: the record it
 * held is lost, every other kept (the record it replaced, if any, stays). A
 * line newer than the base throws. Returns the lines applied and, when a
 * line set it, the index version.
 */
export function replayLog(
  text: string,
  gen: number,
  manifest: Map<string, SyncedEntry>,
): {
  applied: number;
  torn: boolean;
  glued: boolean;
  /** Numbers (from 1) of the lines passed over as unreadable. */
  damaged: number[];
  index?: { version: string | undefined };
} {
  const lines = text.split("\n");
  // Complete lines end in a newline, so the last piece is "" unless an append was cut short.
  const torn = lines.pop() !== "";
  let applied = 0;
  let glued = false;
  const damaged: number[] = [];
  let index: { version: string | undefined } | undefined;
  for (const [n, line] of lines.entries()) {
    const read = readLogLine(line);
    if (!read) {
      damaged.push(n + 1);
      continue;
    }
    const r = read.line;
    glued ||= read.glued;
    if (r.g < gen) continue; // written before the base: already in it
    if (r.g > gen) throw new Error("the manifest log is newer than its base");
    if ("i" in r) {
      index = { version: typeof r.i === "string" ? r.i : undefined };
    } else if (typeof r.p === "string") {
      if (r.e) {
        let entry: SyncedEntry;
        try {
          entry = checkedEntry(r.p, r.e);
        } catch {
          damaged.push(n + 1);
          continue;
        }
        manifest.set(r.p, entry);
      } else manifest.delete(r.p);
    } else {
      damaged.push(n + 1);
      continue;
    }
    applied++;
  }
  return { applied, torn, glued, damaged, index };
}

/** The highest generation among a log's readable lines; -1 when none. */
export function maxLogGen(text: string): number {
  let max = -1;
  for (const line of text.split("\n")) {
    // A damaged line carries no generation.
    const g = readLogLine(line)?.line.g;
    if (g !== undefined) max = Math.max(max, g);
  }
  return max;
}
