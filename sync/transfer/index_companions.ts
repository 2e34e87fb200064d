/**
 * The companions of a v1 index object: the shards of the partitions a
 * commit touched and a v1 meta, written as other clients of the layout do,
 * for their scoped readers.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import {
  type IndexEntry,
  markerOfVersionFile,
  type Meta,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  parseMonolith,
  shardBody,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";
import {
  type Call,
  casDelete,
  casPut,
  CONFLICT_LIMIT,
  conflictPause,
  eachLimit,
  getOrNull,
  parsed,
  readMeta,
} from "./index_io.ts";
import type { HeldObject } from "./index_apply.ts";
import { NOT_V2, updateV2 } from "./index_v2.ts";
import type { IndexChange } from "./remote_index.ts";

/**
 * A v1 commit's change as carried into a bucket that turned v2: checked
 * against the store, path by path (`verify`), since v2 commits may have
 * deleted, replaced or created again what it names.
 */
function replayed(change: IndexChange): IndexChange {
  // What the v1 commit left out beside the other shape stays its own record.
  return { ...change, verify: true, clashing: undefined };
}

/** What the v2 index could not take from a v1 commit's change (see {@link replayIntoV2}). */
export interface Unnamed {
  /** Paths not named, with what the store holds there (null: nothing): kept as conflicts. */
  readonly foreign: Map<string, HeldObject | null>;
  /**
   * Paths held back as a commit alone holds them back: bytes the change
   * found in place that are gone (another writer's upload, never committed),
   * and a `latest` marker of the change held back with them. Not published,
   * nobody's deletion: their writer keeps them dirty and writes them again.
   */
  readonly unpublished: Set<string>;
}

/**
 * Carries a v1 commit's change into the v2 index (see {@link replayed}).
 * Returns the paths it could not carry: in `foreign`, with what the store
 * holds there (null: nothing), a set whose object is gone (deleted outside
 * Sluice, or by a peer, since the upload), or a path another writer's object
 * replaced (beside old clients, every conditional path is checked as
 * possibly theirs). None is named there, and their writer must not take
 * them for published (its copy may be the last): it keeps each as a
 * conflict. In `unpublished`, bytes the change found in place that are gone
 * and a marker held back with them: as a v1 or v2 commit alone leaves them.
 * Taken for a deletion, such a marker would have its writer delete its own
 * upload as left over a peer's deletion, while the index still names the
 * committed marker that upload replaced (chaos seed 216500802).
 */
async function replayIntoV2(
  store: ObjectStore,
  change: IndexChange,
  c: Call,
  now: string,
  seen: Awaited<ReturnType<typeof readMeta>>,
): Promise<Unnamed> {
  const foreign = new Map<string, HeldObject | null>();
  const unpublished = new Set<string>();
  try {
    await updateV2(
      store,
      replayed(change),
      c,
      now,
      seen ?? undefined,
      undefined,
      undefined,
      false,
      foreign,
      unpublished,
    );
  } catch (e) {
    if (e !== NOT_V2) throw e;
  }
  const checked = new Set(change.check ?? []);
  const lost = [...unpublished].filter((p) => checked.has(p));
  const held = new Set(lost);
  for (const p of lost) {
    const marker = markerOfVersionFile(p);
    if (marker && unpublished.has(marker)) held.add(marker);
  }
  for (const p of unpublished) if (!held.has(p)) foreign.set(p, null);
  return { foreign, unpublished: held };
}

/** The partitions a change touches that have a shard of their own. */
export function touchedShards(change: IndexChange): Set<string> {
  const touched = new Set<string>();
  const add = (p: string) => {
    const s = shardOf(p);
    if (s !== UNPARTITIONED) touched.add(s);
  };
  for (const p of change.remove) add(p);
  for (const p of Object.keys(change.set)) add(p);
  return touched;
}

/** Companion writes are a convenience: one attempt each, no retries. */
const ONCE: RetryPolicy = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/**
 * The version of each shard (null: absent), or undefined where its HEAD
 * failed (that shard is then left as it is). Never rejects.
 */
export async function shardVersions(
  store: ObjectStore,
  shards: ReadonlySet<string>,
  c: Call,
): Promise<Map<string, string | null | undefined>> {
  const seen = new Map<string, string | null | undefined>();
  await eachLimit(shards, c.concurrency ?? 4, async (s) => {
    seen.set(
      s,
      await store.head(shardKey(s), { signal: c.signal }).then(
        (h) => h?.version ?? null,
        () => undefined,
      ),
    );
  });
  return seen;
}

/**
 * Beside a v1 index: the shards of the touched partitions (built from the
 * whole index) and a v1 meta listing every partition, unless the bucket has
 * turned v2 meanwhile; then the change is applied to the v2 index too, so it
 * is never invisible to v2 readers. Shards of a v1 bucket are a convenience
 * for scoped readers: failures to write them are ignored, as other clients do.
 *
 * Each shard is written (or, emptied, deleted) only while it is at the
 * version `seen` read before the meta: a v2 commit writes a shard only once
 * a v2 meta exists, so after a meta read that found v1, and a write from
 * this commit's older view never lands over it (the move to v2 may complete
 * while this commit stalls). A refused shard write sends the change to the
 * v2 index when the bucket has turned v2. Returns the paths the v2 index
 * could not take from the change (see {@link replayIntoV2}); none on a v1
 * bucket.
 */
export async function writeCompanions(
  store: ObjectStore,
  entries: Record<string, IndexEntry>,
  change: IndexChange,
  c: Call,
  now: string,
  seen: ReadonlyMap<string, string | null | undefined>,
  written: string,
): Promise<Unnamed> {
  const m = await readMeta(store, c);
  if (m?.meta.version === 2) {
    return await replayIntoV2(store, change, c, now, m);
  }
  const byShard = new Map<string, Record<string, IndexEntry>>();
  for (const [p, e] of Object.entries(entries)) {
    const s = shardOf(p);
    if (s === UNPARTITIONED) continue;
    let group = byShard.get(s);
    if (!group) byShard.set(s, group = {});
    group[p] = e;
  }
  const next: Meta = { version: 1, partitions: [...byShard.keys()] };
  const body = metaBody(next);
  // A move to v2 marked the meta: rewriting it before anything else makes
  // that move start over and read this commit (migrate_index.ts). Not a
  // convenience: its failure fails the commit, and the paths stay dirty.
  const marked = m?.meta.version === 1 && m.meta.movingToV2 !== undefined;
  let refused = marked && !await casPut(store, META_KEY, body, m!.version, c);
  // Shards whose write was refused: changed since `seen`.
  const stale: string[] = [];
  // Shards this commit created: unguarded by a version, so checked below.
  const created: string[] = [];
  try {
    if (!refused) {
      await eachLimit(seen.keys(), c.concurrency ?? 4, async (s) => {
        const at = seen.get(s);
        if (at === undefined) return;
        const group = byShard.get(s);
        if (at === null && !hasEntries(group)) {
          // Emptied here, and absent when read: an older commit stopped
          // before its companions may have created it since, from a view
          // that still has what this commit removed. Looked at again now,
          // after this commit's index write: if it is there, it is refreshed.
          const there = await store.head(shardKey(s), { signal: c.signal }).catch((e) => {
            if (c.signal?.aborted) throw e;
            return null;
          });
          if (there) stale.push(s);
          return;
        }
        if (!await writeShard(store, s, group, at, now, c)) stale.push(s);
        else if (at === null) created.push(s);
      });
    }
    // Left as it is when unchanged (and written already when marked).
    const same = m && new TextDecoder().decode(metaBody(m.meta)) === new TextDecoder().decode(body);
    if (!marked && !same) refused = !await casPut(store, META_KEY, body, m?.version ?? null, c);
    // A created shard holds this commit's view: when a later commit wrote
    // the index object before the shard landed (this commit stopped in
    // between), that commit may have found no shard to update, so the
    // shard is brought up to date from the index as it is now.
    if (created.length > 0 && !await indexStillAt(store, written, c)) stale.push(...created);
  } catch (e) {
    if (c.signal?.aborted) throw e;
  }
  const turned = stale.length > 0 &&
    await refreshCompanions(store, stale, c, now).catch((e) => {
      if (c.signal?.aborted) throw e;
      return false;
    });
  if (!refused && !turned) return none();
  // The meta changed since it was read, or a shard was written after it: a
  // move to v2 may have turned the bucket after reading the index without
  // this commit, or before this commit's shard writes. The change then goes
  // to the v2 index too (its failure fails the commit: the paths stay dirty).
  const now2 = await readMeta(store, c);
  if (now2?.meta.version !== 2) return none();
  return await replayIntoV2(store, change, c, now, now2);
}

/** Nothing left unnamed. */
function none(): Unnamed {
  return { foreign: new Map(), unpublished: new Set() };
}

function hasEntries(
  group: Record<string, IndexEntry> | undefined,
): group is Record<string, IndexEntry> {
  return group !== undefined && Object.keys(group).length > 0;
}

/** True when the index object is still at `version` (a failed HEAD counts as moved on). */
async function indexStillAt(store: ObjectStore, version: string, c: Call): Promise<boolean> {
  const head = await store.head(MONOLITH_KEY, { signal: c.signal }).catch((e) => {
    if (c.signal?.aborted) throw e;
    return null;
  });
  return head?.version === version;
}

/**
 * Writes a companion shard over version `at` (null: only where none is), or,
 * for a partition whose last entry went, deletes it at `at`, so no scoped
 * reader finds it stale. One attempt; false when the shard is not at `at`.
 */
async function writeShard(
  store: ObjectStore,
  s: string,
  group: Record<string, IndexEntry> | undefined,
  at: string | null,
  now: string,
  c: Call,
): Promise<boolean> {
  const once = { ...c, retry: ONCE };
  return hasEntries(group)
    ? await casPut(store, shardKey(s), shardBody(group, now), at, once) !== null
    : at === null || await casDelete(store, shardKey(s), at, once);
}

/**
 * Companion shards whose write was refused (each changed since it was
 * read): by another v1 commit, whose view of the index may be older or
 * newer than this one's, or, once the bucket has turned v2, by the move or a
 * v2 commit. Each round reads the shards' versions again, then the meta,
 * then the index object once, and writes every shard still refused from the
 * index as it is now, while the bucket is v1 (a few rounds: they stay a
 * convenience). True when the bucket has turned v2 meanwhile.
 */
async function refreshCompanions(
  store: ObjectStore,
  shards: readonly string[],
  c: Call,
  now: string,
): Promise<boolean> {
  let left = [...shards];
  for (let attempt = 0; attempt < CONFLICT_LIMIT && left.length > 0; attempt++) {
    if (attempt > 0) await conflictPause(attempt, c);
    const seen = await shardVersions(store, new Set(left), c);
    const m = await readMeta(store, c);
    if (m?.meta.version === 2) return true;
    // A move that marked the meta after this commit's index write reads the
    // index after it, and writes every shard from it.
    if (m?.meta.movingToV2 !== undefined) return false;
    const got = await getOrNull(store, MONOLITH_KEY, c);
    const all = got ? parsed(MONOLITH_KEY, () => parseMonolith(got.body)) : {};
    const wanted = new Set(left);
    const groups = new Map<string, Record<string, IndexEntry>>();
    for (const [p, e] of Object.entries(all)) {
      const s = shardOf(p);
      if (!wanted.has(s)) continue;
      let group = groups.get(s);
      if (!group) groups.set(s, group = {});
      group[p] = e;
    }
    const refused: string[] = [];
    const created: string[] = [];
    await eachLimit(left, c.concurrency ?? 4, async (s) => {
      const at = seen.get(s);
      if (at === undefined) return; // its HEAD failed: left as it is
      if (!await writeShard(store, s, groups.get(s), at, now, c)) refused.push(s);
      else if (at === null && hasEntries(groups.get(s))) created.push(s);
    });
    // A shard created from an index object another commit has replaced since: once more.
    if (created.length > 0 && !(got && await indexStillAt(store, got.version, c))) {
      refused.push(...created);
    }
    left = refused;
  }
  return false;
}
