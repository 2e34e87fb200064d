/**
 * The datastore's paths this cache's last pull could not place, because a
 * file or directory of this cache's own is in their way (`path_blocked`):
 * the datastore holds `a/b` and this cache a file `a` the datastore does
 * not hold, or the datastore a file `a` and this cache files under `a/`
 * (where the datastore holds both shapes already, nothing is recorded). Kept in the state directory
 * (`blocked.json`), so that a later push, in this process or another, does
 * not publish the shape in the way beside them: the datastore would then
 * hold a file and files under a directory of one name, which no cache can
 * pull whole ({@link BlockedRecord.clashOf}). Each pull replaces what it
 * covered, and a whole pull reads the index while any path is recorded (a
 * token that says nothing changed would keep a stale record); a record that
 * cannot be read is taken as empty (the next pull finds the same paths
 * again).
 *
 * @module
 */
import { atomicWrite } from "../transfer/atomic_write.ts";
import { under } from "./pull_plan.ts";
import { directoriesOf } from "../paths.ts";
import { writingState } from "./state_files.ts";

/** The file name, in the state directory. */
export const BLOCKED_FILE = "blocked.json";

interface BlockedFile {
  readonly format: 1;
  readonly paths: string[];
}

/**
 * The datastore paths the last pull left out as blocked.
 *
 * @example
 * ```ts
 * import { BlockedRecord } from "./blocked_record.ts";
 * const record = await BlockedRecord.open(await Deno.makeTempDir());
 * await record.update(["notes/a/b.txt"]);
 * console.log(record.clashOf("notes/a")); // "notes/a/b.txt"
 * ```
 */
export class BlockedRecord {
  readonly #dir: string;
  #paths = new Set<string>();
  /** Every directory the paths lie in, for {@link clashOf}. */
  #dirs?: Set<string>;

  private constructor(stateDir: string) {
    this.#dir = stateDir.replace(/\/+$/, "");
  }

  /** Loads the record kept in `stateDir` (none: empty). */
  static async open(stateDir: string): Promise<BlockedRecord> {
    const r = new BlockedRecord(stateDir);
    try {
      const j = JSON.parse(await Deno.readTextFile(`${r.#dir}/${BLOCKED_FILE}`)) as BlockedFile;
      if (j?.format === 1 && Array.isArray(j.paths)) {
        for (const p of j.paths) if (typeof p === "string" && p !== "") r.#paths.add(p);
      }
    } catch {
      // Absent or unreadable: empty, and the next pull finds the paths again.
    }
    return r;
  }

  /** How many paths are recorded. */
  get size(): number {
    return this.#paths.size;
  }

  /** The recorded paths, sorted. */
  paths(): string[] {
    return [...this.#paths].sort();
  }

  /**
   * Replaces the paths under `prefixes` (a pull of those paths; every path
   * when undefined) by `blocked`, durably; nothing is written when nothing
   * changed.
   */
  async update(blocked: readonly string[], prefixes?: readonly string[]): Promise<void> {
    const next = new Set([...this.#paths].filter((p) => prefixes && !under(p, prefixes)));
    for (const p of blocked) next.add(p);
    if (next.size === this.#paths.size && [...next].every((p) => this.#paths.has(p))) return;
    this.#paths = next;
    this.#dirs = undefined;
    const file = `${this.#dir}/${BLOCKED_FILE}`;
    await writingState(this.#dir, BLOCKED_FILE, async () => {
      if (next.size === 0) {
        await Deno.remove(file).catch((e) => {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        });
        return;
      }
      const body: BlockedFile = { format: 1, paths: this.paths() };
      await atomicWrite(file, new TextEncoder().encode(JSON.stringify(body, null, 1)));
    });
  }

  /** Adds `paths` to the record, durably (a commit that found them in the way: see `commitPrepared`). */
  async add(paths: readonly string[]): Promise<void> {
    if (paths.every((p) => this.#paths.has(p))) return;
    await this.update([...this.#paths, ...paths], []);
  }

  /**
   * The recorded path a file published at `path` would stand beside as the
   * other shape of one name (one under `path/`, or `path`'s own directory
   * or one above it); undefined when none. A shape this cache replaced
   * (`synced`: the file `path`, or the file above it, was synced here) is
   * not one: the push that publishes the replacement deletes the synced
   * shape, and meets a peer's change there as a conflict.
   */
  clashOf(path: string, synced: (path: string) => boolean = () => false): string | undefined {
    if (this.#paths.size === 0) return undefined;
    for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
      const above = path.slice(0, i);
      if (this.#paths.has(above)) return synced(above) ? undefined : above;
    }
    if (synced(path)) return undefined;
    if (!(this.#dirs ??= directoriesOf(this.#paths)).has(path)) return undefined;
    return this.paths().find((p) => p.startsWith(`${path}/`));
  }
}
