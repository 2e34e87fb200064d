/**
 * The parent directories of cache writes: each checked not to be a link, or
 * made where missing, and remembered until the checks are reset (a pull
 * resets them at its start, so it checks or makes each directory once, not
 * once per file).
 *
 * @module
 */

function isNotFound(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound;
}

/** Makes the directory `dir` (one level); false when something is there already. */
function mkdirNew(dir: string): boolean {
  try {
    Deno.mkdirSync(dir);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    throw e;
  }
}

/** Async {@link mkdirNew}. */
async function mkdirNewAsync(dir: string): Promise<boolean> {
  try {
    await Deno.mkdir(dir);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    throw e;
  }
}

/** What one level of {@link ParentDirs.makeAsync} found: checked or made, a link, or not a directory. */
type Level = "ok" | "link" | "notDir";

/**
 * What a recursive mkdir under `rel`, a file, failed with: "already exists"
 * when `rel` is the parent itself, told as the "not a directory" it is.
 */
export function notADirectory(rel: string, e: unknown): unknown {
  if (!(e instanceof Deno.errors.AlreadyExists)) return e;
  return new Deno.errors.NotADirectory(`${rel} is a file, not a directory: ${e.message}`);
}

/**
 * The directories of a cache checked (not links) or made since the last
 * {@link ParentDirs.reset}.
 *
 * @example
 * ```ts
 * import { ParentDirs } from "./cache_dirs.ts";
 * const root = await Deno.makeTempDir();
 * const dirs = new ParentDirs(root, new Set());
 * dirs.make("a/b/file.txt"); // makes a and a/b; undefined: no link on the way
 * ```
 */
export class ParentDirs {
  readonly #root: string;
  readonly #checked: Set<string>;
  readonly #made = new Set<string>();
  /** Paths {@link firstInNew} answered true for. */
  readonly #claimed = new Set<string>();
  /** Levels being checked or made by {@link makeAsync}: each once, however many writes wait. */
  readonly #making = new Map<string, Promise<Level>>();

  /**
   * `root` is the cache directory (no trailing slash); `checked` the set of
   * cache-relative directories seen not to be links, shared with the cache's
   * own path checks.
   */
  constructor(root: string, checked: Set<string>) {
    this.#root = root;
    this.#checked = checked;
  }

  /**
   * True the first time since the last reset that `path` is asked for, when
   * its directory was made by this object since then: nothing was at `path`
   * when the directory was made, nor written there by this cache since, so
   * a write there replaces no file of the user's (it need not look for one).
   */
  firstInNew(path: string): boolean {
    const slash = path.lastIndexOf("/");
    if (slash === -1 || !this.#made.has(path.slice(0, slash))) return false;
    if (this.#claimed.has(path)) return false;
    this.#claimed.add(path);
    return true;
  }

  /** Forgets the directory `rel` (removed): the next write under it makes it again. */
  forget(rel: string): void {
    this.#checked.delete(rel);
    this.#made.delete(rel);
  }

  /** Forgets every directory checked or made. */
  reset(): void {
    this.#checked.clear();
    this.#made.clear();
    this.#claimed.clear();
    this.#making.clear();
  }

  /**
   * Makes the missing parent directories of `path` (cache-relative, already
   * validated), one level at a time: a `mkdir` never follows a link (it fails
   * on anything there already, which is then checked with lstat). Inside a
   * directory made since the last reset, a level is made without looking
   * first (so a cold pull meets no missing-file errors). Returns the first
   * directory on the way that is a link (nothing is made below it), else
   * undefined. A parent that is not a directory fails as a recursive mkdir
   * of the parent does.
   */
  make(path: string): string | undefined {
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      const rel = path.slice(0, i);
      if (this.#checked.has(rel)) continue;
      const dir = `${this.#root}/${rel}`;
      const up = rel.lastIndexOf("/");
      let made = up !== -1 && this.#made.has(rel.slice(0, up)) && mkdirNew(dir);
      if (!made) {
        let st: Deno.FileInfo | null = null;
        try {
          st = Deno.lstatSync(dir);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
        // Missing: made here, unless something appeared meanwhile (then checked).
        if (st === null) {
          made = mkdirNew(dir);
          if (!made) st = Deno.lstatSync(dir);
        }
        if (st?.isSymlink) return rel;
        if (st && !st.isDirectory) {
          // Not remembered: the next write under it fails the same way.
          try {
            Deno.mkdirSync(`${this.#root}/${path.slice(0, path.lastIndexOf("/"))}`, {
              recursive: true,
            });
          } catch (e) {
            throw notADirectory(rel, e);
          }
          continue;
        }
      }
      if (made) this.#made.add(rel);
      this.#checked.add(rel);
    }
    return undefined;
  }

  /**
   * {@link make} in asynchronous calls, for a filesystem slow at them: the
   * same levels, made or checked the same way. Writes into the same new
   * directories at once share each level's calls.
   */
  async makeAsync(path: string): Promise<string | undefined> {
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      const rel = path.slice(0, i);
      if (this.#checked.has(rel)) continue;
      let level = this.#making.get(rel);
      if (!level) {
        level = this.#level(rel);
        this.#making.set(rel, level);
        const forget = () => {
          if (this.#making.get(rel) === level) this.#making.delete(rel);
        };
        level.then(forget, forget);
      }
      const found = await level;
      if (found === "link") return rel;
      if (found === "notDir") {
        // Each write fails with its own path, as a recursive mkdir of its parent does.
        await Deno.mkdir(`${this.#root}/${path.slice(0, path.lastIndexOf("/"))}`, {
          recursive: true,
        }).catch((e) => {
          throw notADirectory(rel, e);
        });
      }
    }
    return undefined;
  }

  /** One level of {@link makeAsync}. */
  async #level(rel: string): Promise<Level> {
    const dir = `${this.#root}/${rel}`;
    const up = rel.lastIndexOf("/");
    let made = up !== -1 && this.#made.has(rel.slice(0, up)) && await mkdirNewAsync(dir);
    if (!made) {
      let st: Deno.FileInfo | null = null;
      try {
        st = await Deno.lstat(dir);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      if (st === null) {
        made = await mkdirNewAsync(dir);
        if (!made) st = await Deno.lstat(dir);
      }
      if (st?.isSymlink) return "link";
      if (st && !st.isDirectory) return "notDir";
    }
    if (made) this.#made.add(rel);
    this.#checked.add(rel);
    return "ok";
  }
}
