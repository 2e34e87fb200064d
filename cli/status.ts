/**
 * The parts of `sluice status` beyond the dirty plan: local copies set aside
 * after version conflicts, and pending (unpublished) managed-lockfile
 * changes.
 *
 * @module
 */
import { findStateDir, shownStatePath, STATE_DIR, statePath } from "../sync/transfer/cache.ts";
import { readSetAsideReason, SET_ASIDE_REASON_FILE } from "../sync/transfer/cache_state.ts";
import {
  type ConflictRecord,
  describeVersion,
  mergedAfterDeletion,
} from "../sync/service/conflicts.ts";
import type { CacheAccess } from "../sync/context.ts";
import { isManagedLockfilePath, readPendingLockfileDeltas } from "../sync/locks/lockfile_txn.ts";
import { describeLockfileChange, type LockfileChange } from "../sync/locks/lockfile_change.ts";
import { SluiceError } from "../sync/errors.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { headIndex } from "../sync/transfer/remote_index.ts";
import { markerOfVersionFile } from "../sync/transfer/bucket_layout.ts";
import type { RetryPolicy } from "../sync/retry.ts";
import { shellWord } from "../sync/shell_word.ts";

/** A local copy moved aside because another writer published the same data version first. */
export interface SetAsideEntry {
  /** The cache path the copy came from. */
  readonly path: string;
  /** Where it is now: cache-relative (`.sluice/set-aside/…`), or absolute when the state is outside the cache. */
  readonly location: string;
  /** Why it was set aside. */
  readonly reason: string;
  /** The error code of what set it aside (`version_exists` for a data version clash), when recorded. */
  readonly code?: string;
  /** When (ISO time), when recorded. */
  readonly at?: string;
  /**
   * True for a copy kept from a conflict a resolution (`sluice resolve`)
   * resolved since, which no open conflict names: it is the user's to keep
   * or delete. Absent otherwise.
   */
  readonly resolved?: boolean;
  /**
   * For a {@link resolved} copy: whether the file at `path` holds the same
   * bytes now (true), or other bytes or none (false). Absent when not
   * compared.
   */
  readonly sameAsPath?: boolean;
  /** The set-aside directory that holds the copy (and its `REASON.json`), absolute: delete it to delete the copy. */
  readonly dir?: string;
}

/** A managed-lockfile change recorded in this cache but not yet published. */
export interface PendingLockfileEntry {
  /** The lockfile path (`[<ns>/]config/upstream_extensions.json`). */
  readonly path: string;
  /** Entry names set by the pending change. */
  readonly set: readonly string[];
  /** Entry names removed by the pending change. */
  readonly remove: readonly string[];
  /** One-line description. */
  readonly summary: string;
}

/** Directory of set-aside copies, cache-relative. */
export const SET_ASIDE_DIR = `${STATE_DIR}/set-aside`;

async function filesUnder(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(rel ? `${dir}/${rel}` : dir)) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...await filesUnder(dir, p));
    else if (e.isFile) out.push(p);
  }
  return out;
}

/** Where the state location `location` (`.sluice/…`) of `cache` is, as `shownStatePath` shows it. */
export function shownLocation(
  cache: { readonly dir: string; readonly stateDir: string },
  location: string,
): string {
  return shownStatePath(cache.dir, cache.stateDir, location);
}

/**
 * A conflict record as the command line shows it: each set-aside location
 * as `shown` gives it (the path itself, a copy in place, as it is).
 */
export function shownRecord(
  rec: ConflictRecord,
  shown: (location: string) => string,
): ConflictRecord {
  const at = (l: string) => (l === rec.path ? l : shown(l));
  return {
    ...rec,
    ...(rec.mine ? { mine: { ...rec.mine, location: at(rec.mine.location) } } : {}),
    ...(rec.keptAside
      ? { keptAside: rec.keptAside.map((k) => ({ ...k, location: at(k.location) })) }
      : {}),
  };
}

/** What {@link listSetAside} may compare a set-aside copy with. */
export interface SetAsideLook {
  /** The set-aside locations (`.sluice/set-aside/…`) the open conflicts name. */
  readonly named?: ReadonlySet<string>;
  /**
   * SHA-256 of a cache path or a set-aside location (`.sluice/set-aside/…`);
   * null when nothing readable is there. Without it, a resolved copy is not
   * compared with its path.
   */
  readonly hashFile?: (path: string) => Promise<{ readonly hash: string } | null>;
}

/**
 * Every set-aside copy in the cache at `cacheDir`, oldest first; `location`
 * as {@link shownLocation} shows it. A copy whose conflict a resolution
 * released (`released` in its `REASON.json`) and that no open conflict of
 * `look.named` names is {@link SetAsideEntry.resolved}, and compared with
 * the file at its path when `look.hashFile` is given.
 *
 * @example
 * ```ts
 * import { listSetAside } from "./status.ts";
 * console.log(await listSetAside(await Deno.makeTempDir())); // []
 * ```
 */
export async function listSetAside(
  cacheDir: string,
  stateDir: string = findStateDir(cacheDir),
  look: SetAsideLook = {},
): Promise<SetAsideEntry[]> {
  const cache = { dir: cacheDir, stateDir };
  const root = statePath(stateDir, SET_ASIDE_DIR);
  const dirs: string[] = [];
  try {
    for await (const e of Deno.readDir(root)) if (e.isDirectory) dirs.push(e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const out: SetAsideEntry[] = [];
  for (const d of dirs.sort()) {
    // Missing or unreadable: the files are listed with an unknown reason.
    const reason = (await readSetAsideReason(stateDir, d)) ?? {};
    const files = (await filesUnder(`${root}/${d}`)).filter((f) => f !== SET_ASIDE_REASON_FILE);
    for (const f of files) {
      const location = `${SET_ASIDE_DIR}/${d}/${f}`;
      const resolved = reason.released === true && !look.named?.has(location);
      out.push({
        path: f,
        location: shownLocation(cache, location),
        reason: reason.reason ?? "reason not recorded",
        ...(reason.code !== undefined ? { code: reason.code } : {}),
        ...(reason.at !== undefined ? { at: new Date(reason.at).toISOString() } : {}),
        ...(resolved ? { resolved } : {}),
        ...(resolved && look.hashFile
          ? { sameAsPath: await sameBytes(look.hashFile, location, f) }
          : {}),
        dir: statePath(stateDir, `${SET_ASIDE_DIR}/${d}`),
      });
    }
  }
  return out;
}

/** True when the copy at `location` and the file at `path` hash alike (a path that cannot be read: false). */
async function sameBytes(
  hashFile: NonNullable<SetAsideLook["hashFile"]>,
  location: string,
  path: string,
): Promise<boolean> {
  const hashOf = (p: string) => hashFile(p).catch(() => null);
  const [copy, here] = await Promise.all([hashOf(location), hashOf(path)]);
  return copy !== null && here !== null && copy.hash === here.hash;
}

/**
 * The `sluice status` line under a set-aside copy kept from a resolved
 * conflict ({@link SetAsideEntry.resolved}): whether its path holds the
 * same bytes now, and how to delete it. Nothing for any other copy.
 *
 * @example
 * ```ts
 * import { describeResolvedCopy } from "./status.ts";
 * describeResolvedCopy({ path: "a.txt", location: "x", reason: "r", resolved: true, sameAsPath: true, dir: "/c/.sluice/set-aside/d" });
 * ```
 */
export function describeResolvedCopy(e: SetAsideEntry): string | undefined {
  if (!e.resolved) return undefined;
  const rm = e.dir ? `: \`rm -r ${shellWord(e.dir)}\`` : "";
  const state = e.sameAsPath === true
    ? `${e.path} holds the same bytes now, so it is safe to delete${rm}`
    : e.sameAsPath === false
    ? `${e.path} holds other bytes now (or nothing): compare them and keep what you need, then delete it${rm}`
    : `compare it with ${e.path} and keep what you need, then delete it${rm}`;
  return `    kept from a conflict resolved since, which no open conflict names: ${state}`;
}

/** Pending managed-lockfile changes of a cache, by lockfile path. */
export async function listPendingLockfile(
  cache: Pick<CacheAccess, "readState">,
): Promise<PendingLockfileEntry[]> {
  const deltas: Record<string, LockfileChange> = await readPendingLockfileDeltas(cache);
  return Object.keys(deltas).sort().map((path) => {
    const d = deltas[path];
    return {
      path,
      set: Object.keys(d.set ?? {}).sort(),
      remove: [...(d.remove ?? [])].sort(),
      summary: describeLockfileChange(d),
    };
  }).filter((e) => e.set.length + e.remove.length > 0);
}

const short = (h: string) => (h ? `${h.slice(0, 12)}…` : "hash unknown");

/**
 * `sluice status` lines for unresolved conflicts: each path with both
 * versions (where this cache's copy is, a set-aside location as `shown`
 * shows it, and the datastore's version), and the command that resolves it.
 *
 * @example
 * ```ts
 * import { describeConflicts } from "./status.ts";
 * console.log(describeConflicts([])); // []
 * ```
 */
export function describeConflicts(
  conflicts: readonly ConflictRecord[],
  shown: (location: string) => string = (l) => l,
  here?: (path: string) => boolean,
  dirHere: (path: string) => boolean = () => false,
  asideHere: (location: string) => boolean = () => true,
  /** A `latest` marker conflict's version numbers, each side's, where read (see {@link markerNumbers}). */
  names: ReadonlyMap<string, { mine?: string; theirs?: string }> = new Map(),
): string[] {
  if (conflicts.length === 0) return [];
  const lines = [`Unresolved conflicts (${conflicts.length}):`];
  for (const c of conflicts) {
    // A copy recorded in place that is gone since (deleted by hand) is said so.
    const place = c.mine?.location !== c.path
      ? undefined
      : dirHere(c.path)
      ? "was in place, replaced here since by a directory of that name (--mine publishes a file, so put your file back for it; --theirs takes theirs and sets the directory aside)"
      : !here || here(c.path)
      ? "in place"
      : "was in place, deleted here since (put it back for --mine, or take theirs)";
    // A set-aside copy deleted by hand since is said gone: --mine is refused for it.
    const gone = place === undefined && c.mine && !asideHere(c.mine.location)
      ? " (gone: deleted since; put your copy back at the path for --mine, or take theirs)"
      : "";
    const named = names.get(c.path);
    const says = (n: string | undefined) => n === undefined ? "" : `, names version ${n}`;
    const mine = c.mine
      ? `${place ?? shown(c.mine.location)}${gone} (${c.mine.size} B, ${short(c.mine.hash)}${
        says(named?.mine)
      })`
      : dirHere(c.path)
      ? "replaced here by a directory of that name (--mine deletes the file on the datastore and publishes the directory's files)"
      : here?.(c.path)
      ? "deleted here, and written here again since (--mine publishes the file now in place; --theirs takes theirs and sets it aside)"
      : `deleted here (${mergedAfterDeletion(c.path)})`;
    const theirs = c.theirs
      ? `${describeVersion(c.theirs.version)} (${c.theirs.size} B, ${short(c.theirs.hash)}${
        says(named?.theirs)
      })`
      : "deleted on the datastore";
    lines.push(`  ${c.path}: ${c.reason}`);
    lines.push(`    mine:   ${mine}`);
    for (const k of c.keptAside ?? []) {
      lines.push(`    set aside earlier: ${shown(k.location)} (${k.size} B, ${short(k.hash)})`);
    }
    lines.push(`    theirs: ${theirs}`);
    if (isManagedLockfilePath(c.path)) {
      lines.push(
        `    (the managed lockfile, published only by its transaction: --mine and --merged are refused; take theirs with \`sluice resolve ${
          shellWord(c.path)
        } --theirs\` (yours is set aside), then apply your entries again with \`sluice lockfile add <name> '<entry JSON>'\`)`,
      );
    } else if (c.theirs && c.mine && markerOfVersionFile(c.path) !== undefined) {
      lines.push(
        `    (a data version, never written over: --mine and --merged end in version_exists, setting yours aside as \`sluice resolve ${
          shellWord(c.path)
        } --theirs\` does, which takes theirs; run the method or workflow again to publish yours as a new version)`,
      );
    }
  }
  lines.push(
    "Resolve each with `sluice resolve <path> --mine` (publish yours over theirs), `--theirs` (take theirs; yours is set aside) or `--merged` (publish the merge now in the cache; `sluice theirs <path>` prints theirs to merge from).",
  );
  return lines;
}

/**
 * The version numbers each side of a `latest` marker conflict names: yours
 * read from your copy, theirs from the datastore's object (when it is still
 * the version the conflict recorded); a side not read, or whose bytes are
 * no version number, is left out.
 */
export async function markerNumbers(
  conflicts: readonly ConflictRecord[],
  readMine: (location: string) => Promise<Uint8Array | null>,
  readTheirs: (path: string, version: string) => Promise<Uint8Array | null>,
): Promise<Map<string, { mine?: string; theirs?: string }>> {
  const out = new Map<string, { mine?: string; theirs?: string }>();
  const number = (b: Uint8Array | null) => {
    const t = b === null ? "" : new TextDecoder().decode(b).trim();
    return /^\d+$/.test(t) ? t : undefined;
  };
  for (const c of conflicts) {
    if (!/(^|\/)data\/.+\/latest$/.test(c.path)) continue;
    const mine = c.mine && c.mine.size <= 32
      ? number(await readMine(c.mine.location).catch(() => null))
      : undefined;
    const theirs = c.theirs && c.theirs.size <= 32
      ? number(await readTheirs(c.path, c.theirs.version).catch(() => null))
      : undefined;
    out.set(c.path, {
      ...(mine === undefined ? {} : { mine }),
      ...(theirs === undefined ? {} : { theirs }),
    });
  }
  return out;
}

/** What `sluice status` learnt from the datastore. */
export interface RemoteState {
  /** False when the datastore could not be reached (the rest of the status is local). */
  readonly reachable: boolean;
  /** The index's layout: `v1`, `v2`, or `none` for a datastore nothing was pushed to yet. */
  readonly index?: "v1" | "v2" | "none";
  /** Why it could not be reached. */
  readonly error?: string;
}

/**
 * Reads the datastore's index token (one or two small requests, as a pull
 * that finds nothing new), so that `sluice status` shows a missing bucket,
 * missing credentials or an invalid prefix as the error it is instead of a
 * clean status. An outage only marks the state unreachable: the local part
 * of the status still stands.
 *
 * @example
 * ```ts
 * import { remoteState } from "./status.ts";
 * import { InMemoryStore } from "../packages/testing/mod.ts";
 * await remoteState(new InMemoryStore(), { retries: 0, minTimeoutMs: 1, maxTimeoutMs: 1 });
 * // { reachable: true, index: "none" }
 * ```
 */
export async function remoteState(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<RemoteState> {
  try {
    const token = await headIndex(store, retry, signal);
    return {
      reachable: true,
      index: token === null ? "none" : token.startsWith("v2:") ? "v2" : "v1",
    };
  } catch (e) {
    if (e instanceof SluiceError && e.code === "unreachable") {
      return { reachable: false, error: e.message };
    }
    throw e;
  }
}
