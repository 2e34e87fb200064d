/**
 * The dirty journal's file (`.sluice/dirty.log`, lines in
 * `dirty_journal.ts`) as processes sharing the cache write it: appends and
 * rewrites made holding the state lock (see `state_lock.ts`), and, before
 * each, what other processes wrote since this one last looked, taken in as
 * their lines, which this process carries in every rewrite and never
 * pushes nor clears. `SyncState` holds this process's own marks.
 *
 * @module
 */
import { atomicWrite } from "../transfer/atomic_write.ts";
import { randomId } from "../hash.ts";
import { journalLines, readJournalLine } from "./dirty_journal.ts";

/** This process's own marks, as its memory holds them. */
export interface OwnMarks {
  readonly bulk: boolean;
  readonly dirty: Iterable<string>;
  readonly attempted: Iterable<string>;
}

/** What {@link SharedJournal.catchUp} found. */
export interface CaughtUp {
  /** A line no one can read: what it marked cannot be told (walk everything). */
  readonly unreadable: boolean;
  /**
   * A rewrite by another process left out marks of this one (a process that
   * took them over at its start handled them): the next write of the
   * journal must write them all again.
   */
  readonly ownDropped: boolean;
}

/**
 * The journal file `file`, written by this process as `owner`.
 *
 * @example
 * ```ts
 * import { SharedJournal } from "./shared_journal.ts";
 * const j = new SharedJournal(`${await Deno.makeTempDir()}/dirty.log`, "1.a");
 * await j.append('@1.a "x"\n');
 * ```
 */
export class SharedJournal {
  readonly #file: string;
  readonly #owner: string;
  /** Other processes' lines, carried verbatim in every rewrite. */
  readonly foreign = new Set<string>();
  /**
   * The journal as this process last read or wrote it: its generation (the
   * first line of a rewritten journal; "" for none) and its length.
   */
  #gen = "";
  #len = 0;

  constructor(file: string, owner: string) {
    this.#file = file;
    this.#owner = owner;
  }

  /** What a load read is this process's view (a torn last line left out, to be read whole). */
  loaded(text: string): void {
    const bytes = new TextEncoder().encode(text);
    const first = readJournalLine(text.slice(0, Math.max(0, text.indexOf("\n"))));
    this.#gen = first.kind === "generation" ? first.id : "";
    this.#len = bytes.lastIndexOf(10) + 1;
  }

  /**
   * Takes in the lines other processes wrote since this one last read or
   * wrote the journal (call holding the state lock), as {@link foreign}
   * lines: those of another owner. Lines appended since are added to them;
   * a journal rewritten since (another generation: another process
   * compacted it, carrying this process's marks and the others') holds
   * every other process's mark still due, which replace them. This
   * process's own marks are its memory's (`own`).
   */
  async catchUp(own: OwnMarks): Promise<CaughtUp> {
    const since = await this.#since();
    if (!since) return { unreadable: false, ownDropped: false };
    const { bytes, tail } = since;
    // A last line without its newline is an append under way: left for later.
    const end = bytes.lastIndexOf(10) + 1;
    if (!tail) this.foreign.clear();
    const mine = { dirty: new Set<string>(), attempted: new Set<string>(), bulk: false };
    let unreadable = false;
    for (const line of new TextDecoder().decode(bytes.subarray(0, end)).split("\n")) {
      if (line === "") continue;
      const read = readJournalLine(line);
      if (read.kind === "generation") continue;
      if (read.kind === "unreadable") unreadable = true;
      else if (read.owner !== this.#owner) {
        // Another process's line, or one of no owner (an older build's): carried.
        this.foreign.add(line);
      } else if (read.kind === "dirty") mine.dirty.add(read.path);
      else if (read.kind === "attempted") mine.attempted.add(read.path);
      else mine.bulk = true;
    }
    // A rewrite holds every mark of this process it knew of, unless one that
    // took them over at its start handled them since.
    const ownDropped = !tail &&
      ((own.bulk && !mine.bulk) || [...own.dirty].some((p) => !mine.dirty.has(p)) ||
        [...own.attempted].some((p) => !mine.attempted.has(p)));
    this.#gen = since.generation;
    this.#len = since.at + end;
    return { unreadable, ownDropped };
  }

  /** Appends `text` durably (call holding the state lock, after {@link catchUp}). */
  async append(text: string): Promise<void> {
    const f = await Deno.open(this.#file, { append: true, create: true, write: true });
    try {
      const bytes = new TextEncoder().encode(text);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
      // Under the lock: nothing was written after this append.
      this.#len = (await f.stat()).size;
    } finally {
      f.close();
    }
  }

  /**
   * Rewrites the journal atomically: a new generation, this process's own
   * marks, and the others' lines (call holding the state lock, after
   * {@link catchUp}).
   */
  async rewrite(own: OwnMarks): Promise<void> {
    const generation = randomId(8);
    const text = journalLines({ generation, ...own, owner: this.#owner }) +
      [...this.foreign].map((l) => `${l}\n`).join("");
    const bytes = new TextEncoder().encode(text);
    await atomicWrite(this.#file, bytes);
    this.#gen = generation;
    this.#len = bytes.length;
  }

  /**
   * What the journal holds past this process's view of it: the bytes
   * appended since (`tail`: read from the length it knew, as its generation
   * is the one it knew), or the whole journal, rewritten since; undefined
   * when nothing changed, or there is no journal to read. Reads only the
   * first line and the new bytes when they are appends, so a run's marks
   * one by one each read only what came since.
   */
  async #since(): Promise<
    { bytes: Uint8Array; tail: boolean; at: number; generation: string } | undefined
  > {
    let f: Deno.FsFile;
    try {
      f = await Deno.open(this.#file, { read: true });
    } catch {
      return undefined; // none, or unreadable now: the marks in memory are written back whole
    }
    try {
      const size = (await f.stat()).size;
      const head = await readAt(f, 0, Math.min(size, 64));
      const nl = head.indexOf(10);
      const first = readJournalLine(nl < 0 ? "" : new TextDecoder().decode(head.subarray(0, nl)));
      const generation = first.kind === "generation" ? first.id : "";
      const known = this.#len;
      if (generation === this.#gen && size >= known) {
        if (size === known) return undefined;
        // Appends since: the byte before them ends a line of the journal known.
        const from = Math.max(0, known - 1);
        const chunk = await readAt(f, from, size - from);
        if (known === 0) return { bytes: chunk, tail: true, at: 0, generation };
        if (chunk[0] === 10) return { bytes: chunk.subarray(1), tail: true, at: known, generation };
      }
      return { bytes: await readAt(f, 0, size), tail: false, at: 0, generation };
    } catch {
      return undefined;
    } finally {
      f.close();
    }
  }
}

/** Up to `n` bytes of `f` from `offset` (fewer at its end). */
async function readAt(f: Deno.FsFile, offset: number, n: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  await f.seek(offset, Deno.SeekMode.Start);
  let got = 0;
  while (got < n) {
    const r = await f.read(out.subarray(got));
    if (r === null || r === 0) break;
    got += r;
  }
  return out.subarray(0, got);
}
