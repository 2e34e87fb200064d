/**
 * Which entries an old client's pull wrote back naming a version a clone's
 * deletion removed (see `GroundTruth.oldPullUndeleted` and
 * `WorldStores.undone`): the turns of the puts and deletions of each path's
 * versions, and the conditional updates that replaced one version by
 * another.
 *
 * On a store whose versions are the bytes' ETags, one version can be
 * written, deleted and written again: a deletion counts only for the
 * object it removed, one written before it, not a later write of the same
 * bytes (a writer's own, which the index may name and the store must
 * hold).
 *
 * So too the entries such a write-back rolled back to the version it had
 * read, over a clone's commit whose file that clone's user then deleted by
 * hand, never marking the deletion ({@link rolledBackDeletedHere}).
 *
 * @module
 */

/** The puts, updates and deletions of the paths' versions, in turns. */
export class VersionTurns {
  #turn = 0;
  /** The turn of the last put of each version, by `<path>\0<version>`. */
  readonly #put = new Map<string, number>();
  /** The turn of the last deletion of each version by each clone's present cache, by `<clone>\0<path>\0<version>`. */
  readonly #deleted = new Map<string, number>();
  /** Per path, each version a conditional update wrote to the version it replaced. */
  readonly #replacedBy = new Map<string, Map<string, string>>();

  /** `version` of `path` was written; `replaced`: by a conditional update of that version. */
  put(path: string, version: string, replaced?: string): void {
    this.#put.set(`${path}\0${version}`, ++this.#turn);
    if (replaced === undefined) return;
    const byVersion = this.#replacedBy.get(path) ?? new Map<string, string>();
    this.#replacedBy.set(path, byVersion.set(version, replaced));
  }

  /** Clone `clone`'s present cache deleted `version` of `path`. */
  deleted(clone: number, path: string, version: string): void {
    this.#deleted.set(`${clone}\0${path}\0${version}`, ++this.#turn);
  }

  /**
   * Whether one of `deletions` (clone → version, those of the clones'
   * present caches at `path`) removed `named` of `path`, or a version that
   * replaced it by conditional updates, after that version's last put.
   */
  undone(
    path: string,
    named: string,
    deletions: Iterable<readonly [number, Iterable<string>]>,
  ): boolean {
    for (const [clone, versions] of deletions) {
      for (const v of versions) {
        if (!this.replaces(path, v, named)) continue;
        const at = this.#deleted.get(`${clone}\0${path}\0${v}`) ?? 0;
        if (at > (this.#put.get(`${path}\0${v}`) ?? 0)) return true;
      }
    }
    return false;
  }

  /** `newer` is `older` at `path`, or replaced it by a chain of conditional updates. */
  replaces(path: string, newer: string, older: string): boolean {
    const seen = new Set<string>();
    for (
      let v: string | undefined = newer;
      v !== undefined && !seen.has(v);
      v = this.#replacedBy.get(path)?.get(v)
    ) {
      if (v === older) return true;
      seen.add(v);
    }
    return false;
  }
}

/**
 * The paths whose index entry (in `indexed`) an old client's pull's
 * write-back rolled back (`rolledBack`: per path, the versions it took out
 * of the index) while the store still holds one of those versions (`head`;
 * a failed look spares nothing), other than the one named, and a clone
 * holds its record synced at that version with its file deleted there by
 * hand, the deletion never marked, and its pull told of it with
 * `index_entry_dropped` (`deletedHere`). README's old-client limits leave
 * it to that clone's user: a push of its name deletes it, a pull with
 * `restoreDeleted` takes it back for the next push to name again. Until
 * then the index names the older version, gone, and readers skip the path
 * as not yet committed (seed 4104).
 */
export async function rolledBackDeletedHere(
  rolledBack: ReadonlyMap<string, ReadonlySet<string>>,
  indexed: Readonly<Record<string, { readonly v: string }>>,
  head: (path: string) => Promise<{ readonly version: string } | null>,
  deletedHere: (path: string, version: string) => boolean,
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const [path, versions] of rolledBack) {
    const e = indexed[path];
    if (!e || versions.has(e.v)) continue;
    const now = await head(path).catch(() => null);
    if (!now || now.version === e.v || !versions.has(now.version)) continue;
    if (deletedHere(path, now.version)) out.add(path);
  }
  return out;
}
