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

  /**
   * `root` is the cache directory (no trailing slash); `checked` the set of
   * cache-relative directories seen not to be links, shared with the cache's
   * own path checks.
   */
  constructor(root: string, checked: Set<string>) {
    this.#root = root;
    this.#checked = checked;
  }

  /** Forgets every directory checked or made. */
  reset(): void {
    this.#checked.clear();
    this.#made.clear();
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
          Deno.mkdirSync(`${this.#root}/${path.slice(0, path.lastIndexOf("/"))}`, {
            recursive: true,
          });
          continue;
        }
      }
      if (made) this.#made.add(rel);
      this.#checked.add(rel);
    }
    return undefined;
  }
}
