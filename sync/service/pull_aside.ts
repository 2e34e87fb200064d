/**
 * The local copies a pull sets aside while planning (a copy this cache never
 * synced, differing from the datastore's), each settled once the fetch of
 * its path is done. With the datastore's copy written at the path, the copy
 * stays set aside and is told of. With nothing written there (the object is
 * another writer's uncommitted write, it vanished, the path is blocked, a
 * file was saved there meanwhile, the fetch failed, or the pull stopped
 * before it), the copy is put back at its path while nothing is there, and
 * the conflict record made for it is dropped: the path is as the pull found
 * it. Else it stays set aside, named by that record, and is told of as it is.
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";
import { type LocalCache, shownStatePath } from "../transfer/cache.ts";
import { type ConflictRecord, resolveHint } from "./conflicts.ts";
import { shellWord } from "../shell_word.ts";

/** Warning code of a data version the datastore holds again with other bytes (see `planFetches`). */
export const VERSION_REWRITTEN = "version_rewritten";

/** A conflict found by the pull, recorded, and its warning, told later (`taken`: the datastore's copy was written). */
export interface HeldConflict {
  readonly rec: ConflictRecord;
  readonly tell: (taken: boolean) => void;
}

interface Aside {
  readonly location: string;
  readonly conflict: HeldConflict;
  /** A data version this cache had synced, published again with other bytes (see `planFetches`). */
  readonly rewritten: boolean;
  /** Its fetch started: its own outcome settles it. */
  fetching: boolean;
}

/**
 * The copies one pull set aside (see the module). `found` is the pull's list
 * of conflict records to save; a copy put back takes its record out of it.
 *
 * @example
 * ```ts
 * import { PullAsides } from "./pull_aside.ts";
 * import { LocalCache } from "../transfer/cache.ts";
 * import { createEmitter } from "../events.ts";
 * const asides = new PullAsides(new LocalCache(await Deno.makeTempDir()), createEmitter(), []);
 * console.log(asides.locations); // []
 * ```
 */
export class PullAsides {
  /** Where copies are set aside now (the pull's `setAside`). */
  readonly locations: string[] = [];
  readonly #cache: Pick<LocalCache, "putBack" | "dir" | "stateDir">;
  readonly #events: SluiceEmitter;
  readonly #found: ConflictRecord[];
  readonly #open = new Map<string, Aside>();
  /** The records in `found` are being saved: a copy they name stays where it is. */
  #saving = false;

  constructor(
    cache: Pick<LocalCache, "putBack" | "dir" | "stateDir">,
    events: SluiceEmitter,
    found: ConflictRecord[],
  ) {
    this.#cache = cache;
    this.#events = events;
    this.#found = found;
  }
  /** Where a set-aside location is on disk, as a user finds it. */
  #shown(location: string): string {
    return shownStatePath(this.#cache.dir, this.#cache.stateDir, location);
  }

  /**
   * `path`'s copy was set aside in `location`, named by `conflict` (in
   * `found`, its warning not told yet); `rewritten`: a data version this
   * cache had synced, which the datastore now holds with other bytes.
   */
  add(path: string, location: string, conflict: HeldConflict, rewritten = false): void {
    this.locations.push(location);
    this.#open.set(path, { location, conflict, fetching: false, rewritten });
  }

  /** What the copy of `a` was, and where it went. */
  #setAsideWhy(path: string, a: Aside): string {
    return a.rewritten
      ? `${path} is a data version this cache had synced, and the datastore now holds other bytes for it (another writer published the same version again, as a client that missed a commit can): a data version is never rewritten, so this cache's copy, the one published before, was set aside in ${
        this.#shown(a.location)
      } (see \`sluice status\`)`
      : `${path} existed locally but was never synced, and differs from the datastore's copy: the local copy was set aside in ${
        this.#shown(a.location)
      } (see \`sluice status\`)`;
  }

  /** True while a copy of `path` set aside by this pull waits for its fetch's outcome. */
  holds(path: string): boolean {
    return this.#open.has(path);
  }

  /** The fetch of `path` starts: from now on its outcome settles the copy. */
  fetching(path: string): void {
    const a = this.#open.get(path);
    if (a) a.fetching = true;
  }

  /** The datastore's copy was written at `path`: its set-aside copy is told of. */
  taken(path: string): void {
    const a = this.#open.get(path);
    if (!a) return;
    this.#open.delete(path);
    this.#events.emit("warning", {
      code: a.rewritten ? VERSION_REWRITTEN : "local_set_aside",
      message: `${this.#setAsideWhy(path, a)} and the datastore's copy was pulled. ${
        a.rewritten
          ? `Nothing was deleted: keep the copy you need, then \`sluice resolve ${
            shellWord(path)
          } --theirs\` settles it (the set-aside copy stays until you delete it).`
          : `Compare them, then \`${resolveHint(path)}\` (--mine publishes the set-aside copy).`
      }`,
      path,
    });
    a.conflict.tell(true);
  }

  /**
   * Nothing was written at `path` (`why`): its copy goes back there while
   * nothing is there and its record is not being saved (the record then
   * dropped, nothing told); else it stays set aside and is told of as it is.
   */
  notTaken(path: string, why: () => string): void {
    const a = this.#open.get(path);
    if (!a) return;
    this.#open.delete(path);
    let kept: string;
    if (this.#saving) {
      kept = "the pull failed meanwhile and recorded the conflict naming it, so it stays there";
    } else {
      try {
        // Synchronous from the look to the record's removal: no save comes between.
        if (this.#cache.putBack(a.location)) {
          const at = this.#found.indexOf(a.conflict.rec);
          if (at >= 0) this.#found.splice(at, 1);
          const where = this.locations.indexOf(a.location);
          if (where >= 0) this.locations.splice(where, 1);
          return;
        }
        kept =
          `something is at ${path} now (or in its way), kept as it is, so the copy stays there`;
      } catch (err) {
        kept = `putting it back failed (${(err as Error).message}), so it stays there`;
      }
    }
    this.#events.emit("warning", {
      code: a.rewritten ? VERSION_REWRITTEN : "local_set_aside",
      message: `${
        this.#setAsideWhy(path, a)
      }, and the datastore's copy was not written there (${why()}); ${kept}. ${
        a.rewritten
          ? `A data version is never written over: \`sluice resolve ${
            shellWord(path)
          } --theirs\` takes the datastore's once it can be (the copy stays set aside).`
          : `Compare them, then \`${
            resolveHint(path)
          }\` (--mine publishes the set-aside copy; --theirs takes the datastore's, setting aside what is at ${path}).`
      }`,
      path,
    });
    a.conflict.tell(false);
  }

  /**
   * The pull fails (`why`), and its records are about to be saved: each copy
   * whose fetch did not start is settled as not taken; a copy whose fetch is
   * still under way stays where it is, whatever that fetch does, as the
   * record saved names it there.
   */
  failing(why: () => string): void {
    for (const [path, a] of [...this.#open]) if (!a.fetching) this.notTaken(path, why);
    this.#saving = true;
  }
}
