/**
 * The move of a bucket from the v1 index object to v2 shards (`swamp
 * datastore migrate-index`, `sluice bucket migrate-index`): the v1 meta is
 * marked (`movingToV2`), every shard is written from the v1 index (and any
 * other shard deleted, all by compare-and-swap), then the
 * meta `{version: 2, partitions, commitSeq: 1}` replaces the marked one by
 * compare-and-swap. Run it under the global lock, as swamp core does; a v1
 * writer that commits meanwhile is not lost either way:
 *
 * - a Sluice v1 commit that lands after the index was read either finds the
 *   mark and rewrites the meta (the move's v2 meta is then refused, and the
 *   move starts over), or finds the meta turned v2 (when it writes its
 *   companions, or when the move's meta refuses its v1 meta) and applies
 *   itself to the shards; no crash of the move loses it;
 * - for other clients' v1 commits: after the meta lands, the v1 index is
 *   read again, and what changed in it since it was read (all of it, when
 *   there was none then) is applied to the shards (an ordinary v2 commit).
 *
 * The global lock alone does not fence a move: a mover that stops long
 * enough for its lock to be taken over (a suspended laptop, a stalled
 * connection) goes on afterwards, and must not write over the move that
 * replaced it or the v2 commits after that. So an attempt lists the shards
 * after its mark, checks the mark is still its own, and writes or deletes a
 * listed shard only over the version it listed; a shard none was listed for
 * is created only while the meta still carries its mark, and deleted again
 * (if unchanged) when the attempt is refused. One window is left, as with
 * any create an in-flight request may land late: a create checked against
 * the mark and delayed past a whole other move, then built on by a v2
 * commit of its partition before the stopped mover deletes it.
 *
 * Last, the v1 index object is written again with the same entries and
 * other bytes, so that its ETag changes: a clone of the existing clients
 * last synced on v1 compares that ETag in its fast path, and would
 * otherwise skip every v2 commit until it pushed.
 *
 * A bucket already on v2 is left as it is (running the move again would
 * rebuild the shards from a v1 index v2 commits no longer update, and reset
 * `commitSeq`), but for that rewrite of the v1 index object, which a move
 * stopped after its v2 meta never made. A bucket without a v1 index gets a meta listing the shards
 * it holds; when a listing finds objects besides those the shards name
 * (another tool's, in a bucket with no index of either form, or left by a
 * move of such a bucket that was cut off), they are named in the shards it
 * writes, as any first index names them (`index_discovery.ts`).
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { GetResult, ObjectStore } from "../ports.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";
import {
  type IndexEntry,
  isUnversioned,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  parseMonolith,
  parseShard,
  shardBody,
  shardKey,
  shardOf,
} from "./bucket_layout.ts";
import {
  busy,
  casDelete,
  casPut,
  CONFLICT_LIMIT,
  eachLimit,
  getOrNull,
  listShards,
  parsed,
  readMeta,
} from "./index_io.ts";
import { type IndexDiscovery, updateIndex } from "./remote_index.ts";
import { discoverEntries } from "./index_discovery.ts";

/** What the move left: the v2 meta's fields (as swamp's `migrateMonolithToShards` returns them). */
export interface MigratedIndex {
  readonly version: 2;
  readonly partitions: string[];
  readonly commitSeq: number;
  /** False when the bucket was on v2 already (nothing was written). */
  readonly migrated: boolean;
  /** Entries written into shards. */
  readonly entries: number;
}

/** Options of {@link migrateToShards}. */
export interface MigrateOptions {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  /** Parallel shard writes; default 4. */
  readonly concurrency?: number;
  /** Time of the shards written; default the system clock. */
  readonly clock?: () => number;
  /**
   * How a bucket with no index has its objects found (a listing, and the
   * warnings that say what it named); default the listing alone, silent.
   */
  readonly discovery?: IndexDiscovery;
  /**
   * Told, after the catch-up's commit, of the paths a v1 commit that raced
   * the move set whose objects the store no longer holds (deleted outside
   * Sluice since, or by their writer as its own unnamed upload, even between
   * the catch-up's check and its commit, whose entry is then taken out
   * again): the v2 index does not name them, their writers took them for
   * published, and a copy of theirs may be the last (the caller records them
   * as lost). Its failure fails the move, which has finished.
   */
  readonly onUnnamed?: (lost: readonly (readonly [string, IndexEntry])[]) => Promise<void>;
  /**
   * True once the global lock the move runs under was lost (taken over
   * while this process stopped, say): the move then stops before its next
   * attempt and before its v2 meta write (`global_lock_lost`), leaving the
   * bucket to the move that holds the lock now. Two moves marking the meta
   * over each other would each start over, again and again.
   */
  readonly lockLost?: () => boolean;
}

/** The move's lock was lost: it stops, the bucket left to the move holding the lock now. */
function moveLockLost(): SluiceError {
  return new SluiceError(
    "global_lock_lost",
    "The global lock this move to v2 ran under was lost (taken over or deleted while it was held, as when this process stopped for longer than the lock's TTL); the move stopped, leaving the bucket to the one that holds the lock now. Nothing of this attempt was published: the v2 meta was not written. Run the move again: a bucket already on v2 is left as it is.",
    { retryable: true },
  );
}

/**
 * Moves the bucket of `store` to the v2 layout (see the module doc).
 *
 * @example
 * ```ts
 * import { migrateToShards } from "./migrate_index.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const r = await migrateToShards(new InMemoryStore(), {
 *   retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
 * });
 * console.log(r.version, r.partitions); // 2 []
 * ```
 */
export async function migrateToShards(
  store: ObjectStore,
  options: MigrateOptions,
): Promise<MigratedIndex> {
  const c = { retry: options.retry, signal: options.signal, concurrency: options.concurrency };
  const now = () => new Date((options.clock ?? Date.now)()).toISOString();
  for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
    if (options.lockLost?.()) throw moveLockLost();
    const read = await readMeta(store, c);
    if (read?.meta.version === 2) {
      // A move that stopped after its v2 meta may not have written the v1
      // index object again (below): done here, so that running it again
      // finishes that too (at worst, an existing client's clone reads the
      // shards once more).
      const left = await getOrNull(store, MONOLITH_KEY, c);
      if (left) await casPut(store, MONOLITH_KEY, toggledNewline(left.body), left.version, c);
      return { ...read.meta, partitions: [...read.meta.partitions], migrated: false, entries: 0 };
    }
    // Marked before the index object is read: a v1 commit that lands after
    // that read finds the mark and rewrites the meta, so this move's v2 meta
    // is refused and it reads again. Without it, such a commit leaves an
    // unchanged meta as it is, and only the catch-up below would carry it
    // into v2 (a crash before then would lose it).
    const mark = {
      version: 1 as const,
      partitions: read?.meta.partitions ?? [],
      movingToV2: moveId(),
    };
    const marked = await casPut(store, META_KEY, metaBody(mark), read?.version ?? null, c);
    if (!marked) continue;
    // The shards as they are now, then the mark still ours: no other move
    // has marked since, so every shard it writes or deletes from here on
    // changes a version listed here, and this attempt's conditional writes
    // over those versions are refused (a mover whose lock was taken over
    // while it stopped never writes over the move that replaced it, nor
    // over the v2 commits after it).
    const listed = await listShards(store, c.signal);
    if ((await readMeta(store, c))?.version !== marked) continue;
    const got = await getOrNull(store, MONOLITH_KEY, c);
    // No index object: the shards there (an earlier move of such a bucket,
    // cut off; an index object lost) and what the bucket holds besides
    // them, found by a listing (another tool's objects), make the index.
    const held = got ? {} : await shardEntries(store, listed, c);
    if (!held) continue; // a shard changed since it was listed
    const found = got ? {} : await discover(store, options, held);
    const discovered = Object.keys(found).length;
    const entries = got
      ? parsed(MONOLITH_KEY, () => parseMonolith(got.body))
      : { ...held, ...found };
    const groups = new Map<string, Record<string, IndexEntry>>();
    for (const [p, e] of Object.entries(entries)) {
      const s = shardOf(p);
      let g = groups.get(s);
      if (!g) groups.set(s, g = {});
      g[p] = e;
    }
    const fromEntries = got !== null || discovered > 0;
    const created = fromEntries
      ? await writeShards(store, groups, listed, marked, mark.movingToV2, now(), c)
      : new Map();
    if (!created) continue;
    const partitions = fromEntries ? [...groups.keys()].sort() : [...listed.keys()].sort();
    const meta = { version: 2 as const, partitions, commitSeq: 1, raw: {} };
    // Its shards are left: the move holding the lock now may have written
    // one again with the same bytes, which a store whose versions are
    // content hashes (S3's ETags) gives the same version, so a conditional
    // delete could remove that move's shard. The move rewrites or deletes
    // every shard it lists, and no reader reads one no meta lists.
    if (options.lockLost?.()) throw moveLockLost();
    // Refused when the meta changed meanwhile (a v1 companion write, or
    // another move): start over from it.
    if (!await casPut(store, META_KEY, metaBody(meta), marked, c)) {
      // Refused, or landed with its answer lost (the retry then met it).
      const current = await readMeta(store, c);
      const landed = current?.meta.version === 2 && current.meta.commitSeq === 1 &&
        current.meta.partitions.join("\n") === partitions.join("\n");
      if (!landed) {
        await dropCreated(store, created, current, mark.movingToV2, c);
        continue;
      }
    }
    // Also when there was no index object to move: a v1 commit may have
    // created one since it was read.
    const left = await catchUp(store, entries, got?.version ?? null, options);
    // The existing clients' fast path, in a clone last synced on v1, compares
    // the index object's ETag (or generation), which no v2 commit changes:
    // written again with other bytes (a newline more or less, the same
    // entries), it sends each such clone to its full pull, which reads the
    // shards, once. Never over a commit that wrote it meanwhile (its version
    // changed all the same).
    if (left) await casPut(store, MONOLITH_KEY, toggledNewline(left.body), left.version, c);
    if (discovered > 0) options.discovery?.landed?.(discovered);
    const after = await readMeta(store, c);
    const final = after?.meta.version === 2 ? after.meta : meta;
    return {
      version: 2,
      partitions: [...final.partitions],
      commitSeq: final.commitSeq,
      migrated: true,
      entries: Object.keys(entries).length,
    };
  }
  throw busy(META_KEY);
}

/**
 * The entries of the objects a bucket with no index object holds (see
 * {@link MigrateOptions.discovery}), but at the paths its shards name
 * (`named`).
 */
async function discover(
  store: ObjectStore,
  o: MigrateOptions,
  named: Record<string, IndexEntry>,
): Promise<Record<string, IndexEntry>> {
  // An entry recording no object version (another tool's, found by the move
  // that was cut off) is found again, as the object is now.
  const own = new Set(Object.keys(named).filter((p) => !isUnversioned(named[p])));
  if (o.discovery) return await o.discovery.find(own);
  return (await discoverEntries(store, o.retry, o.signal, o.concurrency ?? 4, own)).entries;
}

/**
 * Every entry of the shards `listed` (partition to version), or null when
 * one of them is gone or changed since it was listed (the move starts over).
 */
async function shardEntries(
  store: ObjectStore,
  listed: ReadonlyMap<string, string>,
  c: { retry: RetryPolicy; signal?: AbortSignal; concurrency?: number },
): Promise<Record<string, IndexEntry> | null> {
  const out: Record<string, IndexEntry> = {};
  let changed = false;
  await eachLimit([...listed], c.concurrency ?? 4, async ([s, v]) => {
    const key = shardKey(s);
    const got = await getOrNull(store, key, c);
    if (!got || got.version !== v) {
      changed = true;
      return;
    }
    // One no reader can read fails the move as it fails them (never a retry).
    const entries = parsed(key, () => parseShard(got.body) ?? unknownShard());
    Object.assign(out, entries);
  });
  return changed ? null : out;
}

function unknownShard(): never {
  throw new Error("not a shard of a known version");
}

/**
 * A mark no earlier meta carried (a store whose version is a hash of the
 * body, such as an S3 ETag, would otherwise see the same version again).
 */
function moveId(): string {
  return crypto.randomUUID();
}

/**
 * Writes the shards of `groups` over the versions `listed` (a shard listed
 * there and not in `groups`, one an earlier attempt wrote from an older
 * read, is deleted: v2 readers read `_unpartitioned` whether listed or not,
 * and a v2 commit builds on any shard it finds). Returns the shards it
 * created (key to version), or null when a write was refused: someone
 * changed the shards since they were listed (another move or a v1 commit),
 * and the attempt starts over.
 *
 * Writes and deletions over listed versions go first. Shards none was
 * listed for are created last, each only while the meta still carries this
 * attempt's mark (a create cannot be fenced by a version), and those created
 * are deleted again (if unchanged) when a later write is refused.
 */
async function writeShards(
  store: ObjectStore,
  groups: ReadonlyMap<string, Record<string, IndexEntry>>,
  listed: ReadonlyMap<string, string>,
  marked: string,
  moveMark: string,
  at: string,
  c: { retry: RetryPolicy; signal?: AbortSignal; concurrency?: number },
): Promise<Map<string, string> | null> {
  const limit = c.concurrency ?? 4;
  let refused = false;
  const step = async (fn: () => Promise<unknown>) => {
    if (!refused && !await fn()) refused = true;
  };
  await eachLimit(
    [...groups].filter(([s]) => listed.has(s)),
    limit,
    ([s, g]) => step(() => casPut(store, shardKey(s), shardBody(g, at), listed.get(s)!, c)),
  );
  await eachLimit(
    [...listed].filter(([s]) => !groups.has(s)),
    limit,
    ([s, v]) => step(() => casDelete(store, shardKey(s), v, c)),
  );
  const created = new Map<string, string>();
  await eachLimit(
    [...groups].filter(([s]) => !listed.has(s)),
    limit,
    ([s, g]) =>
      step(async () => {
        if ((await readMeta(store, c))?.version !== marked) return false;
        const v = await casPut(store, shardKey(s), shardBody(g, at), null, c);
        if (v !== null) created.set(s, v);
        return v !== null;
      }),
  );
  if (!refused) return created;
  await dropCreated(store, created, created.size ? await readMeta(store, c) : null, moveMark, c);
  return null;
}

/**
 * Deletes the shards an attempt created, each only while unchanged: one of
 * its older read, left under the meta of a move that replaced it, would be
 * built on by the next v2 commit of its partition. (When the attempt was
 * refused by a v1 commit instead, the next attempt writes them again.)
 */
async function dropCreated(
  store: ObjectStore,
  created: ReadonlyMap<string, string>,
  meta: Awaited<ReturnType<typeof readMeta>>,
  moveMark: string,
  c: { retry: RetryPolicy; signal?: AbortSignal; concurrency?: number },
): Promise<void> {
  // Another move marked the meta since: it may have written one of these
  // shards again with the same bytes, which a store whose versions are
  // content hashes (S3's ETags) gives the same version, so a conditional
  // delete could remove that move's shard. They are left to it: it rewrites
  // or deletes every shard it lists, and no reader reads one no meta lists.
  if (
    meta?.meta.version === 1 && meta.meta.movingToV2 !== undefined &&
    meta.meta.movingToV2 !== moveMark
  ) {
    return;
  }
  // Never one a v2 meta (`meta`, read after the refusal) lists: another
  // move writes every shard it lists, so a listed shard still at the version
  // created here is this attempt's own, under its own meta (a write that
  // landed with its answer lost).
  const listed = new Set(meta?.meta.version === 2 ? meta.meta.partitions : []);
  await eachLimit(created, c.concurrency ?? 4, async ([s, v]) => {
    if (!listed.has(s)) await casDelete(store, shardKey(s), v, c);
  });
}

/**
 * Applies to the shards what changed in the v1 index since version `read`
 * was migrated (`null`: there was none, so all of it); returns the v1 index
 * object as it read it (null when there is none).
 */
async function catchUp(
  store: ObjectStore,
  migrated: Record<string, IndexEntry>,
  read: string | null,
  options: MigrateOptions,
): Promise<GetResult | null> {
  const c = { retry: options.retry, signal: options.signal };
  const got = await getOrNull(store, MONOLITH_KEY, c);
  if (!got || got.version === read) return got;
  const now = parsed(MONOLITH_KEY, () => parseMonolith(got.body));
  const set: Record<string, IndexEntry> = {};
  for (const [p, e] of Object.entries(now)) {
    const was = migrated[p];
    if (!was || was.v !== e.v || was.h !== e.h || was.s !== e.s) set[p] = e;
  }
  const remove = Object.keys(migrated).filter((p) => !Object.hasOwn(now, p));
  // Replayed after the move: a v2 commit may have overtaken any of these
  // since. A set is applied only while its object is in the store, and a
  // removal only while the entry still names what the v1 commit removed.
  const base = Object.fromEntries(remove.map((p) => [p, migrated[p].v]));
  // Sets whose objects are gone by the commit are told after it (the v2
  // index has never named them: the commit names what is still there first).
  let gone: string[] = [];
  await updateIndex(
    store,
    { set, remove, base, verify: true },
    options.retry,
    options.signal,
    undefined,
    options.concurrency,
    options.clock,
    (_base, _complete, _foreign, unpublished) => {
      gone = [...unpublished];
    },
  );
  // The check of a set's object comes before the shard write that names it:
  // the object may go in between, deleted by its writer back from a crash
  // (its commit landed, its answer lost), which found its upload named by no
  // v2 index, as none names it before this commit, and deleted it as its own
  // unnamed upload (see `dropOwnStranded` in service/push_delete.ts), or by
  // another tool. So each is looked at again after the commit, as an
  // adoption does (see `adoptStranded`): an entry naming an object gone now
  // is told with the others, then taken out while it still names that
  // version and the store holds nothing there.
  // Those found gone before the commit are told all the same when this
  // look fails (the move has finished: its failure is the move's).
  let late: string[] = [];
  try {
    late = await goneAfter(
      store,
      Object.keys(set).filter((p) => !gone.includes(p)),
      options,
    );
  } catch (e) {
    if (gone.length > 0) await options.onUnnamed?.(gone.map((p) => [p, set[p]]));
    throw e;
  }
  const unnamed = [...gone, ...late];
  try {
    if (unnamed.length > 0) await options.onUnnamed?.(unnamed.map((p) => [p, set[p]]));
  } finally {
    // Taken out even when telling failed: the index never names an object that is gone.
    if (late.length > 0) {
      await updateIndex(
        store,
        {
          set: {},
          remove: late,
          base: Object.fromEntries(late.map((p) => [p, set[p].v])),
          verify: true,
        },
        options.retry,
        options.signal,
        undefined,
        options.concurrency,
        options.clock,
      );
    }
  }
  return got;
}

/** The paths of `paths` at which the store holds nothing now. */
async function goneAfter(
  store: ObjectStore,
  paths: readonly string[],
  options: MigrateOptions,
): Promise<string[]> {
  const out: string[] = [];
  await eachLimit(paths, options.concurrency ?? 4, async (p) => {
    const held = await withRetry(
      () => store.head(p, { signal: options.signal }),
      options.retry,
      options.signal,
    );
    if (!held) out.push(p);
  });
  return out.sort();
}

/** The same JSON with a final newline added, or taken off when it has one. */
export function toggledNewline(body: Uint8Array): Uint8Array {
  if (body.length > 0 && body[body.length - 1] === 0x0a) return body.subarray(0, body.length - 1);
  const out = new Uint8Array(body.length + 1);
  out.set(body);
  out[body.length] = 0x0a;
  return out;
}
