/**
 * I23, a deletion on the datastore is a user's by name: a clone deletes
 * another writer's object at a shared file's path (or under one: a file's
 * directory of parts) only where its user named that path, or a directory
 * above it, after the copy here went (a mark by name, `markDirty({ relPath })`,
 * or a resolution of the path), never for a copy removed by hand and left
 * to a walk, which never deletes on the datastore (a push of the whole
 * cache lists it as deleted here instead). A mark the library made of its
 * own, which a later directory of that name could take for the user's, is
 * what this catches.
 *
 * The harness tells of each mark and resolution its users make
 * ({@link NamedDeletions.named}) and of each copy they remove
 * ({@link NamedDeletions.removed}); each delete call a clone makes is then
 * checked ({@link NamedDeletions.check}). A clone's own uncommitted write
 * (its writer id on the object) is its to withdraw, named or not; its own
 * write it holds synced at that very version is a committed one, checked
 * as another writer's is (peers may hold it: where an old client's pull
 * dropped its entry, a walk that deleted it took it from every clone).
 *
 * A mark stands until a push ends (a plain push, or one under the global
 * lock, as in histories with old clients) that neither names it in its
 * result nor keeps that very mark (the one the user made, not one the
 * library made again since) in the clone's dirty set: a push may keep a
 * mark without naming it (a directory's mark whose check of an earlier
 * push's upload at its name waits on an open conflict there).
 *
 * @module
 */
import { SHARED_FILES } from "./history.ts";

/** True for a shared file's path, or a path under one. */
export function inSharedFiles(key: string): boolean {
  return SHARED_FILES.some((f) => key === f || key.startsWith(`${f}/`));
}

/**
 * What each clone's users named and removed, in the order it happened.
 *
 * @example
 * ```ts ignore
 * const named = new NamedDeletions();
 * named.removed(0, "notes/shared-0.md");
 * named.check(0, "notes/shared-0.md"); // a message: removed by hand, never named
 * named.named(0, ["notes/shared-0.md"]);
 * named.check(0, "notes/shared-0.md"); // undefined
 * ```
 */
export class NamedDeletions {
  /**
   * Per clone, the paths its users marked by name (or resolved) whose push
   * has not ended yet, each with whether the clone still holds that mark
   * (none for a resolution).
   */
  readonly #pending = new Map<number, Map<string, (() => boolean) | undefined>>();
  /** `<clone>\0<path>`: copies its users removed here. */
  readonly #removed = new Set<string>();
  /**
   * `<clone>\0<path>`: marks by name a second process over the clone's
   * cache left when it ended (its push left them), with whether each still
   * stands: the clone's other processes carry them and the next process to
   * open the cache pushes them (see {@link leftBehind}).
   */
  readonly #left = new Map<string, () => boolean>();

  /**
   * Clone `clone`'s user marked (or resolved) `paths` by name; `held`, for
   * a mark, tells whether the clone's dirty set still holds that very mark
   * of a path.
   */
  named(clone: number, paths: readonly string[], held?: (path: string) => boolean): void {
    let set = this.#pending.get(clone);
    if (!set) this.#pending.set(clone, set = new Map());
    for (const p of paths) set.set(p.replace(/\/+$/, ""), held && (() => held(p)));
  }

  /**
   * A push of clone `clone` ended (succeeded): each mark it settled is
   * done; one it left (`left`: kept dirty, or a conflict, at the path or
   * under it) stays, and so does one the clone still holds, named in the
   * result or not.
   */
  pushed(clone: number, left: readonly string[]): void {
    const set = this.#pending.get(clone);
    if (!set) return;
    for (const [p, held] of [...set]) {
      if (left.some((l) => l === p || l.startsWith(`${p}/`)) || held?.()) continue;
      set.delete(p);
    }
  }

  /**
   * A second process over clone `clone`'s cache ended with its user's marks
   * of `paths` left (its push kept them, a conflict there): each is the
   * user's while `stands` says its mark is still in the journal, whichever
   * of the clone's processes pushes it.
   */
  leftBehind(clone: number, paths: readonly string[], stands: (path: string) => boolean): void {
    for (const p of paths) this.#left.set(`${clone}\0${p}`, () => stands(p));
  }

  /** Clone `clone`'s user removed its copy at `path`. */
  removed(clone: number, path: string): void {
    this.#removed.add(`${clone}\0${path}`);
  }

  /**
   * Why clone `clone` deleting `key` (not its own uncommitted write) breaks
   * I23; undefined when a mark of its user's names it (or a directory above
   * it) and is not settled yet, or when its user never removed a copy there.
   */
  check(clone: number, key: string): string | undefined {
    if (!inSharedFiles(key) || !this.#removed.has(`${clone}\0${key}`)) return undefined;
    const pending = this.#pending.get(clone);
    for (
      let n: string | undefined = key;
      n;
      n = n.includes("/") ? n.slice(0, n.lastIndexOf("/")) : undefined
    ) {
      if (pending?.has(n) || this.#left.get(`${clone}\0${n}`)?.()) return undefined;
    }
    return `c${clone} deleted ${key} on the datastore, though its user removed the copy here by hand and no mark of the user's names it or a directory above it (a walk never deletes on the datastore)`;
  }
}
