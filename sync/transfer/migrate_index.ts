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
 * The shard writes are in `migrate_shards.ts`, the catch-up of racing v1
 * commits in `migrate_catch_up.ts`.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import {
  type IndexEntry,
  isUnversioned,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  parseMonolith,
  shardOf,
} from "./bucket_layout.ts";
import {
  busy,
  casPut,
  CONFLICT_LIMIT,
  getOrNull,
  listShards,
  parsed,
  readMeta,
} from "./index_io.ts";
import type { IndexDiscovery } from "./remote_index.ts";
import { discoverEntries } from "./index_discovery.ts";
import { dropCreated, shardEntries, writeShards } from "./migrate_shards.ts";
import { catchUp } from "./migrate_catch_up.ts";

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
 * A mark no earlier meta carried (a store whose version is a hash of the
 * body, such as an S3 ETag, would otherwise see the same version again).
 */
function moveId(): string {
  return crypto.randomUUID();
}

/** The same JSON with a final newline added, or taken off when it has one. */
export function toggledNewline(body: Uint8Array): Uint8Array {
  if (body.length > 0 && body[body.length - 1] === 0x0a) return body.subarray(0, body.length - 1);
  const out = new Uint8Array(body.length + 1);
  out.set(body);
  out[body.length] = 0x0a;
  return out;
}
