/**
 * Index discovery: a datastore that holds objects but no index (filled by
 * another tool, or its index object lost) has them found by a listing, so
 * that the first index written there names them, as other clients of the
 * layout do; otherwise they would stay on the datastore, named by no index,
 * invisible to every pull.
 *
 * What a listing finds is named only when it is no object of the layout's
 * own (locks, the index and its shards, the control plane, Sluice's probe
 * keys), lies outside every other namespace's directory (a directory holding
 * a `.namespace.json`), and was not written by Sluice: an object Sluice wrote
 * and no index names is a write whose commit has not come (in flight, or
 * stopped; a refused run's, which must never be published), which its
 * writer's commit or erasure settles. One HEAD per object tells them apart.
 * A discovered entry carries the object's size and time and no hash, as
 * other clients write theirs; a pull compares its bytes as for any such
 * entry.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";
import { isSafeRelPath } from "../paths.ts";
import { type IndexEntry, isLocalOnlyPath, parseEntry } from "./bucket_layout.ts";
import { eachLimit } from "./index_io.ts";
import { WRITER_METADATA } from "./writer_id.ts";

/** What a discovery found. */
export interface Discovered {
  /** The entries to name, by path. */
  readonly entries: Record<string, IndexEntry>;
  /** Objects Sluice wrote that no index names: left out. */
  readonly heldBack: readonly string[];
}

/** Keys of Sluice's own on a store that no index names, besides the layout's. */
const OWN_PREFIXES = [".sluice/", ".locks/"];

/**
 * Lists `store` and returns the entries of the objects to name (see the
 * module), leaving out the keys in `own` (a commit's own writes, which it
 * names itself); empty when there are none.
 *
 * @example
 * ```ts
 * import { discoverEntries } from "./index_discovery.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * store.seed("data/t/m/out/1/raw", "bytes another tool wrote");
 * const found = await discoverEntries(store, { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 });
 * console.log(Object.keys(found.entries)); // ["data/t/m/out/1/raw"]
 * ```
 */
export async function discoverEntries(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
  concurrency = 8,
  own: ReadonlySet<string> = new Set(),
): Promise<Discovered> {
  const listed = await withRetry(
    async () => {
      const keys: { key: string }[] = [];
      for await (const page of store.list("", { signal })) {
        for (const o of page) keys.push({ key: o.key });
      }
      return keys;
    },
    retry,
    signal,
  );
  const namespaces = new Set(
    listed.filter((o) => /^[^/]+\/\.namespace\.json$/.test(o.key)).map((o) =>
      o.key.slice(0, o.key.indexOf("/"))
    ),
  );
  // Another datastore under a prefix of this one (a prefix holding an index
  // of its own, say a mistyped prefix's parent): its objects are its own.
  for (const o of listed) {
    const m = /^([^/]+)\/(?:\.datastore-index\.json|_index\/_meta\.json)$/.exec(o.key);
    if (m) namespaces.add(m[1]);
  }
  const candidates = listed.filter((o) =>
    !own.has(o.key) && isSafeRelPath(o.key) && !isLocalOnlyPath(o.key) &&
    !OWN_PREFIXES.some((p) => o.key.startsWith(p)) &&
    !namespaces.has(o.key.slice(0, o.key.indexOf("/")))
  );
  const entries: Record<string, IndexEntry> = {};
  const heldBack: string[] = [];
  await eachLimit(candidates, concurrency, async (o) => {
    const info = await withRetry(() => store.head(o.key, { signal }), retry, signal);
    if (!info) return; // deleted since the listing
    if (info.metadata?.[WRITER_METADATA]) {
      heldBack.push(o.key);
      return;
    }
    entries[o.key] = parseEntry(o.key, {
      key: o.key,
      size: info.size,
      lastModified: new Date(info.lastModified).toISOString(),
    });
  });
  const sorted: Record<string, IndexEntry> = {};
  for (const k of Object.keys(entries).sort()) sorted[k] = entries[k];
  return { entries: sorted, heldBack: heldBack.sort() };
}
