/**
 * The remote index, in the shared bucket layout (`bucket_layout.ts`): the
 * v1 index object, or v2 shards under a meta whose `commitSeq` every commit
 * bumps. A push updates it last, with compare-and-swap writes, so a pull that
 * finds it unchanged costs one or two requests, and files a push uploaded but
 * never committed stay invisible to peers until that push is completed.
 *
 * An index token (`v1:<version of the index object>` or `v2:<version of the
 * meta>`) names what a reader saw; it changes with every commit of any
 * client of the layout.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { backoff, type RetryPolicy, withRetry } from "../retry.ts";
import { SluiceError } from "../errors.ts";
import {
  type IndexEntry,
  META_KEY,
  MONOLITH_KEY,
  monolithBody,
  parseMonolith,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";
import {
  busy,
  casPut,
  CONFLICT_LIMIT,
  conflictPause,
  eachLimit,
  getOrNull,
  parsed,
  readMeta,
  readShardOrNull,
} from "./index_io.ts";
import { apply, type HeldObject } from "./index_apply.ts";
import type { IndexChange, IndexDiscovery, OnCommit } from "./index_change.ts";
import { IndexMemo, type MetaSeen, type RemoteIndex } from "./index_memo.ts";
import { discoverEntries } from "./index_discovery.ts";
import { COVERED, NOT_V2, updateV2 } from "./index_v2.ts";
import { shardVersions, touchedShards, writeCompanions } from "./index_companions.ts";

export { COVERED, type HeldObject, IndexMemo, type MetaSeen, type RemoteIndex };
export type { IndexChange, IndexDiscovery, OnCommit } from "./index_change.ts";
export type { IndexEntry } from "./bucket_layout.ts";

/** Reads of a v2 index whose meta lists a missing shard, before it is refused as corrupt. */
const MISSING_SHARD_READS = 5;

/** The index object of the v1 layout (named in messages). */
export const INDEX_KEY = MONOLITH_KEY;

/** The v2 meta as read: its body and version; null on a bucket without one (v1, or no index). */
export type MetaRead = Awaited<ReturnType<typeof readMeta>>;

/** What {@link headIndexAndMeta} saw: the index's token, and the v2 meta read on the way. */
export interface IndexHead {
  /** As {@link headIndex}: `v1:…`, `v2:…`, or null when the bucket has no index. */
  readonly token: string | null;
  /** The meta read for the token (null: none, so a v1 bucket or no index). */
  readonly meta: MetaRead;
}

/**
 * The index's current token, without reading the index: one GET of the meta
 * for a v2 bucket, plus one HEAD of the index object for a v1 bucket. `null`
 * when the bucket has no index yet.
 */
export async function headIndex(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<string | null> {
  return (await headIndexAndMeta(store, retry, signal)).token;
}

/**
 * {@link headIndex}, also returning the meta it read, so that a
 * {@link readIndex} of the same index right after need not read it again.
 */
export async function headIndexAndMeta(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<IndexHead> {
  const c = { retry, signal };
  const meta = await readMeta(store, c);
  if (meta?.meta.version === 2) return { token: `v2:${meta.version}`, meta };
  const head = await withRetry(() => store.head(MONOLITH_KEY, { signal }), retry, signal);
  return { token: head ? `v1:${head.version}` : null, meta: null };
}

/**
 * Reads the index (at most `concurrency` shard reads at once); `null` when
 * the bucket has none yet. `known.meta`, the meta a {@link headIndexAndMeta}
 * just read, saves reading it again (the index read is then the one that
 * head saw, or a later one).
 */
export async function readIndex(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
  concurrency = 10,
  known?: { readonly meta: MetaRead },
): Promise<RemoteIndex | null> {
  const c = { retry, signal };
  let m = known ? known.meta : await readMeta(store, c);
  // A listed shard found missing is read again with a fresh meta: a writer
  // that emptied a shard deletes it just before dropping it from the meta.
  for (let attempt = 0; m?.meta.version === 2; attempt++) {
    const entries: Record<string, IndexEntry> = {};
    const shards: Record<string, string> = {};
    const listed = new Set(m.meta.partitions);
    const parts = [...listed, ...(listed.has(UNPARTITIONED) ? [] : [UNPARTITIONED])];
    const missing: string[] = [];
    await eachLimit(parts, concurrency, async (p) => {
      const shard = await readShardOrNull(store, p, c);
      if (!shard && listed.has(p)) missing.push(p);
      if (shard) shards[p] = shard.version;
      Object.assign(entries, shard?.entries ?? {});
    });
    if (missing.length === 0) return { version: `v2:${m.version}`, entries, meta: m, shards };
    if (attempt + 1 >= MISSING_SHARD_READS) throw missingShard(shardKey(missing[0]));
    // Paced as the retries of a request are (about 3 s in all at the
    // defaults): the existing extensions delete an emptied shard one request
    // or more before they write the meta that drops it.
    const pause = Math.min(retry.maxTimeoutMs, retry.minTimeoutMs * 2 ** attempt);
    if (pause > 0) await backoff(pause * (0.5 + Math.random() / 2), signal);
    m = await readMeta(store, c);
  }
  const got = await getOrNull(store, MONOLITH_KEY, c);
  if (!got) return null;
  return {
    version: `v1:${got.version}`,
    entries: parsed(MONOLITH_KEY, () => parseMonolith(got.body)),
  };
}

/**
 * The entry at `path` in its shard when `index`, a v2 index read whole, does
 * not list that shard. A commit cut off after its shard write and before the
 * meta bump that lists the shard leaves entries there that no reader sees,
 * and that the next commit into that shard publishes (a commit reads a shard
 * as it stands): such an entry is named for a writer about to delete what it
 * names. Undefined on a v1 index, for a listed shard (or the unpartitioned
 * one, always read), and where the shard holds no entry at `path`.
 */
export async function unlistedEntry(
  store: ObjectStore,
  index: RemoteIndex | null,
  path: string,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<IndexEntry | undefined> {
  const m = index?.meta?.meta;
  const part = shardOf(path);
  if (m?.version !== 2 || part === UNPARTITIONED || m.partitions.includes(part)) return undefined;
  const shard = await readShardOrNull(store, part, { retry, signal });
  return shard && Object.hasOwn(shard.entries, path) ? shard.entries[path] : undefined;
}

/**
 * {@link unlistedEntry} for each of `paths`, each shard the meta does not
 * list read once: the entries found, by path.
 */
export async function unlistedEntries(
  store: ObjectStore,
  index: RemoteIndex | null,
  paths: Iterable<string>,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<Map<string, IndexEntry>> {
  const out = new Map<string, IndexEntry>();
  const m = index?.meta?.meta;
  if (m?.version !== 2) return out;
  const shards = new Map<string, Promise<Record<string, IndexEntry> | undefined>>();
  for (const path of paths) {
    const part = shardOf(path);
    if (part === UNPARTITIONED || m.partitions.includes(part)) continue;
    if (!shards.has(part)) {
      shards.set(part, readShardOrNull(store, part, { retry, signal }).then((s) => s?.entries));
    }
    const entries = await shards.get(part)!;
    if (entries && Object.hasOwn(entries, path)) out.set(path, entries[path]);
  }
  return out;
}

/** A shard the meta still lists after every read (see {@link readIndex}). */
function missingShard(key: string): SluiceError {
  return new SluiceError(
    "corrupt_download",
    `The remote index's meta (${META_KEY}) lists the shard ${key}, which is missing, in ${MISSING_SHARD_READS} reads a few seconds apart. Nothing was changed locally, and pushes stay refused while it is so (local changes stay dirty). A writer between deleting an emptied shard and writing the meta that drops it (the existing extensions do so) ends that within a request: run the command again. If it stays, another tool or a lifecycle rule deleted the shard: restore ${key} from the bucket's versioning or a backup, then run the command again.`,
  );
}

/**
 * The index entries that can name `dir`, a directory above it, or a path
 * under it: the whole index on v1 (one object); on v2 only the shards that
 * can hold such paths (a path's partition is one of its own directories, or
 * the unpartitioned shard), so that a look at one name does not read every
 * shard of a large bucket. `{}` when the bucket has no index.
 */
export async function readIndexAround(
  store: ObjectStore,
  dir: string,
  retry: RetryPolicy,
  signal?: AbortSignal,
  concurrency = 10,
): Promise<Record<string, IndexEntry>> {
  const c = { retry, signal };
  const m = await readMeta(store, c);
  if (m?.meta.version !== 2) {
    return (await readIndex(store, retry, signal, concurrency, { meta: m }))?.entries ?? {};
  }
  const key = dir.replaceAll("/", "--");
  const near = (part: string) =>
    part === key || part.startsWith(`${key}--`) || key.startsWith(`${part}--`) ||
    part.startsWith("_") || !part.includes("--");
  const parts = [...new Set([...m.meta.partitions.filter(near), UNPARTITIONED])];
  const entries: Record<string, IndexEntry> = {};
  await eachLimit(parts, concurrency, async (part) => {
    Object.assign(entries, (await readShardOrNull(store, part, c))?.entries ?? {});
  });
  return entries;
}

/**
 * Applies `set` and `remove` to the remote index with compare-and-swap
 * writes, re-reading and re-applying on a conflict (bounded). A v1 bucket's
 * index object is rewritten whole, and the shards of the touched partitions
 * and a v1 meta are written beside it, as other clients of the layout do; a
 * v2 bucket gets its touched shards and a bumped `commitSeq`. With a `memo`,
 * a v1 index it holds is used when a HEAD shows the remote one unchanged.
 * At most `concurrency` shard requests run at once; entry and index times
 * come from `clock` (the injected clock, so histories replay alike).
 * Into a bucket with no index, the index it creates names the objects
 * already there: found by `discover` (which may warn), or else by a listing
 * alone (`index_discovery.ts`), so that no commit path leaves them out.
 * Returns the new token (`""` when there was nothing to change).
 */
export async function updateIndex(
  store: ObjectStore,
  change: IndexChange,
  retry: RetryPolicy,
  signal?: AbortSignal,
  memo?: IndexMemo,
  concurrency = 4,
  clock: () => number = Date.now,
  onCommit?: OnCommit,
  discover?: IndexDiscovery,
): Promise<string> {
  const empty = Object.keys(change.set).length === 0 && change.remove.length === 0;
  // Whoever creates the index names what is there (without a caller's
  // discovery, silently): no commit path leaves another tool's objects out.
  const discovery: IndexDiscovery = discover ?? {
    find: async (own) => (await discoverEntries(store, retry, signal, concurrency, own)).entries,
  };
  if (empty && !discovery.alone) return "";
  const c = { retry, signal, concurrency };
  const now = new Date(clock()).toISOString();
  // A v2 meta seen last: the shards are written without reading the meta
  // first (under contention, it is read after them instead).
  const hint = await memo?.meta();
  // Set once an index write was refused: it may have landed with its answer lost.
  let refusedBefore = false;
  // Paths another client overwrote before this commit (the last round's).
  const foreign = new Map<string, HeldObject | null>();
  const unpublished = new Set<string>();
  for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
    if (attempt > 0) await conflictPause(attempt, c);
    const m = attempt === 0 && hint ? hint : await readMeta(store, c);
    // Asked only to discover: a v2 index is there, with nothing to change.
    if (m?.meta.version === 2 && empty) return "";
    if (m?.meta.version === 2) {
      memo?.take();
      try {
        const token = await updateV2(
          store,
          change,
          c,
          now,
          m === hint && memo?.contended ? undefined : m,
          onCommit,
          memo,
          refusedBefore,
          foreign,
          unpublished,
        );
        await memo?.persist();
        return token;
      } catch (e) {
        if (e !== NOT_V2) throw e;
        // The meta is gone or turned v1 (a repair): start over from it.
        memo?.noteMeta(undefined);
        continue;
      }
    }
    const held = memo?.take();
    let cur: RemoteIndex | null = null;
    if (held) {
      // Only a shortcut: when the HEAD fails, the index is read as without a memo.
      const head = await store.head(MONOLITH_KEY, { signal }).catch((e) => {
        if (signal?.aborted) throw e;
        return null;
      });
      if (head && `v1:${head.version}` === held.version) cur = held;
    }
    if (!cur) {
      const got = await getOrNull(store, MONOLITH_KEY, c);
      cur = got
        ? {
          version: `v1:${got.version}`,
          entries: parsed(MONOLITH_KEY, () => parseMonolith(got.body)),
        }
        : null;
    }
    // No index: the objects already there are named in the one this creates.
    const found = !cur
      ? await discovery.find(new Set([...Object.keys(change.set), ...change.remove]))
      : {};
    const discovered = Object.keys(found).length;
    // Freshly parsed, or taken from the memo: owned here, so changed in place.
    const entries = cur?.entries ?? { ...found };
    const tally = { applied: 0 };
    const complete = await apply(
      store,
      c,
      entries,
      change,
      refusedBefore,
      foreign,
      tally,
      unpublished,
    );
    if (tally.applied === 0 && discovered === 0 && (cur || !discovery.create)) {
      // Every path left out (another writer's since): nothing to write, and
      // old clients keep the index they hold.
      onCommit?.(cur?.version ?? null, complete, foreign, unpublished);
      if (cur) memo?.remember(cur);
      return cur?.version ?? "";
    }
    const expected = cur ? cur.version.slice(3) : null;
    // Read before the companion step reads the meta: beside the index write,
    // or before it when requests go one at a time (`concurrency` 1). A new
    // index object (a first push into the bucket), or one this process made
    // naming nothing and finds unchanged (`noShards`: a first push's early
    // index), has no shards to read: each is written only where none is,
    // and one there after all (left behind by hand, or a move's) refuses
    // that write and is refreshed from the index.
    const touched = touchedShards(
      discovered > 0 ? { set: { ...found, ...change.set }, remove: change.remove } : change,
    );
    const reading = cur && !cur.noShards
      ? shardVersions(store, touched, c)
      : Promise.resolve(new Map([...touched].map((s) => [s, null])));
    const shards = (c.concurrency ?? 4) > 1 ? reading : Promise.resolve(await reading);
    // The shard reads never reject; a failed index write waits for them, so
    // that no request of this commit runs on after it.
    const v = await casPut(store, MONOLITH_KEY, monolithBody(entries, now), expected, c)
      .catch(async (e) => {
        await shards;
        throw e;
      });
    if (!v) {
      await shards;
      refusedBefore = true;
      continue;
    }
    if (discovered > 0) discovery.landed?.(discovered);
    const noShards = !cur && Object.keys(entries).length === 0;
    memo?.remember({ version: `v1:${v}`, entries, ...(noShards ? { noShards } : {}) });
    await memo?.persist();
    // The bucket turned v2 beside this commit, and the v2 index could not
    // take some of its paths (an object gone since, deleted outside Sluice
    // or by a peer, or another writer's there): not taken as published, each
    // is kept by its writer as a conflict, as in a later round above.
    const unnamed = await writeCompanions(store, entries, change, c, now, await shards, v);
    for (const [p, held] of unnamed.foreign) foreign.set(p, held);
    // Held back there as a commit alone holds them back (bytes found in
    // place gone, a marker with them): not published, nobody's deletion.
    for (const p of unnamed.unpublished) unpublished.add(p);
    const left = unnamed.foreign.size + unnamed.unpublished.size;
    onCommit?.(cur?.version ?? null, complete && left === 0, foreign, unpublished);
    return `v1:${v}`;
  }
  throw busy(MONOLITH_KEY);
}
