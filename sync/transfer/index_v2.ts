/**
 * The commit of a change to a v2 index (touched shards by compare-and-swap,
 * then the meta's `commitSeq`), used by `updateIndex` and by a v1 commit
 * that finds the bucket turned v2.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import {
  type IndexEntry,
  markerOfVersionFile,
  type Meta,
  META_KEY,
  metaBody,
  shardBody,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";
import {
  busy,
  type Call,
  casPut,
  CONFLICT_LIMIT,
  conflictPause,
  eachLimit,
  listShards,
  readMeta,
  readShardOrNull,
} from "./index_io.ts";
import { apply, type HeldObject } from "./index_apply.ts";
import type { IndexMemo, MetaSeen, ShardsSeen } from "./index_memo.ts";
import type { IndexChange, OnCommit } from "./remote_index.ts";

/** Applies a change to a v2 index: each touched shard by compare-and-swap, then the meta's `commitSeq`. */
export async function updateV2(
  store: ObjectStore,
  change: IndexChange,
  c: Call,
  now: string,
  seen: MetaSeen | undefined,
  onCommit?: OnCommit,
  memo?: IndexMemo,
  retried = false,
  foreign?: Map<string, HeldObject | null>,
  unpublished?: Set<string>,
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
  // Each touched shard's version as read (null: absent) and as written
  // (null: not written): what this commit knows of the shards it touched.
  const read = new Map<string, string | null>();
  const wrote = new Map<string, string | null>();
  // A `latest` marker set beside files of its data in other shards waits for
  // their shards: a reader (or a crash between the shard writes) never finds
  // the marker naming files no shard lists yet, and if files found in place
  // go unpublished (see `apply`), the marker is held back with them. Its
  // shard is written after the others.
  const waiting = new Map<string, string[]>();
  for (const p of Object.keys(change.set)) {
    const marker = markerOfVersionFile(p);
    if (!marker || !Object.hasOwn(change.set, marker) || shardOf(marker) === shardOf(p)) continue;
    waiting.set(marker, [...waiting.get(marker) ?? [], p]);
  }
  const later = new Set([...waiting.keys()].map(shardOf));
  const applyShard = async (part: string) => {
    const own: IndexChange = {
      ...parts.get(part)!,
      base: change.base,
      baseHash: change.baseHash,
      baseSize: change.baseSize,
      verify: change.verify,
      check: change.check,
      baseGone: change.baseGone,
      namedBase: change.namedBase,
      keptBase: change.keptBase,
      foundGone: change.foundGone,
      removeHeld: change.removeHeld,
      checkCreates: change.checkCreates,
      clashing: change.clashing,
      besideElsewhere: change.besideElsewhere,
    };
    for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
      if (attempt > 0) await conflictPause(attempt, c);
      const cur = await readShardOrNull(store, part, c);
      const entries = cur?.entries ?? {};
      // Found empty: a peer emptied it and may be about to drop it from the meta.
      const found = Object.keys(entries).length > 0;
      // After a refused index write (`retried`: an earlier round's, of v1 or
      // v2, may have landed with its answer lost) as after a refused shard.
      const all = await apply(
        store,
        c,
        entries,
        own,
        retried || attempt > 0,
        foreign,
        undefined,
        unpublished,
      );
      if (!all) complete = false;
      if (Object.keys(entries).length === 0) {
        // An emptied shard is written empty, not deleted, and then dropped
        // from the meta: a crash in between leaves the meta listing a shard
        // that is there (and empty), never a missing one readers refuse.
        const empty = shardBody({}, now);
        const v = cur ? await casPut(store, shardKey(part), empty, cur.version, c) : null;
        if (!cur || v) {
          emptied.add(part);
          read.set(part, cur?.version ?? null);
          wrote.set(part, v);
          return;
        }
        continue;
      }
      const v = await casPut(
        store,
        shardKey(part),
        shardBody(entries, now),
        cur?.version ?? null,
        c,
      );
      if (v) {
        kept.add(part);
        if (!found) created.add(part);
        read.set(part, cur?.version ?? null);
        wrote.set(part, v);
        return;
      }
    }
    throw busy(shardKey(part));
  };
  // True when a meta's partitions list what this change needs: every shard
  // it wrote, none it emptied (and it created none a peer may drop).
  const lists = (partitions: readonly string[]) => {
    const has = new Set(partitions);
    return created.size === 0 && [...kept].every((p) => has.has(p)) &&
      ![...emptied].some((p) => has.has(p));
  };
  // The meta's compare-and-swap bump: the commit's last write (`final`), or,
  // ahead of `later` shards, one that lists the shards created so far.
  const bumpMeta = async (final: boolean): Promise<string> => {
    // The meta read after a refusal by an old client's bump, for the next attempt.
    let reread: MetaSeen | undefined;
    for (let attempt = 0; attempt < CONFLICT_LIMIT; attempt++) {
      // A meta seen before the shards (read first, or remembered) serves the
      // first attempt (its compare-and-swap fails if it moved meanwhile);
      // without one, and after a conflict, it is read now, after the shards.
      if (attempt > 0) await conflictPause(attempt, c);
      const fresh = attempt > 0 || !seen;
      const m = reread ?? (fresh ? await readMeta(store, c) : seen);
      reread = undefined;
      if (m?.meta.version !== 2) throw NOT_V2;
      const partitions = new Set(m.meta.partitions);
      const listed = lists(m.meta.partitions);
      for (const p of emptied) {
        // Dropped only while still empty: a peer may have written entries
        // into it since this change emptied it (and bumped the meta already).
        if (!partitions.has(p)) continue;
        const now = await readShardOrNull(store, p, c);
        if (!now || Object.keys(now.entries).length === 0) partitions.delete(p);
      }
      for (const p of kept) {
        // After a refusal, a shard this change wrote may be gone: a peer
        // emptied it (its removal came after this change) and deleted it. A
        // meta never lists a missing shard: readers would refuse the index.
        if (attempt > 0 && !partitions.has(p) && !await readShardOrNull(store, p, c)) continue;
        partitions.add(p);
      }
      // The unpartitioned shard, dropped from the meta by an old client's
      // push (it lists only the partitions it computes), is listed again
      // while it holds entries, so that old clients see those files; a
      // meta never lists a missing shard, so it is read first (this only
      // when the last index this cache read under this meta held it).
      if (
        !partitions.has(UNPARTITIONED) && !emptied.has(UNPARTITIONED) &&
        (await memo?.shardsAt(m.version))?.versions[UNPARTITIONED] !== undefined
      ) {
        const shard = await readShardOrNull(store, UNPARTITIONED, c);
        if (shard && Object.keys(shard.entries).length > 0) partitions.add(UNPARTITIONED);
      }
      const seq = nextCommitSeq(m.meta, (await memo?.highestSeq()) ?? 0, Date.parse(now));
      const next: Meta = {
        ...m.meta,
        partitions: [...partitions],
        commitSeq: seq,
        raw: { ...m.meta.raw, [SLUICE_SEQ]: seq },
      };
      const v = await casPut(store, META_KEY, metaBody(next), m.version, c);
      if (v) {
        memo?.noteShards(await shardsAfter(memo, m.version, v, read, wrote));
        memo?.noteMeta({ meta: next, version: v });
        if (attempt > 0 && memo) memo.contended = true;
        if (!final) {
          // The final bump's first attempt builds on it.
          seen = { meta: next, version: v };
          return v;
        }
        onCommit?.(`v2:${m.version}`, complete, foreign ?? new Map(), unpublished ?? new Set());
        return `v2:${v}`;
      }
      // Refused on a meta read after every shard of this change landed: a peer
      // bumped `commitSeq` since that read, so after these shards. A reader
      // that sees its meta reads these shards too, and one holding an older
      // `commitSeq` reads again: that bump publishes this change as well, when
      // its partitions already list what this change needs. Writers of
      // different models thus meet on the meta at most twice per commit. Not
      // for a shard this change created: a peer that emptied and deleted it
      // before may still be about to drop it from the meta. And only when that
      // bump is Sluice's: an old client takes its own bump for the index it
      // read (its next pulls skip on that `commitSeq`) and would never read
      // this change, so after an old client's bump this commit bumps again.
      if (final && fresh && listed) {
        const after = await readMeta(store, c);
        if (
          after?.meta.version === 2 && bumpedBySluice(after.meta) && lists(after.meta.partitions)
        ) {
          memo?.noteMeta(after);
          if (memo) memo.contended = true;
          // Published by that bump: told as a commit on an index not known.
          onCommit?.(null, false, foreign ?? new Map(), unpublished ?? new Set());
          return COVERED;
        }
        reread = after ?? undefined;
      }
    }
    throw busy(META_KEY);
  };
  await eachLimit([...parts.keys()].filter((p) => !later.has(p)), c.concurrency ?? 4, applyShard);
  if (later.size > 0) {
    for (const [marker, files] of waiting) {
      if (!files.some((p) => unpublished?.has(p) || foreign?.has(p) || change.clashing?.has(p))) {
        continue;
      }
      delete parts.get(shardOf(marker))!.set[marker];
      unpublished?.add(marker);
      complete = false;
    }
    const left = [...later].filter((p) => {
      const part = parts.get(p)!;
      return part.remove.length > 0 || Object.keys(part.set).length > 0;
    });
    // A shard written above that the meta does not list (created here, or
    // written by a peer cut off before its own bump) is read only once the
    // meta lists it, while the markers' shards may be listed already: the
    // meta lists it first, so that a commit cut off before its last bump
    // never shows a marker whose files no listed shard names.
    if (left.length > 0 && kept.size > 0) {
      const listed = new Set((seen ?? await readMeta(store, c))?.meta.partitions ?? []);
      if (created.size > 0 || [...kept].some((p) => !listed.has(p))) await bumpMeta(false);
    }
    await eachLimit(left, c.concurrency ?? 4, applyShard);
  }
  return await bumpMeta(true);
}

/**
 * The shard versions of the index under the meta this commit wrote (`at`),
 * as far as this commit knows them: those of the index under the meta it
 * was based on (`base`, when the memo knows them), with this commit's own
 * shard writes. Unknown when a shard it touched was not at the version
 * known (a peer wrote it since that index was read: this commit built on
 * entries the cache never saw). Shards it did not touch may have changed
 * too, by a peer whose meta bump this one overtook or that was cut off: a
 * cache that takes the result for the index it reflects checks it with one
 * listing of the shards first (see {@link shardsMatch}).
 */
async function shardsAfter(
  memo: IndexMemo | undefined,
  base: string,
  at: string,
  read: ReadonlyMap<string, string | null>,
  wrote: ReadonlyMap<string, string | null>,
): Promise<ShardsSeen | undefined> {
  const known = (await memo?.shardsAt(base))?.versions;
  if (!known) return undefined;
  for (const [p, v] of read) if ((known[p] ?? null) !== v) return undefined;
  const versions: Record<string, string> = { ...known };
  for (const [p, v] of wrote) {
    if (v === null) delete versions[p];
    else versions[p] = v;
  }
  return { at, versions };
}

/**
 * True when the shards a reader of `meta` reads (those it lists, and
 * `_unpartitioned`) are at `versions` now (one listing of `_index/`): no
 * peer's shard write is published under `meta` that `versions` leave out.
 */
export async function shardsMatch(
  store: ObjectStore,
  meta: Meta,
  versions: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<boolean> {
  const now = await listShards(store, signal);
  for (const p of new Set([...meta.partitions, UNPARTITIONED])) {
    if ((now.get(p) ?? null) !== (versions[p] ?? null)) return false;
  }
  return true;
}

/**
 * The field of a v2 meta naming the `commitSeq` Sluice last wrote: equal to
 * `commitSeq` when the meta's last bump was Sluice's (a writer that checks
 * what its bump published, see {@link shardsAfter}). Old clients write the
 * meta afresh (or keep the field, which then names an older number).
 */
export const SLUICE_SEQ = "sluiceSeq";

/**
 * The `commitSeq` a commit over `meta` writes: the next one, unless `meta`
 * went back (below `highest`, the highest this cache saw, or below the
 * number Sluice last wrote there): a writer put back an older meta, and old
 * clients may have recorded numbers above what this cache saw, which the
 * next one would repeat; their fast path would then pass over this commit.
 * Then it jumps to the commit's time in milliseconds (`nowMs`), past any
 * number counted up one commit at a time since an earlier such jump, and
 * past `highest`.
 */
export function nextCommitSeq(meta: Meta, highest: number, nowMs: number): number {
  if (meta.version !== 2) return 1;
  const own = meta.raw?.[SLUICE_SEQ];
  const top = Math.max(highest, Number.isSafeInteger(own) ? own as number : 0);
  if (top <= meta.commitSeq) return meta.commitSeq + 1;
  return Math.max(top + 1, Number.isSafeInteger(nowMs) ? nowMs : 0);
}

/** True when the last bump of `meta` was Sluice's (see {@link SLUICE_SEQ}). */
export function bumpedBySluice(meta: Meta): boolean {
  return meta.version === 2 && meta.raw?.[SLUICE_SEQ] === meta.commitSeq;
}

/** Thrown by `updateV2` when the meta is not (or no longer) a v2 one: the update starts over. */
export const NOT_V2 = new Error("the bucket's index is not v2");

/**
 * The token `updateIndex` returns for a v2 change published by a peer's
 * `commitSeq` bump (its own was refused): names no meta version, so the
 * next pull reads the index.
 */
export const COVERED = "v2:covered";
