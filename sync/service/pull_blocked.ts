/**
 * The paths a pull left out because a file or directory in the cache is in
 * their way: kept in the blocked record (a push holds them back), and told
 * of, saying whether the datastore holds both shapes of the name.
 *
 * @module
 */
import type { PathBlockedError } from "../errors.ts";
import type { SluiceEmitter } from "../events.ts";
import { directoriesOf } from "../paths.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import type { PullDeps } from "./pull.ts";
import { inTheWay, under } from "./pull_paths.ts";
import { UNCOMMITTED_WARNINGS } from "./pull_result.ts";
import { blockedWarning } from "./pull_warnings.ts";

/** What {@link keepBlocked} reads and writes. */
export interface BlockedInPull {
  readonly state: Pick<PullDeps["state"], "blocked">;
  readonly cache: Pick<PullDeps["cache"], "exists" | "holdsDirectory">;
  readonly events: Pick<SluiceEmitter, "emit">;
  /** The index's entries this pull read. */
  readonly entries: Record<string, IndexEntry>;
  readonly prefixes: readonly string[] | undefined;
  /** The paths this pull found blocked, with the error of each. */
  readonly blockedBy: ReadonlyMap<string, PathBlockedError>;
  /** The result's blocked paths: those of `blockedBy` are added. */
  readonly blocked: string[];
  /** The paths this pull skipped as uncommitted. */
  readonly uncommitted: readonly string[];
}

/**
 * Adds the paths of `blockedBy` to `blocked`, keeps them in the blocked
 * record (with those recorded before, or left out as uncommitted, that
 * something here still stands in the way of), then warns of them.
 */
export async function keepBlocked(
  { state, cache, events, entries, prefixes, blockedBy, blocked, uncommitted }: BlockedInPull,
): Promise<void> {
  const told = blocked.length;
  for (const path of blockedBy.keys()) blocked.push(path);
  // Kept before it is told of: a push must not publish this cache's own
  // shape in the way beside them (see `blocked_record.ts`).
  // Also kept: a path recorded before, or one this pull left out for another
  // reason (another writer's upload in flight there), that the index still
  // names while something here still stands in its way. The pull did not
  // try to place it, so it could not find it blocked, but a push must hold
  // back all the same.
  const recheck = new Set<string>([
    ...state.blocked.paths().filter((p) => under(p, prefixes)),
    ...uncommitted,
  ]);
  for (const p of blocked) recheck.delete(p);
  const still = [...recheck].filter((p) => Object.hasOwn(entries, p) && inTheWay(cache, p));
  const both = blocked.length + still.length > 0 ? bothShapes(entries) : () => false;
  await state.blocked.update([...blocked, ...still].filter((p) => !both(p)), prefixes);
  let n = told;
  for (const [path, err] of blockedBy) {
    if (++n > UNCOMMITTED_WARNINGS) break;
    events.emit("warning", blockedWarning(path, err, both(path), inTheWay(cache, path)));
  }
}

/**
 * A test of whether `entries` name another shape of a path beside it: a
 * file at a directory above it, or files under it (every directory the
 * entries lie in is gathered once).
 */
export function bothShapes(entries: Record<string, IndexEntry>): (path: string) => boolean {
  let dirs: Set<string> | undefined;
  return (path) => {
    for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
      if (entries[path.slice(0, i)] !== undefined) return true;
    }
    return (dirs ??= directoriesOf(Object.keys(entries))).has(path);
  };
}
