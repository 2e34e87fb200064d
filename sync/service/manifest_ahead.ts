/**
 * The synced manifest's log as lines are written ahead of a save: held open
 * between writes, each line appended at once without an fsync (the next
 * save makes them durable), so that a process that dies before that save
 * still leaves them on disk. `ManifestFiles` decides when a line may be
 * written ahead; this module writes it, and tells when the log it holds is
 * no longer the one in place.
 *
 * @module
 */
import { fsyncDir } from "../transfer/atomic_write.ts";
import { lstatOrNull } from "../transfer/cache_paths.ts";
import { endsLine, MANIFEST_LOG, type SeenFiles } from "./manifest_disk.ts";
import { writingState } from "./state_files.ts";

/** What {@link AheadLog.write} did. */
export type AheadWrite =
  /** The bytes are in the log in place. */
  | "written"
  /** The log was replaced by another process's base (before the write, or since): the bytes may be in neither log. */
  | "replaced"
  /**
   * Another process's line cut off part way (its disk full) ended the log:
   * nothing written, or the bytes glued to it (the log unreadable until a
   * base replaces it).
   */
  | "torn";

/**
 * The log in the state directory `dir`, held open for lines written ahead.
 *
 * @example
 * ```ts
 * import { AheadLog } from "./manifest_ahead.ts";
 * import { SeenFiles } from "./manifest_disk.ts";
 * const log = new AheadLog(await Deno.makeTempDir());
 * console.log(log.write(new TextEncoder().encode("{}\n"), new SeenFiles())); // "written"
 * log.release();
 * ```
 */
export class AheadLog {
  readonly #dir: string;
  #file: Deno.FsFile | undefined;
  /** The inode of the log held open, taken once at its open. */
  #ino: number | null | undefined;
  /**
   * Where this process's last write ended the log held open (its last byte
   * that write's newline); undefined until one is written to it.
   */
  #end: number | undefined;
  #unsynced = false;
  #created = false;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Lines were written ahead since the last save: the next one makes them durable. */
  get unsynced(): boolean {
    return this.#unsynced;
  }

  /** The log was created by a write ahead: the next save makes its directory entry durable. */
  get created(): boolean {
    return this.#created;
  }

  /**
   * Appends `bytes` to the log in one synchronous write, told to `seen` as
   * this process's own; `before` runs just before the write. `current`
   * runs once a log is opened, and after each write: false when the base in
   * place is no longer the one of the generation the lines are written for
   * (another process's base, written since this process last read or wrote
   * the files), which makes the write `replaced`. Throws when a write fails
   * (part of a line may be in the log then).
   */
  write(
    bytes: Uint8Array,
    seen: SeenFiles,
    before?: () => void,
    current?: () => boolean,
  ): AheadWrite {
    const path = `${this.#dir}/${MANIFEST_LOG}`;
    // One lstat per write: the held log's inode was taken at its open.
    const st = lstatOrNull(path);
    if (this.#file && this.#ino !== st?.ino) {
      // Another process replaced the log (with a base of its own): lines of
      // the older base's generation would be lost there.
      this.release();
      return "replaced";
    }
    if (!this.#file) {
      this.#file = Deno.openSync(path, { append: true, create: true, read: true, write: true });
      this.#ino = this.#file.statSync().ino;
      this.#created ||= st === null;
      // Looked at once the log is open: a base written before the log in
      // place (a base's writer replaces the log after it) is found here, so
      // no line of an older generation goes to that base's log, where no
      // load would ever apply it.
      if (current && !current()) {
        this.release();
        return "replaced";
      }
    }
    // Another process's line cut off part way (its disk full) ends the log:
    // a line after it would make the log unreadable. A log that ends where
    // this process's last write to it ended (the same inode, held open, so
    // never reused) ends with that write's newline: no read.
    if (st && st.size > 0 && st.size !== this.#end && !endsLine(this.#file, st.size)) {
      return "torn";
    }
    before?.();
    // Another process's line cut off part way since that look (or between
    // two pieces of this one): this line is glued to it, and the log no
    // longer readable. Told by where each piece landed (the offset after an
    // append is its end): the first after a whole line, each next piece
    // where the one before ended.
    let glued = false;
    // Where the log ended at the look, a whole line (checked above): a first
    // piece landing there needs no read.
    let expected: number | undefined;
    const looked = st?.size ?? 0;
    // The log's lstat after the write (undefined: not taken yet).
    let after: Deno.FileInfo | null | undefined;
    let off = 0;
    while (off < bytes.length) {
      const n = this.#file.writeSync(bytes.subarray(off));
      let end: number | undefined;
      if (off === 0 && n === bytes.length) {
        // Written in one piece: a log that grew by exactly these bytes since
        // the look (it only grows by appends) holds them where it ended then.
        after = lstatOrNull(path);
        if (after && after.ino === this.#ino && after.size === looked + n) end = after.size;
      }
      end ??= this.#file.seekSync(0, Deno.SeekMode.Current);
      const start = end - n;
      if (
        expected === undefined
          ? start !== looked && start > 0 && !endsLine(this.#file, start)
          : start !== expected
      ) glued = true;
      expected = end;
      off += n;
    }
    seen.appended(this.#ino, bytes.length);
    // Replaced by another process's base since the look above, after that
    // process read the replaced log's last lines: these may be in neither.
    // A base written over the log held open, which its writer did not
    // replace (it ended first, or its disk was full), is looked at too:
    // lines of the older generation there are void. The lstat is the one
    // taken after a write in one piece, else taken now.
    if (after === undefined) after = lstatOrNull(path);
    if (after?.ino !== this.#ino || (current && !current())) {
      this.release();
      return "replaced";
    }
    if (glued) return "torn";
    this.#end = expected;
    this.#unsynced = true;
    return "written";
  }

  /** Makes the lines written ahead durable (an fsync of the log, and of its directory if they created it). */
  async sync(): Promise<void> {
    if (!this.#unsynced) return;
    await writingState(this.#dir, MANIFEST_LOG, async () => {
      const f = this.#file ??
        await Deno.open(`${this.#dir}/${MANIFEST_LOG}`, { append: true, write: true });
      try {
        await f.sync();
      } finally {
        if (f !== this.#file) f.close();
      }
      if (this.#created) await fsyncDir(this.#dir);
    });
    this.settled();
  }

  /** The lines written ahead are durable (synced, or in a base), or void: the log is closed until the next. */
  settled(): void {
    this.#unsynced = false;
    this.#created = false;
    this.release();
  }

  /** Closes the log held open, without an fsync (as a process's exit does). */
  release(): void {
    try {
      this.#file?.close();
    } catch { /* closed already */ }
    this.#file = undefined;
    this.#ino = undefined;
    this.#end = undefined;
  }
}
