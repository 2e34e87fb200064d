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
  store: ObjectStore,
  path: string,
  body: Uint8Array | undefined,
  o: AdoptOptions,
): Promise<string | undefined> {
  if (o.pathClass === "index") return "an index file is never adopted";
  if (o.pathClass !== "latest-marker") return undefined;
  if (!body) return "its bytes were not read";
  const n = new TextDecoder().decode(body).trim();
  const dir = `${path.slice(0, path.lastIndexOf("/"))}/${n}/`;
  const index = await readIndex(store, o.retry, o.signal, o.concurrency);
  const named = /^\d+$/.test(n) && Object.keys(index?.entries ?? {}).some((p) => p.startsWith(dir));
  return named ? undefined : `the version it names (${n}) is not in the index`;
}

/**
 * Publishes `object` (the store's current object at `path`, with its bytes,
 * or with its SHA-256 when it was hashed as it streamed: a latest marker
 * needs its bytes) in the index, provided the index still names `base` for
 * the path (null: none) and the store still holds that object when the index
 * is written. Adopted when the index names the object afterwards.
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
  object: {
    readonly version: string;
    readonly size: number;
    readonly body?: Uint8Array;
    readonly hash?: string;
  },
  base: string | null,
  o: AdoptOptions,
): Promise<Adoption> {
  const why = await notAdoptable(store, path, object.body, o);
  if (why) return { adopted: false, why };
  const hash = object.hash ?? (object.body ? await sha256Hex(object.body) : undefined);
  if (hash === undefined) return { adopted: false, why: "its bytes were not read" };
  const entry = { v: object.version, h: hash, s: object.size };
  await updateIndex(
    store,
    { set: { [path]: entry }, remove: [], base: { [path]: base }, verify: true },
    o.retry,
    o.signal,
    undefined,
    o.concurrency,
    o.clock,
  );
  const index = await readIndex(store, o.retry, o.signal, o.concurrency);
  if (index?.entries[path]?.v !== object.version) {
    return { adopted: false, why: "it changed meanwhile" };
  }
  // Its writer was not gone after all: it may have deleted its upload as its
  // own between the check made by this commit and the commit's write (the
  // writer reads the index again after such a delete, see `dropOwnStranded`).
  // The entry then names nothing: taken out, while the store holds nothing there.
  const held = await withRetry(() => store.head(path, { signal: o.signal }), o.retry, o.signal);
  if (held) return { adopted: true };
  // A record that cannot be written (unreadable: its owner restores it)
  // keeps every copy whose entry was removed already, as a conflict: the
  // removal goes on, so that the index never names an object that is gone.
  await o.recordLost?.(path, index.entries[path]).catch(() => {});
  await updateIndex(
    store,
    { set: {}, remove: [path], base: { [path]: object.version }, verify: true },
    o.retry,
    o.signal,
    undefined,
    o.concurrency,
    o.clock,
  );
  return {
    adopted: false,
    why: "its writer deleted it as the adoption was committed, so the index names it no more",
  };
}
