/**
 * Part of I6: a local copy a pull set aside (a copy the clone never synced,
 * differing from the datastore's) is kept in `.sluice/set-aside/`, and the
 * user learns of it from the conflict record that names it, which
 * `sluice status` shows. A record dropped while its copy stays there hides
 * the change as surely as a deletion would. So, after the final sync, every
 * such copy still in a clone's set-aside area is named by one of its open
 * conflict records (as `mine` or among `keptAside`), unless the clone
 * resolved that path since the copy was set aside (the resolution reports
 * the copies it leaves: the user chose).
 *
 * @module
 */
import { type ConflictRecord, PULL_SET_ASIDE_REASON } from "../../sync/service/conflicts.ts";
import type { Violation } from "./truth_records.ts";
import { findStateDir as stateDirOf, statePath } from "../../sync/transfer/cache.ts";
import { parseRecords } from "../../sync/service/conflict_file.ts";

const AREA = ".sluice/set-aside";

/** A copy in a clone's set-aside area: its cache-relative location, the path it came from, and why. */
interface SetAsideCopy {
  readonly location: string;
  readonly path: string;
  readonly reason: string;
}

/** The copies in the set-aside area of the cache at `cacheDir` (those of `path` only, when given). */
async function copiesIn(cacheDir: string, path?: string): Promise<SetAsideCopy[]> {
  const out: SetAsideCopy[] = [];
  let dirs: Deno.DirEntry[];
  try {
    dirs = [...Deno.readDirSync(statePath(stateDirOf(cacheDir), AREA))];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw e;
  }
  for (const d of dirs) {
    if (!d.isDirectory) continue;
    let why: { path?: unknown; reason?: unknown };
    try {
      why = JSON.parse(
        await Deno.readTextFile(statePath(stateDirOf(cacheDir), `${AREA}/${d.name}/REASON.json`)),
      );
    } catch {
      continue; // a set-aside cut off before its reason was written
    }
    if (typeof why.path !== "string" || (path !== undefined && why.path !== path)) continue;
    const location = `${AREA}/${d.name}/${why.path}`;
    try {
      await Deno.lstat(statePath(stateDirOf(cacheDir), location));
    } catch {
      continue; // moved back, or never there
    }
    out.push({ location, path: why.path, reason: String(why.reason) });
  }
  return out;
}

/**
 * Which set-aside copies the clones' resolutions released, and the check.
 *
 * @example
 * ```ts ignore
 * const asides = new SetAsideWatch();
 * await asides.resolving(0, cacheDir, "notes/a.md"); // before the resolution
 * const violations = await asides.check(0, cacheDir, svc.conflicts(), -1);
 * ```
 */
export class SetAsideWatch {
  /** `<clone>\0<location>` of copies present when their clone resolved their path. */
  readonly #released = new Set<string>();

  /** Clone `clone` is about to resolve `path`: the copies of it set aside so far are its to leave. */
  async resolving(clone: number, cacheDir: string, path: string): Promise<void> {
    for (const c of await copiesIn(cacheDir, path)) this.#released.add(`${clone}\0${c.location}`);
  }

  /**
   * Clone `to`'s cache was replaced by a copy of clone `from`'s (a `copy`
   * move): the copies `from`'s resolutions released are released in the
   * copy too, and those of `to`'s old cache are gone with it.
   */
  copied(to: number, from: number): void {
    for (const k of [...this.#released]) {
      if (k.startsWith(`${to}\0`)) this.#released.delete(k);
    }
    for (const k of [...this.#released]) {
      if (k.startsWith(`${from}\0`)) this.#released.add(`${to}\0${k.slice(`${from}\0`.length)}`);
    }
  }

  /** The violations: copies a pull set aside that no open record of clone `clone` names. */
  async check(
    clone: number,
    cacheDir: string,
    records: readonly ConflictRecord[],
    afterOp: number,
  ): Promise<Violation[]> {
    const named = new Set<string>();
    for (const r of records) {
      if (r.mine) named.add(r.mine.location);
      for (const k of r.keptAside ?? []) named.add(k.location);
    }
    const out: Violation[] = [];
    for (const c of await copiesIn(cacheDir)) {
      if (c.reason !== PULL_SET_ASIDE_REASON) continue;
      if (named.has(c.location) || this.#released.has(`${clone}\0${c.location}`)) continue;
      out.push({
        invariant: "I6",
        message:
          `c${clone}'s copy of ${c.path} that a pull set aside (${c.location}) is named by no open conflict record: \`sluice status\` no longer shows it, and c${clone} did not resolve ${c.path}`,
        afterOp,
      });
    }
    return out;
  }
}

/**
 * The open conflict records of the cache at `cacheDir` as its file holds
 * them (none when there is none or it cannot be read): what another
 * process over the cache takes in, before any load names a stray copy
 * again.
 */
export async function recordsOnDisk(cacheDir: string): Promise<ConflictRecord[]> {
  try {
    const file = statePath(
      stateDirOf(cacheDir),
      `${AREA.slice(0, AREA.lastIndexOf("/"))}/conflicts.json`,
    );
    return [...parseRecords(await Deno.readTextFile(file)).values()];
  } catch {
    return [];
  }
}
