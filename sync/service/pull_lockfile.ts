/**
 * The managed lockfile as a pull takes it: Sluice publishes it only through
 * its transaction, which merges each writer's change into the datastore's
 * copy; an existing client writes its whole local copy instead, and a copy
 * older than a peer's transaction drops that peer's entries. A pull that
 * replaces this cache's copy with one lacking entries the copy here listed,
 * written outside the transaction (its object carries no
 * {@link LOCKFILE_TXN_METADATA}), says which, with each entry, so that its
 * user can add back those that should stay (`lockfile_entries_dropped`).
 * A removal by a transaction (`sluice lockfile remove`) is no news.
 *
 * @module
 */
import { sha256Hex } from "../hash.ts";
import type { SluiceEmitter } from "../events.ts";
import type { ObjectStore } from "../ports.ts";
import {
  isManagedLockfilePath,
  type LockfileEntries,
  parseLockfile,
} from "../locks/lockfile_change.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { SyncState } from "./state.ts";

/** The object metadata the lockfile transaction writes its copy with. */
export const LOCKFILE_TXN_METADATA = "sluice-lockfile";

/** Lockfile copies this cache held, read before a pull replaces them, and the check after. */
export interface LockfileWatch {
  /** Reads the copy here of `path` (a managed lockfile this cache synced and did not change). */
  before(path: string): Promise<void>;
  /** True when {@link before} read a copy of `path` (only then has {@link after} anything to do). */
  watches(path: string): boolean;
  /** After `path` was fetched: warns of the entries the new copy dropped, if a plain write did. */
  after(path: string): Promise<void>;
}

/**
 * The watch of one pull.
 *
 * @example
 * ```ts ignore
 * const watch = lockfileWatch({ store, cache, state, events });
 * await watch.before("config/upstream_extensions.json");
 * // ... the fetch ...
 * await watch.after("config/upstream_extensions.json");
 * ```
 */
export function lockfileWatch(deps: {
  readonly store: ObjectStore;
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly events: SluiceEmitter;
  readonly signal?: AbortSignal;
}): LockfileWatch {
  const held = new Map<string, LockfileEntries>();
  const entriesOf = (body: Uint8Array | null): LockfileEntries | undefined => {
    if (!body) return undefined;
    try {
      return parseLockfile(body);
    } catch {
      return undefined;
    }
  };
  return {
    async before(path) {
      if (!isManagedLockfilePath(path)) return;
      const synced = deps.state.synced(path);
      if (!synced) return;
      const body = await deps.cache.read(path).catch(() => null);
      if (!body || (await sha256Hex(body)) !== synced.hash) return;
      const entries = entriesOf(body);
      if (entries) held.set(path, entries);
    },
    watches: (path) => held.has(path),
    async after(path) {
      const was = held.get(path);
      if (!was) return;
      held.delete(path);
      const now = entriesOf(await deps.cache.read(path).catch(() => null));
      if (!now) return;
      const warning = droppedEntriesWarning(path, was, now);
      if (!warning) return;
      const info = await deps.store.head(path, { signal: deps.signal }).catch(() => null);
      if (!info || info.metadata?.[LOCKFILE_TXN_METADATA] !== undefined) return;
      deps.events.emit("warning", warning);
    },
  };
}

/**
 * The `lockfile_entries_dropped` warning for the managed lockfile `path`
 * whose copy here listed `was` and whose datastore copy, written outside
 * the transaction, lists `now`: each entry it lacks, and each it lists
 * with another value, named with this cache's value. Null when none.
 * `keep`: entries the change under way sets or removes itself (no news).
 *
 * @example
 * ```ts
 * import { droppedEntriesWarning } from "./pull_lockfile.ts";
 * droppedEntriesWarning("config/upstream_extensions.json", { "@x/a": 1 }, {})?.code; // "lockfile_entries_dropped"
 * ```
 */
export function droppedEntriesWarning(
  path: string,
  was: LockfileEntries,
  now: LockfileEntries,
  keep: ReadonlySet<string> = new Set(),
): { code: "lockfile_entries_dropped"; path: string; message: string } | null {
  const dropped = Object.keys(was).filter((k) => !keep.has(k) && !Object.hasOwn(now, k));
  const changed = Object.keys(was).filter((k) =>
    !keep.has(k) && Object.hasOwn(now, k) && JSON.stringify(now[k]) !== JSON.stringify(was[k])
  );
  if (dropped.length === 0 && changed.length === 0) return null;
  const listed = (keys: string[]) => keys.map((k) => `${k} ${JSON.stringify(was[k])}`).join("; ");
  const parts = [
    dropped.length ? `no longer lists ${listed(dropped)}` : "",
    changed.length ? `lists other values than this cache's copy for ${listed(changed)}` : "",
  ].filter((x) => x);
  return {
    code: "lockfile_entries_dropped",
    path,
    message: `The datastore's ${path} ${
      parts.join(", and ")
    } (this cache's values shown): it was written outside Sluice's lockfile transaction (an existing client's write of its own copy, which may predate them), so they may have been dropped or set back by mistake. This cache now holds the datastore's copy. Add back each that should stay as shown with \`sluice lockfile add <name> '<entry JSON>'\`.`,
  };
}
