/**
 * A record of the path that another process sharing the cache saved while
 * a `--theirs` (see `resolve_theirs.ts`) ran, after it cleared its own:
 * taken in, and naming the copy the resolution moved aside from the path
 * where it is now.
 *
 * @module
 */
import type { LocalSide } from "./conflicts.ts";
import type { ResolveDeps } from "./resolve.ts";

/**
 * True when, taken in again, the records hold one of `path` (another
 * process's, saved since the resolution last looked): the copy this
 * resolution moved from the path (`here`, the first set aside) is named
 * there (see {@link namedWhereMoved}).
 */
export async function recordedSince(
  deps: ResolveDeps,
  path: string,
  here: { hash: string; size: number } | null,
  setAside: readonly string[],
): Promise<boolean> {
  await deps.state.conflicts.takeIn();
  if (!deps.state.conflicts.has(path)) return false;
  if (here && setAside.length > 0) {
    await namedWhereMoved(deps, path, { location: setAside[0], ...here });
  }
  return true;
}

/**
 * The open record of `path` (another process's, kept by the clear or saved
 * while the pull ran) naming the copy in place as yours, that copy moved
 * aside to `moved` since: names it there, durably. Nothing when the record
 * names another copy, or the copy at the path is the one it names.
 */
export async function namedWhereMoved(
  deps: ResolveDeps,
  path: string,
  moved: LocalSide,
): Promise<void> {
  const open = deps.state.conflicts.get(path);
  if (open?.mine?.location !== path) return;
  if (deps.cache.exists(path)) {
    // Theirs put at the path since (by the resolution's pull): the record
    // names the copy moved aside when it names its bytes, not these.
    const at = await deps.cache.hashFile(path).catch(() => null);
    if (open.mine.hash !== moved.hash || at?.hash === moved.hash) return;
  }
  // Saved only over that record as it stands: one the other process
  // resolved or replaced since stays so (a replacement is named again).
  if (!(await deps.state.conflicts.recordOver(open, { ...open, mine: moved }))) {
    await namedWhereMoved(deps, path, moved);
  }
}
