/**
 * Reads of the synced manifest's files on disk (`manifest.json`, the base,
 * and `manifest.log`, its log) that change nothing there: their identity
 * and what this process saw of it, whether the log ends in a torn line,
 * its highest generation, its text, the base's generation, the lines
 * written to a log past what was read. Writes are `ManifestFiles`' (a
 * base, with the late lines it takes in: `manifest_base.ts`; a line written
 * ahead: `manifest_ahead.ts`).
 *
 * @module
 */
import { type BaseCarry, carriedLines, maxLogGen, type SyncedEntry } from "./manifest_log.ts";

/** The base file of the synced manifest, in the state directory. */
export const MANIFEST_FILE = "manifest.json";
/** The log of changes since the base, in the state directory. */
export const MANIFEST_LOG = "manifest.log";

/** The base's signature and the log's inode and size, as {@link filesSnapshot} read them. */
export interface FilesSnapshot {
  /** The base's identity, size and change times ("-" when absent). */
  readonly base: string;
  /** The log's inode and size; null when there is none. */
  readonly log: { readonly ino: number | null; readonly size: number } | null;
}

/**
 * The base's and the log's identities and sizes in `dir`: two `lstat`s.
 * The log only ever grows by appends or is replaced (another inode), so its
 * inode and size tell what was added to it since.
 *
 * @example
 * ```ts
 * import { filesSnapshot } from "./manifest_disk.ts";
 * console.log((await filesSnapshot(await Deno.makeTempDir())).log); // null
 * ```
 */
export async function filesSnapshot(dir: string): Promise<FilesSnapshot> {
  const base = await baseStamp(dir);
  const log = await Deno.lstat(`${dir}/${MANIFEST_LOG}`).then(
    (st) => ({ ino: st.ino, size: st.size }),
    () => null,
  );
  return { base, log };
}

/** The base's identity, size and change times, as {@link FilesSnapshot.base} holds them. */
function stampOf(st: Deno.FileInfo): string {
  return `${st.ino}:${st.size}:${st.mtime?.getTime()}:${st.ctime?.getTime() ?? ""}`;
}

/** The base's identity in `dir` (one `lstat`), as {@link FilesSnapshot.base} holds it; "-" when absent. */
export async function baseStamp(dir: string): Promise<string> {
  return await Deno.lstat(`${dir}/${MANIFEST_FILE}`).then(stampOf, () => "-");
}

/** {@link baseStamp}, synchronously. */
export function baseStampSync(dir: string): string {
  try {
    return stampOf(Deno.lstatSync(`${dir}/${MANIFEST_FILE}`));
  } catch {
    return "-";
  }
}

/**
 * What a process last read of the manifest's files, with the bytes it
 * appended to the log since: the files differ from it only once another
 * process wrote them, so that a process's own saves do not make it read
 * the whole manifest again.
 *
 * @example
 * ```ts
 * import { filesSnapshot, SeenFiles } from "./manifest_disk.ts";
 * const dir = await Deno.makeTempDir();
 * const seen = new SeenFiles();
 * seen.take(await filesSnapshot(dir));
 * console.log(seen.matches(await filesSnapshot(dir))); // true
 * ```
 */
export class SeenFiles {
  #seen: FilesSnapshot | undefined;
  /** Bytes this process appended to the seen log since it was taken. */
  #own = 0;

  /** The files are now as `snap` found them, and this process holds what they record. */
  take(snap: FilesSnapshot): void {
    this.#seen = snap;
    this.#own = 0;
  }

  /** Nothing is known of the files: the next look finds them changed. */
  forget(): void {
    this.#seen = undefined;
  }

  /**
   * This process appended `bytes` to the log of inode `ino`, records it
   * holds; appended to another log than the one seen, the files are
   * forgotten (read again at the next look).
   */
  appended(ino: number | null | undefined, bytes: number): void {
    const log = this.#seen?.log;
    if (log && ino !== null && ino !== undefined && ino === log.ino) this.#own += bytes;
    else this.forget();
  }

  /** True when `snap` holds only what was seen and this process's own appends since. */
  matches(snap: FilesSnapshot): boolean {
    const seen = this.#seen;
    if (!seen || seen.base !== snap.base) return false;
    if (seen.log === null || snap.log === null) return seen.log === snap.log && this.#own === 0;
    return seen.log.ino === snap.log.ino && snap.log.size === seen.log.size + this.#own;
  }
}

/**
 * True when the log's last byte ends no line (a write cut off part way,
 * another process's); false when it does, or there is no log.
 */
export async function logTorn(dir: string): Promise<boolean> {
  let f: Deno.FsFile;
  try {
    f = await Deno.open(`${dir}/${MANIFEST_LOG}`, { read: true });
  } catch {
    return false;
  }
  try {
    const size = (await f.stat()).size;
    if (size === 0) return false;
    await f.seek(size - 1, Deno.SeekMode.Start);
    const last = new Uint8Array(1);
    return (await f.read(last)) === 1 && last[0] !== 10;
  } catch {
    return false;
  } finally {
    f.close();
  }
}

/** The highest generation among the log's readable lines; -1 when none. */
export async function logMaxGen(dir: string): Promise<number> {
  return maxLogGen(await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`).catch(() => ""));
}

/**
 * The log's bytes and inode; undefined when there is none. A log that is a
 * symbolic link is never read (nor appended through): an error, and the
 * next save replaces it.
 */
export async function readLog(
  dir: string,
): Promise<{ bytes: Uint8Array; ino: number | null } | undefined> {
  const file = `${dir}/${MANIFEST_LOG}`;
  try {
    const st = await Deno.lstat(file);
    if (st.isSymlink) throw new Error("the manifest log is a symbolic link");
    return { bytes: await Deno.readFile(file), ino: st.ino };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/**
 * The generation of the base on disk, from its first bytes (its JSON
 * begins with its format and generation); undefined when there is none,
 * or it cannot be read.
 */
export async function diskGen(dir: string): Promise<number | undefined> {
  let f: Deno.FsFile;
  try {
    f = await Deno.open(`${dir}/${MANIFEST_FILE}`, { read: true });
  } catch {
    return undefined;
  }
  try {
    const head = new Uint8Array(96);
    const n = (await f.read(head)) ?? 0;
    if (n === 0) return undefined;
    const m = /"gen":(\d+)/.exec(new TextDecoder().decode(head.subarray(0, n)));
    return m ? Number(m[1]) : 0;
  } catch {
    return undefined;
  } finally {
    f.close();
  }
}

/**
 * The log open for reading when it is the one of inode `ino` (`null`: none
 * was there, and one created since is read from its start); undefined
 * otherwise, or when it is a symbolic link.
 */
export async function openLogIfSame(
  dir: string,
  ino: number | null,
): Promise<Deno.FsFile | undefined> {
  const file = `${dir}/${MANIFEST_LOG}`;
  const st = await Deno.lstat(file).catch(() => null);
  if (!st || st.isSymlink || (ino !== null && st.ino !== ino)) return undefined;
  const f = await Deno.open(file, { read: true }).catch(() => undefined);
  if (!f) return undefined;
  // The file opened is the one looked at (not one put in its place since).
  if ((await f.stat().catch(() => null))?.ino !== st.ino) {
    f.close();
    return undefined;
  }
  return f;
}

/** True when the byte of `log` before `size` ends a line (read through its own offset, which appends ignore). */
export function endsLine(log: Deno.FsFile, size: number): boolean {
  const last = new Uint8Array(1);
  log.seekSync(size - 1, Deno.SeekMode.Start);
  return log.readSync(last) === 1 && last[0] === 10;
}

/**
 * The paths of the whole lines of generation `gen` in `log` past its first
 * `from` bytes (lines another process wrote ahead after they were read),
 * their records taken into `manifest` except for `own` paths (those found
 * are added to `passed`). Lines that cannot be read, or of another
 * generation, are left out.
 */
export async function lateLines(
  log: Deno.FsFile,
  from: number,
  gen: number,
  manifest: Map<string, SyncedEntry>,
  own: ReadonlySet<string>,
  passed?: Set<string>,
): Promise<string[]> {
  let text: string;
  try {
    await log.seek(from, Deno.SeekMode.Start);
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await log.read(buf);
      if (n === null || n === 0) break;
      chunks.push(buf.slice(0, n));
    }
    const all = new Uint8Array(chunks.reduce((t, c) => t + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    text = new TextDecoder().decode(all);
  } catch {
    return [];
  }
  return carriedLines(text, gen, manifest, own, passed);
}

/**
 * The paths of the lines a base's writer that ended before it replaced the
 * log it read left there (see `BaseCarry`), their records taken into
 * `manifest`: read from `log` (its bytes, of inode `ino`) when it is still
 * that log; none otherwise.
 */
export function leftByBase(
  carry: BaseCarry | undefined,
  log: { readonly bytes: Uint8Array; readonly ino: number | null } | undefined,
  manifest: Map<string, SyncedEntry>,
): string[] {
  if (!carry || !log || carry.at > log.bytes.length) return [];
  if (carry.ino !== null && carry.ino !== log.ino) return [];
  return carriedLines(
    new TextDecoder().decode(log.bytes.subarray(carry.at)),
    carry.g,
    manifest,
  );
}
