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
import { type ObjectStore, PutModes } from "../ports.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";
import {
  type IndexEntry,
  type Meta,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  monolithBody,
  parseMonolith,
  shardBody,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";
import {
  apply,
  busy,
  type Call,
  casPut,
  CONFLICT_LIMIT,
  conflictPause,
  eachLimit,
  getOrNull,
  parsed,
  readMeta,
  readShardOrNull,
  unreadable,
} from "./index_io.ts";
import { IndexMemo, type MetaSeen, type RemoteIndex } from "./index_memo.ts";

export { IndexMemo, type MetaSeen, type RemoteIndex };
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
    const listed = new Set(m.meta.partitions);
    const parts = [...listed, ...(listed.has(UNPARTITIONED) ? [] : [UNPARTITIONED])];
    const missing: string[] = [];
    await eachLimit(parts, concurrency, async (p) => {
      const shard = await readShardOrNull(store, p, c);
      if (!shard && listed.has(p)) missing.push(p);
      Object.assign(entries, shard?.entries ?? {});
    });
    if (missing.length === 0) return { version: `v2:${m.version}`, entries, meta: m };
    if (attempt + 1 >= MISSING_SHARD_READS) {
      throw unreadable(shardKey(missing[0]), new Error("the meta lists it, but it is missing"));
    }
    await conflictPause(attempt + 1, c);
    m = await readMeta(store, c);
  }
  const got = await getOrNull(store, MONOLITH_KEY, c);
  if (!got) return null;
  return {
    version: `v1:${got.version}`,
    entries: parsed(MONOLITH_KEY, () => parseMonolith(got.body)),
  };
}

/** A change of the index. */
export interface IndexChange {
  readonly set: Record<string, IndexEntry>;
  readonly remove: readonly string[];
  /**
   * For a path written or deleted conditionally: the version it was
   * conditional on (`null`: created). When the index names another version
   * by then, the change is applied only while the store still holds what it
   * wrote (or, for a delete, nothing): an entry a peer committed over this
   * write is never put back.
   */
  readonly base?: Readonly<Record<string, string | null>>;
  /**
   * Apply each `set` only while the store holds the version it names: for
   * a change replayed from an older commit (an index move's catch-up), which
   * a later commit may have overtaken by deleting or replacing the object.
   */
  readonly verify?: boolean;
  /**
   * Paths whose `set` is applied only while the store holds the version it
   * names: writes that found their bytes already there (a peer that saw
   * them may have deleted them since).
   */
  readonly check?: readonly string[];
}

/**
 * Told, when an index commit lands, the token of the index it was applied
 * to (null: there was none) and whether every path of the change was
 * applied (false when a peer's write stood in the way of some).
 */
export type OnCommit = (base: string | null, complete: boolean) => void;

/** Applies a change to a v2 index: each touched shard by compare-and-swap, then the meta's `commitSeq`. */
async function updateV2(
  store: ObjectStore,
  change: IndexChange,
  c: Call,
  now: string,
  seen: MetaSeen | undefined,
  onCommit?: OnCommit,
  memo?: IndexMemo,
): Promise<string> {
  let complete = true;
  // The change split by shard once: each shard applies only its own part
  // (applying the whole change to every shard costs shards × entries).
  const parts = new Map<string, { set: Record<string, IndexEntry>; remove: string[] }>();
  const partOf = (p: string) => {
    const s = shardOf(p);
    let part = parts.get(s);
    if (!part) parts.set(s, part = { set: {}, remove: [] });
    return part;
  };
  for (const p of change.remove) partOf(p).remove.push(p);
  for (const [p, e] of Object.entries(change.set)) partOf(p).set[p] = e;
  const kept = new Set<string>();
  const created = new Set<string>();
  const emptied = new Set<string>();
  await eachLimit(parts.keys(), c.concurrency ?? 4, async (part) => {
    const own: IndexChange = {
      ...parts.get(part)!,
      base: change.base,
      verify: change.verify,
      check: change.check,
    };
    for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
      if (attempt > 0) await conflictPause(attempt, c);
      const cur = await readShardOrNull(store, part, c);
      const entries = cur?.entries ?? {};
      if (!await apply(store, c, entries, own)) complete = false;
      if (Object.keys(entries).length === 0) {
        // An emptied shard is written empty, not deleted, and then dropped
        // from the meta: a crash in between leaves the meta listing a shard
        // that is there (and empty), never a missing one readers refuse.
        const empty = shardBody({}, now);
        if (!cur || await casPut(store, shardKey(part), empty, cur.version, c)) {
          emptied.add(part);
          return;
        }
        continue;
      }
      if (await casPut(store, shardKey(part), shardBody(entries, now), cur?.version ?? null, c)) {
        kept.add(part);
        if (!cur) created.add(part);
        return;
      }
    }
    throw busy(shardKey(part));
  });
  for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
    // A meta seen before the shards (read first, or remembered) serves the
    // first attempt (its compare-and-swap fails if it moved meanwhile);
    // without one, and after a conflict, it is read now, after the shards.
    if (attempt > 0) await conflictPause(attempt, c);
    const fresh = attempt > 0 || !seen;
    const m = fresh ? await readMeta(store, c) : seen;
    if (m?.meta.version !== 2) throw NOT_V2;
    const partitions = new Set(m.meta.partitions);
    const listed = created.size === 0 && [...kept].every((p) => partitions.has(p)) &&
      ![...emptied].some((p) => partitions.has(p));
    for (const p of emptied) partitions.delete(p);
    for (const p of kept) {
      // After a refusal, a shard this change wrote may be gone: a peer
      // emptied it (its removal came after this change) and deleted it. A
      // meta never lists a missing shard: readers would refuse the index.
      if (attempt > 0 && !partitions.has(p) && !await readShardOrNull(store, p, c)) continue;
      partitions.add(p);
    }
    const next: Meta = {
      ...m.meta,
      partitions: [...partitions],
      commitSeq: m.meta.commitSeq + 1,
    };
    const v = await casPut(store, META_KEY, metaBody(next), m.version, c);
    if (v) {
      memo?.noteMeta({ meta: next, version: v });
      if (attempt > 0 && memo) memo.contended = true;
      onCommit?.(`v2:${m.version}`, complete);
      return `v2:${v}`;
    }
    // Refused on a meta read after every shard of this change landed: a peer
    // bumped `commitSeq` since that read, so after these shards. A reader
    // that sees its meta reads these shards too, and one holding an older
    // `commitSeq` reads again: that bump publishes this change as well, when
    // its partitions already list what this change needs. Writers of
    // different models thus meet on the meta at most twice per commit. Not
    // for a shard this change created: a peer that emptied and deleted it
    // before may still be about to drop it from the meta.
    if (fresh && listed) {
      memo?.noteMeta(m); // stale, but names the layout
      if (memo) memo.contended = true;
      return COVERED;
    }
  }
  throw busy(META_KEY);
}

/** Thrown by `updateV2` when the meta is not (or no longer) a v2 one: the update starts over. */
const NOT_V2 = new Error("the bucket's index is not v2");

/**
 * The token `updateIndex` returns for a v2 change published by a peer's
 * `commitSeq` bump (its own was refused): names no meta version, so the
 * next pull reads the index.
 */
export const COVERED = "v2:covered";

/**
 * Applies `set` and `remove` to the remote index with compare-and-swap
 * writes, re-reading and re-applying on a conflict (bounded). A v1 bucket's
 * index object is rewritten whole, and the shards of the touched partitions
 * and a v1 meta are written beside it, as other clients of the layout do; a
 * v2 bucket gets its touched shards and a bumped `commitSeq`. With a `memo`,
 * a v1 index it holds is used when a HEAD shows the remote one unchanged.
 * At most `concurrency` shard requests run at once; entry and index times
 * come from `clock` (the injected clock, so histories replay alike).
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
): Promise<string> {
  if (Object.keys(change.set).length === 0 && change.remove.length === 0) return "";
  const c = { retry, signal, concurrency };
  const now = new Date(clock()).toISOString();
  // A v2 meta seen last: the shards are written without reading the meta
  // first (under contention, it is read after them instead).
  const hint = await memo?.meta();
  for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
    if (attempt > 0) await conflictPause(attempt, c);
    const m = attempt === 0 && hint ? hint : await readMeta(store, c);
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
    // Freshly parsed, or taken from the memo: owned here, so changed in place.
    const entries = cur?.entries ?? {};
    const complete = await apply(store, c, entries, change);
    const expected = cur ? cur.version.slice(3) : null;
    const v = await casPut(store, MONOLITH_KEY, monolithBody(entries, now), expected, c);
    if (!v) continue;
    onCommit?.(cur?.version ?? null, complete);
    memo?.remember({ version: `v1:${v}`, entries });
    await memo?.persist();
    await writeCompanions(store, entries, change, c, now);
    return `v1:${v}`;
  }
  throw busy(MONOLITH_KEY);
}

/**
 * Beside a v1 index: the shards of the touched partitions (built from the
 * whole index) and a v1 meta listing every partition, unless the bucket has
 * turned v2 meanwhile; then the change is applied to the v2 index too, so it
 * is never invisible to v2 readers. Shards of a v1 bucket are a convenience
 * for scoped readers: failures to write them are ignored, as other clients do.
 */
async function writeCompanions(
  store: ObjectStore,
  entries: Record<string, IndexEntry>,
  change: IndexChange,
  c: Call,
  now: string,
) {
  const m = await readMeta(store, c);
  if (m?.meta.version === 2) {
    await updateV2(store, change, c, now, m).catch((e) => {
      if (e !== NOT_V2) throw e;
    });
    return;
  }
  const byShard = new Map<string, Record<string, IndexEntry>>();
  for (const [p, e] of Object.entries(entries)) {
    const s = shardOf(p);
    if (s === UNPARTITIONED) continue;
    let group = byShard.get(s);
    if (!group) byShard.set(s, group = {});
    group[p] = e;
  }
  const touched = new Set(
    [...change.remove, ...Object.keys(change.set)].map(shardOf).filter((s) => s !== UNPARTITIONED),
  );
  const next: Meta = { version: 1, partitions: [...byShard.keys()] };
  const body = metaBody(next);
  // A move to v2 marked the meta: rewriting it before anything else makes
  // that move start over and read this commit (migrate_index.ts). Not a
  // convenience: its failure fails the commit, and the paths stay dirty.
  const marked = m?.meta.version === 1 && m.meta.movingToV2 !== undefined;
  let refused = marked && !await casPut(store, META_KEY, body, m!.version, c);
  try {
    if (!refused) {
      await eachLimit(touched, c.concurrency ?? 4, async (s) => {
        const group = byShard.get(s);
        if (group) {
          await store.put(shardKey(s), shardBody(group, now), PutModes.overwrite, {
            signal: c.signal,
          });
        } else {
          // The partition's last entry went: its shard goes too, so no scoped reader finds it stale.
          await store.delete(shardKey(s), { signal: c.signal });
        }
      });
    }
    // Left as it is when unchanged (and written already when marked).
    const same = m && new TextDecoder().decode(metaBody(m.meta)) === new TextDecoder().decode(body);
    if (!marked && !same) refused = !await casPut(store, META_KEY, body, m?.version ?? null, c);
  } catch (e) {
    if (c.signal?.aborted) throw e;
  }
  if (!refused) return;
  // The meta changed since it was read: a move to v2 may have turned it
  // after reading the index without this commit. The change then goes to
  // the v2 index too (its failure fails the commit: the paths stay dirty).
  const now2 = await readMeta(store, c);
  if (now2?.meta.version !== 2) return;
  await updateV2(store, change, c, now, now2).catch((e) => {
    if (e !== NOT_V2) throw e;
  });
}
