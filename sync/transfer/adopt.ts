/**
 * Adopting a stranded write: publishing in the remote index an object
 * another writer uploaded but never committed (its push stopped between its
 * upload and its index update, and its writer is gone for good), as that
 * writer's change. Nothing is written over it: a peer that waited on it then
 * meets a committed change, a conflict it resolves as any other, and the
 * writer, if it comes back, finds its own change committed.
 *
 * A latest marker is adopted only when the version it names is in the index
 * (a marker stranded with its run's files would name a version no clone can
 * pull), and an index file never (it describes files of its own).
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";
import { sha256Hex } from "../hash.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { eachLimit } from "./index_io.ts";
import type { IndexEntry } from "./bucket_layout.ts";

/** Whether {@link adoptStranded} published the object, and why not. */
export type Adoption = { readonly adopted: true } | {
  readonly adopted: false;
  readonly why: string;
};

/** What {@link adoptStranded} needs. */
export interface AdoptOptions {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  readonly concurrency?: number;
  /** Time of the index entries written. */
  readonly clock?: () => number;
  /** The path's class (`latest-marker` and `index` are checked, see the module doc). */
  readonly pathClass?: string;
  /**
   * Records an entry about to be taken out for naming nothing as a lost file
   * (the datastore's record of them: `vanished_record.ts`). The entry may be
   * its writer's own commit, landed before the adoption, whose object went
   * outside Sluice since: recorded, a cache holding that copy keeps it,
   * told, and never takes the removal for a deletion.
   */
  readonly recordLost?: (path: string, entry: IndexEntry) => Promise<void>;
}

/** Why a marker or index file is not adopted; undefined when it may be. */
async function notAdoptable(
  path: string,
  body: Uint8Array | undefined,
  pathClass: string | undefined,
  entries: () => Promise<Record<string, IndexEntry>>,
): Promise<string | undefined> {
  if (pathClass === "index") return "an index file is never adopted";
  if (pathClass !== "latest-marker") return undefined;
  if (!body) return "its bytes were not read";
  const n = new TextDecoder().decode(body).trim();
  const dir = `${path.slice(0, path.lastIndexOf("/"))}/${n}/`;
  const named = /^\d+$/.test(n) && Object.keys(await entries()).some((p) => p.startsWith(dir));
  return named ? undefined : `the version it names (${n}) is not in the index`;
}

/** One object to adopt (see {@link adoptStrandedMany}). */
export interface Stranded {
  readonly path: string;
  /** The store's current object there, with its bytes or its SHA-256 (a marker needs its bytes). */
  readonly object: {
    readonly version: string;
    readonly size: number;
    readonly body?: Uint8Array;
    readonly hash?: string;
  };
  /** The version the index named there when it was read (null: none). */
  readonly base: string | null;
  /** The path's class (`latest-marker` and `index` are checked, see the module doc). */
  readonly pathClass?: string;
}

/**
 * Publishes `object` (the store's current object at `path`, with its bytes,
 * or with its SHA-256 when it was hashed as it streamed: a latest marker
 * needs its bytes) in the index, provided the index still names `base` for
 * the path (null: none) and the store still holds that object when the index
 * is written (an entry of `base` a peer's deletion took out meanwhile is not
 * named again). Adopted when the index names the object afterwards.
 *
 * @example
 * ```ts
 * import { adoptStranded } from "./adopt.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * const info = await store.put("notes/a.txt", new Uint8Array([1]), { kind: "overwrite" });
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * const object = { ...info, body: new Uint8Array([1]) };
 * console.log(await adoptStranded(store, "notes/a.txt", object, null, { retry })); // { adopted: true }
 * ```
 */
export async function adoptStranded(
  store: ObjectStore,
  path: string,
  object: Stranded["object"],
  base: string | null,
  o: AdoptOptions,
): Promise<Adoption> {
  const r = await adoptStrandedMany(store, [{ path, object, base, pathClass: o.pathClass }], o);
  return r.get(path)!;
}

/**
 * {@link adoptStranded} for many objects at once, in one index commit (each
 * path's change applied only where the index still names its `base` and
 * the store still holds its object), one read of the index after it, and a
 * HEAD of each path published: adopting a crashed push's thousands of files
 * reads and writes the index a few times, not once per file. Returns each
 * path's adoption.
 */
export async function adoptStrandedMany(
  store: ObjectStore,
  items: readonly Stranded[],
  o: AdoptOptions,
): Promise<Map<string, Adoption>> {
  const out = new Map<string, Adoption>();
  let read: Promise<Record<string, IndexEntry>> | undefined;
  const entries = () =>
    read ??= readIndex(store, o.retry, o.signal, o.concurrency).then((i) => i?.entries ?? {});
  const set: Record<string, IndexEntry> = {};
  const base: Record<string, string | null> = {};
  for (const it of items) {
    const why = await notAdoptable(it.path, it.object.body, it.pathClass, entries);
    if (why) {
      out.set(it.path, { adopted: false, why });
      continue;
    }
    const hash = it.object.hash ?? (it.object.body ? await sha256Hex(it.object.body) : undefined);
    if (hash === undefined) {
      out.set(it.path, { adopted: false, why: "its bytes were not read" });
      continue;
    }
    set[it.path] = { v: it.object.version, h: hash, s: it.object.size };
    base[it.path] = it.base;
  }
  const paths = Object.keys(set);
  if (paths.length === 0) return out;
  // An entry gone by the commit though it named `base` when read: a peer's
  // deletion committed since, which neither this adopter nor the writer of
  // the object saw (that writer's own commit would leave its copy out as a
  // conflict). Left out, never named again (chaos seed 174100154).
  const baseGone = paths.filter((p) => base[p] !== null);
  await updateIndex(
    store,
    { set, remove: [], base, verify: true, baseGone },
    o.retry,
    o.signal,
    undefined,
    o.concurrency,
    o.clock,
  );
  const index = await readIndex(store, o.retry, o.signal, o.concurrency);
  const named = paths.filter((p) => index?.entries[p]?.v === set[p].v);
  for (const p of paths) {
    if (index?.entries[p]?.v !== set[p].v) {
      out.set(p, { adopted: false, why: "it changed meanwhile" });
    }
  }
  // Its writer was not gone after all: it may have deleted its upload as its
  // own between the check made by this commit and the commit's write (the
  // writer reads the index again after such a delete, see `dropOwnStranded`).
  // The entry then names nothing: taken out, while the store holds nothing there.
  const gone: string[] = [];
  await eachLimit(named, o.concurrency ?? 4, async (p) => {
    const held = await withRetry(() => store.head(p, { signal: o.signal }), o.retry, o.signal);
    if (held) out.set(p, { adopted: true });
    else gone.push(p);
  });
  if (gone.length === 0) return out;
  // A record that cannot be written (unreadable: its owner restores it)
  // keeps every copy whose entry was removed already, as a conflict: the
  // removal goes on, so that the index never names an object that is gone.
  for (const p of gone) await o.recordLost?.(p, index!.entries[p]).catch(() => {});
  await updateIndex(
    store,
    {
      set: {},
      remove: gone,
      base: Object.fromEntries(gone.map((p) => [p, set[p].v])),
      verify: true,
    },
    o.retry,
    o.signal,
    undefined,
    o.concurrency,
    o.clock,
  );
  for (const p of gone) {
    out.set(p, {
      adopted: false,
      why: "its writer deleted it as the adoption was committed, so the index names it no more",
    });
  }
  return out;
}
