/**
 * What gates may do to the cache and to its sync state (the dirty set, the
 * synced records, the records of uploads and conflicts): the two ports a
 * push context carries (`PushContext` in `context.ts`, which re-exports
 * these types). Types only. Paths are cache-relative.
 *
 * @module
 */

/** Cache operations gates may use. Paths are cache-relative. */
export interface CacheAccess {
  /** Absolute cache directory. */
  readonly dir: string;
  /** Reads a cache file; null when absent. */
  read(path: string): Promise<Uint8Array | null>;
  /** Writes a cache file atomically. */
  write(path: string, body: Uint8Array): Promise<void>;
  /** Removes a file or directory tree; no error when absent. */
  remove(path: string): Promise<void>;
  /** Lists files under a directory, recursively, cache-relative; [] when absent. */
  listFiles(dir: string): Promise<string[]>;
  /**
   * Makes an empty directory at `path` (and its parents) when nothing is
   * there; true when nothing was there and a directory is now (false when
   * something already was, or a link or a file is on the way).
   */
  keepDirectory(path: string): boolean;
  /**
   * Moves a path into the set-aside area; returns where it went
   * (cache-relative). The reason is recorded beside the copy, with `code`
   * when given (the error code of what set it aside, e.g. `version_exists`),
   * `conflict` (a pull's conflict record of it) and `lostTo` (the
   * datastore's version a lost data version's copy lost to).
   */
  setAside(
    path: string,
    reason: string,
    code?: string,
    conflict?: Record<string, unknown>,
    lostTo?: string,
  ): Promise<string>;
  /**
   * Moves `path` (nothing when absent) out of the cache to `name` in the
   * internal state dir, which exists afterwards either way (an empty
   * directory when there was nothing to move): one rename, so a crash leaves
   * the path either in place or moved, and `hasState(name)` tells which.
   */
  moveToState(path: string, name: string): Promise<void>;
  /** True when `name` exists in the internal state dir. */
  hasState(name: string): boolean;
  /** Removes `name` (a file or a directory tree) from the internal state dir; no error when absent. */
  removeState(name: string): Promise<void>;
  /** Reads a JSON file from the internal state dir; null when absent. */
  readState<T>(name: string): Promise<T | null>;
  /** Reads a file from the internal state dir as it is; null when absent. */
  readStateBytes(name: string): Promise<Uint8Array | null>;
  /**
   * Writes a JSON file into the internal state dir atomically and durably
   * (with `durable: false`, not synced to disk: for a record whose loss in a
   * crash costs only work done again).
   */
  writeState(name: string, value: unknown, options?: { durable?: boolean }): Promise<void>;
  /** Writes `body` as it is to `name` in the internal state dir, atomically and durably. */
  writeStateBytes(name: string, body: Uint8Array): Promise<void>;
  /**
   * The internal state dir (absolute): `<dir>/.sluice` unless the cache was
   * told otherwise. Records name its files `.sluice/<name>` wherever it is.
   */
  readonly stateDir: string;
}

/** Dirty-set and manifest operations gates may use. */
export interface StateAccess {
  /** Paths currently dirty. */
  dirtyPaths(): string[];
  /**
   * Takes the file lock `name` in the state directory, shared by every
   * process over the cache, looking again after each `wait()` while another
   * holds it; resolves to what lets it go (the process's exit lets go too).
   * Optional: a state without it leaves its callers unlocked.
   */
  holdLock?(name: string, wait: () => Promise<void>): Promise<() => void>;
  /**
   * Drops the record of uploads this cache made at `paths` whose commit
   * never came, once they are settled (deleted, or another writer's commit
   * names them). Optional: a state without the record has nothing to drop.
   */
  settleAttempted?(paths: readonly string[]): Promise<void>;
  /**
   * True when an earlier push of this cache wrote `path` and no commit of
   * it followed (see `settleAttempted`). Optional: a state without the
   * record tells none.
   */
  attempted?(path: string): boolean;
  /**
   * Records, durably, paths where the store may hold an upload of this
   * cache's that no commit names (see `SyncState.markAttempted`), so that a
   * later push covering them checks them. Optional: a state without the
   * record leaves that check to the dirty marks.
   */
  markAttempted?(paths: readonly string[]): Promise<void>;
  /** True when a bulk (walk) mark is pending. */
  bulkPending(): boolean;
  /** Marks a path dirty, durably. */
  markDirty(path: string): Promise<void>;
  /** Removes paths (and everything under a path ending in `/`) from the dirty set, durably. */
  clean(paths: readonly string[]): Promise<void>;
  /** The synced manifest entry of a path (`own`: a data version file this cache's push created). */
  synced(
    path: string,
  ): { hash: string; version: string; size: number; republish?: boolean; own?: string } | undefined;
  /**
   * Every path the synced manifest records. Optional: a state without it
   * tells its entries only by path (`synced`).
   */
  syncedPaths?(): string[];
  /** Forgets manifest entries (e.g. for erased files), durably. */
  forget(paths: readonly string[]): Promise<void>;
  /** Records a path as synced at a remote version. */
  recordSynced(path: string, entry: { hash: string; version: string; size: number }): Promise<void>;
  /** Records a path as synced without persisting (the push's commit persists the manifest). */
  setSynced(path: string, entry: { hash: string; version: string; size: number } | undefined): void;
  /**
   * The cache's unresolved conflicts (see `service/conflicts.ts`): listed,
   * and cleared where a gate settled one. Optional: a state without the
   * records has none.
   */
  readonly conflicts?: {
    list(): readonly ConflictView[];
    clear(paths: readonly string[]): Promise<void>;
  };
}

/** What a gate reads of an unresolved conflict: its path and where this cache's copy is. */
export interface ConflictView {
  /** Cache-relative path. */
  readonly path: string;
  /** This cache's copy: the path itself, or a set-aside location; null for a local deletion. */
  readonly mine: { readonly location: string } | null;
  /** Copies of the path set aside by earlier conflicts of it, if any. */
  readonly keptAside?: readonly { readonly location: string }[];
}

/** The dirty set as a push found it when it started (path → mark sequence; the pending bulk mark's sequence or -1). */
export interface DirtySnapshot {
  readonly paths: ReadonlyMap<string, number>;
  readonly bulkSeq: number;
}
