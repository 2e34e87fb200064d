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
import {
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
} from "../errors.ts";
import { type GetResult, type ObjectStore, PutModes } from "../ports.ts";
import { backoff, type RetryPolicy, withRetry } from "../retry.ts";
import {
  type IndexEntry,
  isUnversioned,
  type Meta,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  monolithBody,
  parseMeta,
  parseMonolith,
  parseShard,
  shardBody,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";

export type { IndexEntry } from "./bucket_layout.ts";

/** The index object of the v1 layout (named in messages). */
export const INDEX_KEY = MONOLITH_KEY;

/** A parsed index with its token. */
export interface RemoteIndex {
  /** `v1:<version>` or `v2:<meta version>`. */
  readonly version: string;
  readonly entries: Record<string, IndexEntry>;
}

/**
 * Runs `fn` over `items`, at most `limit` at a time, in the caller's own
 * turn (no timers between calls: a single-writer scheduler sees one caller).
 */
async function eachLimit<T>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const list = [...items];
  let next = 0;
  const worker = async () => {
    while (next < list.length) await fn(list[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, list.length)) }, worker));
}

type Call = { retry: RetryPolicy; signal?: AbortSignal; concurrency?: number };

async function getOrNull(store: ObjectStore, key: string, c: Call): Promise<GetResult | null> {
  try {
    return await withRetry(() => store.get(key, { signal: c.signal }), c.retry, c.signal);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

function unreadable(key: string, e: unknown): SluiceError {
  // No push can repair it: every push reads the index first, and rewriting
  // it from one clone's view would drop its peers' entries.
  return new SluiceError(
    "corrupt_download",
    `The remote index object ${key} is unreadable (${
      (e as Error).message
    }). Nothing was changed locally, and pushes stay refused until it is readable (local changes stay dirty). Sluice never writes such an index: check the bucket for a foreign writer, restore ${key} from a backup or an earlier object version, then run the command again.`,
    { cause: e },
  );
}

function parsed<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw unreadable(key, e);
  }
}

/** The meta with its object version; `null` when absent (or not a known form). */
async function readMeta(
  store: ObjectStore,
  c: Call,
): Promise<{ meta: Meta; version: string } | null> {
  const got = await getOrNull(store, META_KEY, c);
  const meta = got ? parseMeta(got.body) : null;
  return got && meta ? { meta, version: got.version } : null;
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
  const c = { retry, signal };
  const m = await readMeta(store, c);
  if (m?.meta.version === 2) return `v2:${m.version}`;
  const head = await withRetry(() => store.head(MONOLITH_KEY, { signal }), retry, signal);
  return head ? `v1:${head.version}` : null;
}

async function readShardOrNull(
  store: ObjectStore,
  partition: string,
  c: Call,
): Promise<{ entries: Record<string, IndexEntry>; version: string } | null> {
  const key = shardKey(partition);
  const got = await getOrNull(store, key, c);
  if (!got) return null;
  const entries = parsed(key, () => parseShard(got.body));
  return entries ? { entries, version: got.version } : null;
}

/** Reads the index (at most `concurrency` shard reads at once); `null` when the bucket has none yet. */
export async function readIndex(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
  concurrency = 10,
): Promise<RemoteIndex | null> {
  const c = { retry, signal };
  const m = await readMeta(store, c);
  if (m?.meta.version === 2) {
    const entries: Record<string, IndexEntry> = {};
    const listed = new Set(m.meta.partitions);
    const parts = [...listed, ...(listed.has(UNPARTITIONED) ? [] : [UNPARTITIONED])];
    await eachLimit(parts, concurrency, async (p) => {
      const shard = await readShardOrNull(store, p, c);
      if (!shard && listed.has(p)) {
        throw unreadable(shardKey(p), new Error("the meta lists it, but it is missing"));
      }
      Object.assign(entries, shard?.entries ?? {});
    });
    return { version: `v2:${m.version}`, entries };
  }
  const got = await getOrNull(store, MONOLITH_KEY, c);
  if (!got) return null;
  return {
    version: `v1:${got.version}`,
    entries: parsed(MONOLITH_KEY, () => parseMonolith(got.body)),
  };
}

/**
 * The last index this service read or wrote, held so that a push whose index
 * is unchanged remotely (checked with one HEAD) need not download and parse
 * it again. Whoever takes it owns it (it is changed in place), so a failed
 * update leaves nothing stale behind.
 */
export class IndexMemo {
  #last: RemoteIndex | null = null;

  /** Keeps `index` (which must not be changed afterwards by the caller). */
  remember(index: RemoteIndex | null): void {
    this.#last = index;
  }

  /** Hands over the kept index, if any, and forgets it. */
  take(): RemoteIndex | null {
    const last = this.#last;
    this.#last = null;
    return last;
  }
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
}

const CONFLICT_LIMIT = 25;

/**
 * Told, when an index commit lands, the token of the index it was applied
 * to (null: there was none) and whether every path of the change was
 * applied (false when a peer's write stood in the way of some).
 */
export type OnCommit = (base: string | null, complete: boolean) => void;

/**
 * A compare-and-swap write: `create` when `expected` is null, else `update`.
 * On an endpoint that refuses conditional writes, a read compares first (this
 * narrows, cannot close, the race). Returns the new version, or `null` when
 * the object changed meanwhile.
 */
async function casPut(
  store: ObjectStore,
  key: string,
  body: Uint8Array,
  expected: string | null,
  c: Call,
): Promise<string | null> {
  const mode = expected === null ? PutModes.create : PutModes.update(expected);
  try {
    const info = await withRetry(
      () => store.put(key, body, mode, { signal: c.signal }),
      c.retry,
      c.signal,
    );
    return info.version;
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    if (!(e instanceof NotImplementedError)) throw e;
  }
  const head = await withRetry(() => store.head(key, { signal: c.signal }), c.retry, c.signal);
  if ((head?.version ?? null) !== expected) return null;
  const info = await withRetry(
    () => store.put(key, body, PutModes.overwrite, { signal: c.signal }),
    c.retry,
    c.signal,
  );
  return info.version;
}

/** A conditional delete; `false` when the object changed meanwhile. */
async function casDelete(store: ObjectStore, key: string, version: string, c: Call) {
  try {
    await withRetry(
      () => store.delete(key, { ifVersion: version, signal: c.signal }),
      c.retry,
      c.signal,
    );
    return true;
  } catch (e) {
    if (e instanceof PreconditionFailedError) return false;
    if (e instanceof NotFoundError) return true;
    throw e;
  }
}

/**
 * Applies `change` to `entries` (the whole index, or one shard's entries
 * with that shard's part of the change). A path whose change was conditional (`change.base`) and
 * whose index entry names neither that base nor the change's own version is
 * checked against the store: when the store no longer holds this change's
 * version (a write) or holds an object again (a delete), a peer has
 * replaced it since and will commit its own, so the entry is left as it is.
 * Returns false when some path was left so.
 */
async function apply(
  store: ObjectStore,
  c: Call,
  entries: Record<string, IndexEntry>,
  change: IndexChange,
): Promise<boolean> {
  let all = true;
  const suspect = (p: string, own?: IndexEntry) => {
    const base = change.base?.[p];
    const cur = Object.hasOwn(entries, p) ? entries[p] : undefined;
    return base !== undefined && cur !== undefined && !isUnversioned(cur) && cur.v !== base &&
      cur.v !== own?.v;
  };
  const live = async (p: string) =>
    (await withRetry(() => store.head(p, { signal: c.signal }), c.retry, c.signal))?.version ??
      null;
  for (const p of change.remove) {
    if (suspect(p) && (await live(p)) !== null) {
      all = false;
      continue;
    }
    delete entries[p];
  }
  for (const [p, e] of Object.entries(change.set)) {
    if (suspect(p, e) && (await live(p)) !== e.v) {
      all = false;
      continue;
    }
    entries[p] = e;
  }
  return all;
}

function busy(key: string): SluiceError {
  return new SluiceError(
    "push_failed",
    `Could not update the remote index (${key}): it kept changing under concurrent pushes. The uploaded files are kept remotely and stay dirty locally; run the push again.`,
    { retryable: true },
  );
}

/** Applies a change to a v2 index: each touched shard by compare-and-swap, then the meta's `commitSeq`. */
async function updateV2(
  store: ObjectStore,
  change: IndexChange,
  c: Call,
  now: string,
  seen?: { meta: Meta; version: string },
  onCommit?: OnCommit,
) {
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
    const own: IndexChange = { ...parts.get(part)!, base: change.base };
    for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
      if (attempt > 0) await conflictPause(attempt, c);
      const cur = await readShardOrNull(store, part, c);
      const entries = cur?.entries ?? {};
      if (!await apply(store, c, entries, own)) complete = false;
      if (Object.keys(entries).length === 0) {
        if (!cur || await casDelete(store, shardKey(part), cur.version, c)) {
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
    // The meta read before the shards serves the first attempt (its
    // compare-and-swap fails if it moved meanwhile); a conflict reads it again.
    if (attempt > 0) await conflictPause(attempt, c);
    const m = attempt === 0 && seen ? seen : await readMeta(store, c);
    if (m?.meta.version !== 2) throw busy(META_KEY); // never downgraded by a peer in practice
    const partitions = new Set(m.meta.partitions);
    const listed = created.size === 0 && [...kept].every((p) => partitions.has(p)) &&
      ![...emptied].some((p) => partitions.has(p));
    for (const p of emptied) partitions.delete(p);
    for (const p of kept) partitions.add(p);
    const next: Meta = {
      ...m.meta,
      partitions: [...partitions],
      commitSeq: m.meta.commitSeq + 1,
    };
    const v = await casPut(store, META_KEY, metaBody(next), m.version, c);
    if (v) {
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
    if (attempt > 0 && listed) return COVERED;
  }
  throw busy(META_KEY);
}

/**
 * The token `updateIndex` returns for a v2 change published by a peer's
 * `commitSeq` bump (its own was refused): names no meta version, so the
 * next pull reads the index.
 */
export const COVERED = "v2:covered";

/**
 * Waits before another compare-and-swap round after a refused one: a random
 * time up to `minTimeoutMs / 10 × 2^attempt` (capped by `maxTimeoutMs`), so
 * that writers refused together do not all come back together. No wait
 * under a policy with `minTimeoutMs` 0 (tests and seeded histories).
 */
async function conflictPause(attempt: number, c: Call): Promise<void> {
  const cap = Math.min(c.retry.maxTimeoutMs, (c.retry.minTimeoutMs / 10) * 2 ** (attempt - 1));
  if (cap > 0) await backoff(Math.random() * cap, c.signal);
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
  for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
    if (attempt > 0) await conflictPause(attempt, c);
    const m = await readMeta(store, c);
    if (m?.meta.version === 2) {
      memo?.take();
      return await updateV2(store, change, c, now, m, onCommit);
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
    await updateV2(store, change, c, now, m);
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
  try {
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
    const next: Meta = { version: 1, partitions: [...byShard.keys()] };
    const body = metaBody(next);
    if (m && new TextDecoder().decode(metaBody(m.meta)) === new TextDecoder().decode(body)) return;
    await casPut(store, META_KEY, body, m?.version ?? null, c);
  } catch (e) {
    if (c.signal?.aborted) throw e;
  }
}
