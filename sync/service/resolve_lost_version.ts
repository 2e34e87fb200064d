/**
 * The refusal of a `--mine` or `--merged` whose push lost the path's data
 * version to another writer's object (`version_exists`): a data version is
 * never written over, so the version's files here were set aside whole and
 * the conflict settled (theirs stands). The push's own message speaks of
 * "the local copy" for every file set aside; said of a resolution, it tells
 * the copy the resolution would publish, the version's other files written
 * or changed here, and those this cache had synced from the datastore (not
 * changed here) apart, says the conflict is closed and what became of the
 * `latest` marker here, and names the pull that gets the datastore's version.
 *
 * @module
 */
import type { VersionConflictError } from "../errors.ts";
import type { FileIdentity } from "../transfer/file_identity.ts";
import { setAsideSource } from "../transfer/cache_state.ts";
import type { Resolution } from "./conflicts.ts";
import type { ResolveDeps } from "./resolve.ts";

/** What the cache held around a resolution's path before its push (see {@link beforeLosing}). */
export interface BeforeLosing {
  readonly path: string;
  /** The path's directory: its data version's, when the path is one's file. */
  readonly dir: string;
  /** Files under `dir` synced here and not marked changed, by the hash synced. */
  readonly synced: ReadonlyMap<string, string>;
  /** Paths under `dir` in conflict. */
  readonly conflicts: readonly string[];
  /** The `latest` marker beside the version directory, and what was there. */
  readonly marker: string;
  readonly markerWas: FileIdentity | undefined;
  /** What it named then (a marker of a few bytes), if read. */
  readonly markerNamed?: string;
}

/**
 * What the refusal needs to say of the files around `path`, read before the
 * resolution's push (which forgets the records of a version it sets aside):
 * from the state's records alone, nothing read from the files but the
 * `latest` marker beside the path's directory (a few bytes).
 */
export async function beforeLosing(deps: ResolveDeps, path: string): Promise<BeforeLosing> {
  const { cache, state } = deps;
  const dir = parentOf(path);
  const under = `${dir}/`;
  const dirty = new Set(state.dirtyPaths());
  const synced = new Map<string, string>();
  for (const p of state.syncedPaths()) {
    if (!p.startsWith(under) || p === path || dirty.has(p)) continue;
    const hash = state.synced(p)?.hash;
    if (hash) synced.set(p, hash);
  }
  const conflicts = state.conflicts.list().map((c) => c.path).filter((p) => p.startsWith(under));
  const marker = `${parentOf(dir)}/latest`;
  const markerWas = cache.identity(marker);
  const bytes = markerWas?.kind === "file" && markerWas.size <= 64
    ? await cache.read(marker).catch(() => null)
    : null;
  const markerNamed = bytes === null ? undefined : new TextDecoder().decode(bytes).trim();
  return { path, dir, synced, conflicts, marker, markerWas, markerNamed };
}

/**
 * `lost`, the push's `version_exists`, said of the resolution `resolution`
 * of `before.path` (see the module); the same error, its message replaced.
 * Left as it is when the datastore's object is not another writer's (a data
 * version this cache uploaded before: the push's message says so).
 */
export async function lostVersionRefusal(
  deps: ResolveDeps,
  resolution: Resolution,
  before: BeforeLosing,
  lost: VersionConflictError,
): Promise<VersionConflictError> {
  if (lost.ownEarlier !== false) return lost;
  const { cache, state } = deps;
  const { path, dir } = before;
  let yours: string | undefined;
  const changed: string[] = [];
  const fromStore: string[] = [];
  for (const [i, location] of lost.setAsideTo.entries()) {
    const source = setAsideSource(location);
    const shown = lost.setAsideShown[i] ?? location;
    if (source === path) {
      yours = shown;
      continue;
    }
    const synced = before.synced.get(source);
    const at = synced ? await cache.hashFile(location).catch(() => null) : null;
    (at !== null && at.hash === synced ? fromStore : changed).push(`${source} in ${shown}`);
  }
  const parts = [
    ...(yours
      ? [`your ${resolution === "merged" ? "merge" : "copy"} of ${path}, in ${yours}`]
      : []),
    ...(changed.length
      ? [`the version's other file(s) as written or changed here: ${changed.join(", ")}`]
      : []),
    ...(fromStore.length
      ? [
        `the file(s) this cache had synced from the datastore, unchanged here (the bytes it synced, not yours): ${
          fromStore.join(", ")
        }`,
      ]
      : []),
  ];
  const closed = before.conflicts.filter((p) => p !== path && !state.conflicts.get(p));
  const was = before.markerWas;
  const now = cache.identity(before.marker);
  const named = before.markerNamed;
  const marker = `The \`latest\` marker here (${before.marker}) ${
    named === dir.slice(dir.lastIndexOf("/") + 1)
      ? "named this version, and was"
      : named
      ? `named version ${named}, no longer here, and was`
      : "was"
  }`;
  let markerSaid = "";
  if (was?.kind === "file" && now === null) {
    markerSaid = ` ${marker} removed; the next pull brings the datastore's.`;
  } else if (was?.kind === "file" && now && JSON.stringify(now) !== JSON.stringify(was)) {
    const bytes = await cache.read(before.marker).catch(() => null);
    const names = bytes === null ? "" : new TextDecoder().decode(bytes).trim();
    markerSaid = ` ${marker} reset${
      names ? ` to name version ${names}` : ""
    }, the highest left here.`;
  }
  const holder = lost.unindexed
    ? "another client's upload, named by no index yet (its push not committed, or stopped before its commit), holds it"
    : "another writer published it first";
  lost.message =
    `resolve --${resolution} of ${path} was refused (version_exists): data version ${dir} already exists on the datastore with other bytes (${holder}), and a data version is never written over, so nothing of it was pushed. The version's files here were set aside (moved, not deleted): ${
      parts.length ? parts.join("; ") : "none"
    } (see \`sluice status\`). The conflict of ${path} is closed${
      closed.length ? `, as are those of ${closed.join(", ")}` : ""
    }: the datastore's version stands.${markerSaid} ${
      lost.unindexed
        ? "A pull (`sluice pull`) brings the datastore's version once an index names it (its writer's next push)"
        : "Pull (`sluice pull`) to get the datastore's version"
    }; to publish your bytes, run the method or workflow again, which writes a new version.`;
  return lost;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}
