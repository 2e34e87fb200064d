/**
 * The cache's writer id: a random id created once and kept in the cache's
 * state directory, carried as object metadata on conditional writes, so that
 * a cache can tell its own uncommitted objects (a push cut off between its
 * uploads and its index commit) from a peer's.
 *
 * The id is bound to the state directory it was made in (its device and
 * inode, where the system gives them): a copy of the cache with its state
 * (a backup restored elsewhere, a CI cache restored on several runners) is
 * another writer, and takes an id of its own at its first write; read
 * before that, it has none. Processes sharing one cache share its id.
 *
 * @module
 */
import { randomId } from "../hash.ts";
import type { ObjectStore } from "../ports.ts";

/** Object metadata key: the id of the cache that wrote the object. */
export const WRITER_METADATA = "sluice-writer";

/** The cache's state file holding its writer id. */
const WRITER_STATE = "writer.json";

/** What the writer id needs of a cache: its state files. */
export interface WriterIdState {
  readState<T>(name: string): Promise<T | null>;
  writeState(name: string, value: unknown): Promise<void>;
  /** Writes a state file only where none is; false when one is there (another process's). */
  createState?(name: string, value: unknown): Promise<boolean>;
  /**
   * The state directory's identity (`<dev>:<ino>`), null where the system
   * gives none: an id kept under another one was copied here.
   */
  stateIdentity?(): string | null;
}

/** The writer id as kept: the id, and the identity of the state directory it was made in. */
interface KeptWriter {
  id?: unknown;
  home?: unknown;
}

/** The kept id, unless it was made in another state directory (a copy of the cache). */
function idOf(kept: KeptWriter | null, home: string | null): string | null {
  if (typeof kept?.id !== "string" || kept.id === "") return null;
  // Kept before ids were bound (no home), or where no identity is given: as it is.
  if (typeof kept.home !== "string" || home === null) return kept.id;
  return kept.home === home ? kept.id : null;
}

/**
 * The cache's writer id, or null when it has none yet (it never made a
 * conditional write).
 *
 * @example
 * ```ts
 * import { readWriterId } from "./writer_id.ts";
 * const none = { readState: () => Promise.resolve(null), writeState: () => Promise.resolve() };
 * await readWriterId(none); // null
 * ```
 */
export async function readWriterId(cache: WriterIdState): Promise<string | null> {
  return (await readWriter(cache)).id;
}

/**
 * The cache's writer id (see {@link readWriterId}), and whether it is bound
 * to this state directory: then no copy of the cache carries it, and an
 * object carrying it is this cache's own write.
 *
 * @example
 * ```ts
 * import { readWriter } from "./writer_id.ts";
 * const none = { readState: () => Promise.resolve(null), writeState: () => Promise.resolve() };
 * await readWriter(none); // { id: null, bound: false }
 * ```
 */
export async function readWriter(
  cache: WriterIdState,
): Promise<{ id: string | null; bound: boolean }> {
  const kept = await cache.readState<KeptWriter>(WRITER_STATE);
  const home = cache.stateIdentity?.() ?? null;
  const id = idOf(kept, home);
  return { id, bound: id !== null && home !== null && kept?.home === home };
}

/**
 * The cache's writer id, created (and kept, unless `dryRun`) when it has none.
 *
 * @example
 * ```ts
 * import { ensureWriterId } from "./writer_id.ts";
 * let kept: unknown = null;
 * const cache = {
 *   readState: <T>() => Promise.resolve(kept as T | null),
 *   writeState: (_: string, v: unknown) => Promise.resolve(void (kept = v)),
 * };
 * const id = await ensureWriterId(cache, false);
 * ```
 */
export async function ensureWriterId(cache: WriterIdState, dryRun: boolean): Promise<string> {
  const home = cache.stateIdentity?.() ?? null;
  const found = await cache.readState<KeptWriter>(WRITER_STATE);
  const kept = idOf(found, home);
  if (kept) {
    // Bound to this state directory from now on (kept before ids were).
    if (!dryRun && home !== null && typeof found?.home !== "string") {
      await cache.writeState(WRITER_STATE, { id: kept, home });
    }
    return kept;
  }
  const id = randomId(12);
  if (dryRun) return id;
  const value = home === null ? { id } : { id, home };
  // Two processes sharing a new cache may make one each: the first kept is
  // the cache's, for both (the other's uploads would not be known as its own).
  if (cache.createState && found === null) {
    if (await cache.createState(WRITER_STATE, value)) return id;
    const first = await readWriterId(cache);
    if (first) return first;
  }
  // One copied here (another directory's) is replaced: by the first id
  // claimed for this state directory, should two processes open the copy at once.
  if (cache.createState && found !== null && home !== null) {
    const claim = `writer-${home.replace(/[^0-9A-Za-z]/g, "-")}.json`;
    const claimed = (await cache.createState(claim, value))
      ? value
      : await cache.readState<KeptWriter>(claim);
    const first = idOf(claimed, home);
    if (first) {
      await cache.writeState(WRITER_STATE, { id: first, home });
      return first;
    }
  }
  await cache.writeState(WRITER_STATE, value);
  return id;
}

/**
 * True when the store holds, at `key`, an object this cache wrote (it carries
 * `writerId`) other than `syncedVersion`: a write of this cache cut off
 * before its index update, which only this cache will ever replace. A failed
 * look counts as no.
 *
 * @example
 * ```ts
 * import { holdsOwnUncommitted } from "./writer_id.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * await holdsOwnUncommitted(new InMemoryStore(), "a.txt", "v1", "me"); // false
 * ```
 */
export async function holdsOwnUncommitted(
  store: ObjectStore,
  key: string,
  syncedVersion: string | undefined,
  writerId: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const head = await store.head(key, { signal }).catch(() => null);
  return !!head && isOwnUncommitted(head, syncedVersion, writerId);
}

/**
 * True when `info` (an object the store holds) was written by the cache of
 * `writerId` and is not `syncedVersion`: that cache's own write cut off before
 * its index update.
 *
 * @example
 * ```ts
 * import { isOwnUncommitted, WRITER_METADATA } from "./writer_id.ts";
 * isOwnUncommitted({ version: "v2", metadata: { [WRITER_METADATA]: "me" } }, "v1", "me"); // true
 * ```
 */
export function isOwnUncommitted(
  info: { readonly version: string; readonly metadata?: Readonly<Record<string, string>> },
  syncedVersion: string | undefined,
  writerId: string | null,
): boolean {
  return writerId !== null && info.version !== syncedVersion &&
    info.metadata?.[WRITER_METADATA] === writerId;
}
