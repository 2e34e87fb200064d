/**
 * The shard writes of a move to v2 (`migrate_index.ts`): reading the shards
 * a bucket with no index object holds (`shardEntries`), writing or deleting
 * every shard over the version listed after the move's mark (`writeShards`),
 * and deleting again the shards a refused attempt created (`dropCreated`).
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import { type IndexEntry, parseShard, shardBody, shardKey } from "./bucket_layout.ts";
import { casDelete, casPut, eachLimit, getOrNull, parsed, readMeta } from "./index_io.ts";

/**
 * Every entry of the shards `listed` (partition to version), or null when
 * one of them is gone or changed since it was listed (the move starts over).
 *
 * @example
 * ```ts
 * import { shardEntries } from "./migrate_shards.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * const entries = await shardEntries(new InMemoryStore(), new Map(), { retry });
 * console.log(entries); // {}
 * ```
 */
export async function shardEntries(
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
 *
 * @example
 * ```ts
 * import { writeShards } from "./migrate_shards.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * const groups = new Map([["_unpartitioned", {}]]);
 * const at = new Date().toISOString();
 * // null: the meta no longer carries the mark "m1" (here, there is no meta).
 * await writeShards(new InMemoryStore(), groups, new Map(), "v1", "m1", at, { retry });
 * ```
 */
export async function writeShards(
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
 *
 * @example
 * ```ts
 * import { dropCreated } from "./migrate_shards.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * await dropCreated(new InMemoryStore(), new Map(), null, "m1", { retry });
 * ```
 */
export async function dropCreated(
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
