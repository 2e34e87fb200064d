/**
 * Records of the temporary files streamed downloads write in the cache:
 * before a download creates its temporary file, a small record naming it
 * (its cache-relative path) is written to `downloads/` in the state
 * directory, and removed once the file is renamed into place or removed. A
 * download killed part way (the process killed, the machine down) leaves
 * both, and a later pull finds the file by its record, without walking the
 * cache (see `clearRecordedTemps` in `left_temps.ts`).
 *
 * A record's name is its own random id (never taken from the path it
 * names), so it is always a file of that directory, whatever the path; the
 * path is in its JSON body.
 *
 * @module
 */
import { randomId } from "../hash.ts";
import { isNotFound } from "./cache_paths.ts";

/** The directory of the records, in the state directory. */
export const TEMP_RECORDS_DIR = "downloads";

const RECORD_NAME = /^[0-9a-f]{8,}\.json$/;

/** A record read back: its file's name, and the path it names (null: unreadable). */
export interface TempRecord {
  readonly name: string;
  readonly path: string | null;
  /** The record file's mtime (ms since the epoch). */
  readonly mtimeMs: number;
}

/** The records of one state directory. */
export class TempRecords {
  readonly #dir: string;
  /** Records of this process's downloads still running: never another's to clear. */
  readonly #live = new Set<string>();

  constructor(stateDir: string) {
    this.#dir = `${stateDir.replace(/\/+$/, "")}/${TEMP_RECORDS_DIR}`;
  }

  /**
   * Records the temporary file `path` (cache-relative) before it is
   * created; returns the removal of the record, for once the file is in
   * place or gone.
   */
  async record(path: string): Promise<() => Promise<void>> {
    const name = `${randomId(8)}.json`;
    const file = `${this.#dir}/${name}`;
    const body = new TextEncoder().encode(JSON.stringify({ path }));
    try {
      await Deno.writeFile(file, body, { createNew: true });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await Deno.mkdir(this.#dir, { recursive: true });
      await Deno.writeFile(file, body, { createNew: true });
    }
    this.#live.add(name);
    return async () => {
      this.#live.delete(name);
      await this.drop(name);
    };
  }

  /**
   * The records left by downloads not of this process's still running: one
   * read of the directory, nothing when it is empty or missing.
   */
  async list(): Promise<TempRecord[]> {
    const names: string[] = [];
    try {
      for await (const e of Deno.readDir(this.#dir)) {
        if (e.isFile && RECORD_NAME.test(e.name) && !this.#live.has(e.name)) names.push(e.name);
      }
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
    const out: TempRecord[] = [];
    for (const name of names) {
      let text: string;
      let mtimeMs: number;
      try {
        const file = `${this.#dir}/${name}`;
        mtimeMs = (await Deno.lstat(file)).mtime?.getTime() ?? 0;
        text = await Deno.readTextFile(file);
      } catch (e) {
        if (isNotFound(e)) continue; // dropped meanwhile (another process's pull)
        throw e;
      }
      let path: string | null = null;
      try {
        const v = JSON.parse(text);
        if (typeof v?.path === "string") path = v.path;
      } catch { /* cut short (its writer killed while it wrote it) */ }
      out.push({ name, path, mtimeMs });
    }
    return out;
  }

  /** Removes the record `name` (gone already: nothing to do). */
  async drop(name: string): Promise<void> {
    if (!RECORD_NAME.test(name)) return;
    await Deno.remove(`${this.#dir}/${name}`).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
  }
}
