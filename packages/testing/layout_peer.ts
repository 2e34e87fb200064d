/**
 * A stand-in for another client of the shared bucket layout, written from
 * the layout's rules alone (not from Sluice's reader): it builds fixture
 * buckets the way such a client leaves them, reads the index the way such a
 * client does, and pushes the way it does (a plain put of the object, then a
 * read-modify-write of the index). Tests use it to check that Sluice and
 * other clients of one bucket see each other's writes.
 *
 * @module
 */
import type { ObjectStore } from "../../sync/ports.ts";
import { PutModes } from "../../sync/ports.ts";
import { sha256Hex } from "../../sync/hash.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** An index entry as other clients write it. */
export interface PeerEntry {
  key: string;
  size: number;
  lastModified: string;
  localMtime?: string;
  sha256?: string;
  [extra: string]: unknown;
}

async function getJson(store: ObjectStore, key: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(dec((await store.get(key)).body));
  } catch (e) {
    if ((e as { code?: string }).code === "not_found") return null;
    throw e;
  }
}

/** The layout's partition rule, restated independently for the peer. */
export function peerPartition(rel: string): string | undefined {
  const s = rel.split("/");
  if (s.length === 1) return s[0] ? "_root" : undefined;
  if (["data", "outputs", "definitions-evaluated"].includes(s[0])) {
    if (s.length < 4) return undefined;
    return s.slice(0, s.length >= 6 ? s.length - 3 : s.length - 1).join("--");
  }
  if (s[0] === "workflow-runs") return s.length >= 3 ? `workflow-runs--${s[1]}` : undefined;
  const own = ["workflows-evaluated", "auto-definitions", "audit", "telemetry", "logs", "files"];
  return own.includes(s[0]) ? s[0] : undefined;
}

/**
 * Reads the index as another client does: the listed shards when the meta is
 * version 2, else the v1 index object. Returns path → entry.
 */
export async function peerReadIndex(store: ObjectStore): Promise<Record<string, PeerEntry>> {
  const meta = await getJson(store, "_index/_meta.json");
  if (meta?.version === 2 && Array.isArray(meta.partitions)) {
    const out: Record<string, PeerEntry> = {};
    for (const p of meta.partitions as string[]) {
      const shard = await getJson(store, `_index/${p}.json`);
      if (!shard) throw new Error(`shard ${p} listed but missing`);
      Object.assign(out, shard.entries as Record<string, PeerEntry>);
    }
    return out;
  }
  const mono = await getJson(store, ".datastore-index.json");
  return (mono?.entries as Record<string, PeerEntry>) ?? {};
}

/** `commitSeq` of a v2 meta, or `null` for a v1 bucket. */
export async function peerCommitSeq(store: ObjectStore): Promise<number | null> {
  const meta = await getJson(store, "_index/_meta.json");
  return meta?.version === 2 ? meta.commitSeq as number : null;
}

/**
 * Builds a fixture bucket as another client leaves it: the objects, and a v1
 * index object (with `v2`: shards, a v2 meta and no index object), entries
 * carrying size, times and (unless `noHash`) the SHA-256.
 */
export async function seedPeerBucket(
  store: ObjectStore,
  files: Record<string, string>,
  options: { v2?: boolean; noHash?: boolean; commitSeq?: number } = {},
): Promise<void> {
  const entries: Record<string, PeerEntry> = {};
  for (const [path, text] of Object.entries(files)) {
    await store.put(path, enc(text), PutModes.overwrite);
    entries[path] = {
      key: path,
      size: enc(text).length,
      lastModified: "2026-08-01T00:00:00.000Z",
      localMtime: "2026-08-01T00:00:00.000Z",
      ...(options.noHash ? {} : { sha256: await sha256Hex(enc(text)) }),
    };
  }
  if (!options.v2) {
    const body = { version: 1, lastPulled: "2026-08-01T00:00:00.000Z", entries };
    await store.put(".datastore-index.json", enc(JSON.stringify(body)), PutModes.overwrite);
    return;
  }
  const shards = new Map<string, Record<string, PeerEntry>>();
  for (const [p, e] of Object.entries(entries)) {
    const k = peerPartition(p);
    if (!k) continue; // such a client never indexes these in v2
    shards.set(k, { ...(shards.get(k) ?? {}), [p]: e });
  }
  for (const [k, group] of shards) {
    await store.put(
      `_index/${k}.json`,
      enc(JSON.stringify({ version: 1, entries: group })),
      PutModes.overwrite,
    );
  }
  const meta = {
    version: 2,
    partitions: [...shards.keys()].sort(),
    commitSeq: options.commitSeq ?? 1,
  };
  await store.put("_index/_meta.json", enc(JSON.stringify(meta)), PutModes.overwrite);
}

/**
 * Pushes files as another client does: a plain put of each object, then a
 * read-modify-write of the index (v1: the index object, then the touched
 * shards and a v1 meta beside it; v2: the touched shards and
 * `commitSeq + 1`). Entries it writes carry no Sluice fields.
 * `remove` lists paths it deletes: each object is deleted (unconditionally,
 * nothing there is no error), then its entry is dropped in the same index
 * rewrite. `afterRead` runs between its read of the index and its writes of
 * it (the window another client's commit may fall into); `now` stamps its
 * entries (default the system clock).
 */
export async function peerPush(
  store: ObjectStore,
  files: Record<string, string>,
  options: {
    readonly afterRead?: () => Promise<void>;
    readonly now?: () => number;
    readonly remove?: readonly string[];
  } = {},
): Promise<void> {
  const now = options.now ?? Date.now;
  const fresh: Record<string, PeerEntry> = {};
  for (const [path, text] of Object.entries(files)) {
    await store.put(path, enc(text), PutModes.overwrite);
    fresh[path] = {
      key: path,
      size: enc(text).length,
      lastModified: new Date(now()).toISOString(),
      sha256: await sha256Hex(enc(text)),
    };
  }
  const remove = options.remove ?? [];
  for (const path of remove) {
    try {
      await store.delete(path);
    } catch (e) {
      if ((e as { code?: string }).code !== "not_found") throw e;
    }
  }
  const meta = await getJson(store, "_index/_meta.json");
  if (meta?.version === 2) {
    const partitions = new Set(meta.partitions as string[]);
    const shards = new Map<string, Record<string, unknown>>();
    const shardOf = async (k: string) =>
      shards.get(k) ?? (await getJson(store, `_index/${k}.json`)) ?? { version: 1, entries: {} };
    for (const [p, e] of Object.entries(fresh)) {
      const k = peerPartition(p);
      if (!k) continue;
      const shard = await shardOf(k);
      (shard.entries as Record<string, PeerEntry>)[p] = e;
      shards.set(k, shard);
      partitions.add(k);
    }
    for (const p of remove) {
      const k = peerPartition(p);
      if (!k || !partitions.has(k)) continue;
      const shard = await shardOf(k);
      delete (shard.entries as Record<string, PeerEntry>)[p];
      shards.set(k, shard);
    }
    await options.afterRead?.();
    for (const [k, shard] of shards) {
      await store.put(`_index/${k}.json`, enc(JSON.stringify(shard)), PutModes.overwrite);
    }
    const next = {
      version: 2,
      partitions: [...partitions].sort(),
      commitSeq: (meta.commitSeq as number) + 1,
    };
    await store.put("_index/_meta.json", enc(JSON.stringify(next)), PutModes.overwrite);
    return;
  }
  const mono = (await getJson(store, ".datastore-index.json")) ??
    { version: 1, lastPulled: "", entries: {} };
  const all = mono.entries as Record<string, PeerEntry>;
  Object.assign(all, fresh);
  for (const p of remove) delete all[p];
  await options.afterRead?.();
  await store.put(".datastore-index.json", enc(JSON.stringify(mono)), PutModes.overwrite);
  // Beside the index object, as v1 writers do: the touched partitions'
  // shards, each rebuilt from the whole index, and a v1 meta listing every
  // partition (unless the meta is v2).
  const touched = new Set(
    [...Object.keys(fresh), ...remove].map(peerPartition).filter((k) => k !== undefined),
  );
  for (const k of touched) {
    const entries = Object.fromEntries(Object.entries(all).filter(([p]) => peerPartition(p) === k));
    await store.put(
      `_index/${k}.json`,
      enc(JSON.stringify({ version: 1, entries })),
      PutModes.overwrite,
    );
  }
  if ((await getJson(store, "_index/_meta.json"))?.version !== 2) {
    const partitions = [...new Set(Object.keys(all).map(peerPartition))]
      .filter((k) => k !== undefined).sort();
    await store.put(
      "_index/_meta.json",
      enc(JSON.stringify({ version: 1, partitions })),
      PutModes.overwrite,
    );
  }
}

/**
 * Pulls as another client does, for what its pull writes to the bucket: on
 * a v1 bucket it reads the index object, fetches each entry's object, and
 * where one is gone (a deletion on its way to the index, another tool's)
 * drops that entry and writes back the whole index it read, with no lock
 * and no compare-and-swap: a commit that landed between its read and its
 * write is dropped (or rolled back to the entry it read). On a v2 bucket
 * its pull writes nothing. `afterRead` runs between its read of the index
 * and its write, `afterWrite` once its write landed, with the entries it
 * wrote; also when its write failed, before the failure is thrown: a write
 * whose answer was lost may have landed all the same. Returns the paths
 * whose entries it dropped.
 */
export async function peerPull(
  store: ObjectStore,
  options: {
    readonly afterRead?: () => Promise<void>;
    readonly afterWrite?: (entries: Readonly<Record<string, PeerEntry>>) => Promise<void>;
  } = {},
): Promise<string[]> {
  if ((await getJson(store, "_index/_meta.json"))?.version === 2) return [];
  const mono = await getJson(store, ".datastore-index.json");
  if (!mono) return [];
  const entries = mono.entries as Record<string, PeerEntry>;
  const dropped: string[] = [];
  for (const path of Object.keys(entries)) {
    if (await store.head(path)) continue;
    delete entries[path];
    dropped.push(path);
  }
  await options.afterRead?.();
  if (dropped.length) {
    try {
      await store.put(".datastore-index.json", enc(JSON.stringify(mono)), PutModes.overwrite);
    } catch (e) {
      await options.afterWrite?.(entries);
      throw e;
    }
    await options.afterWrite?.(entries);
  }
  return dropped;
}
