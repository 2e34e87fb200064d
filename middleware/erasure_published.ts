/**
 * The files of a refused run's version directories that are published on
 * the datastore already: recorded in the synced manifest (a push or pull
 * of this cache synced them, so the datastore's index named them) and
 * still holding the bytes synced. Such a file is the datastore's copy, not
 * the run's to erase: an erasure keeps it in the cache (see
 * `completeErasure`). Taken out of the cache, it would be a local deletion
 * to any process over the cache whose manifest still records it (the
 * service a run ran in, beside `sluice held --discard` in a process of its
 * own), and that process's next push of the directory would delete the
 * published version from the datastore.
 *
 * @module
 */
import type { CacheAccess, StateAccess } from "../sync/context.ts";
import { sha256Hex } from "../sync/hash.ts";
import { NotFoundError } from "../sync/errors.ts";
import type { ObjectStore } from "../sync/ports.ts";

/**
 * The files under `dirs` the cache holds as synced with the datastore,
 * with the bytes synced, sorted.
 *
 * @example
 * ```ts
 * import { publishedFiles } from "./erasure_published.ts";
 * import type { CacheAccess, StateAccess } from "../sync/context.ts";
 * async function show(cache: CacheAccess, state: StateAccess) {
 *   console.log(await publishedFiles(cache, state, ["data/t/m/d/2"]));
 * }
 * ```
 */
export async function publishedFiles(
  cache: CacheAccess,
  state: StateAccess,
  dirs: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    const files = await cache.listFiles(dir);
    for (const path of files) {
      const synced = state.synced(path);
      if (!synced) continue;
      const bytes = await cache.read(path);
      if (bytes && await sha256Hex(bytes) === synced.hash) out.push(path);
    }
  }
  return [...new Set(out)].sort();
}

/**
 * The files under `dir` an erasure keeps, as the datastore's copies: those
 * {@link publishedFiles} finds, and those synced with the datastore whose
 * bytes a run changed (or that it deleted) here since, put back with the datastore's bytes
 * while the datastore still holds the version synced (the run's change is
 * what is discarded, never the published file). One whose synced version
 * the datastore no longer holds is left to the erasure: a deletion of it
 * by any process over the cache is conditional on that version, so it
 * deletes nothing published since.
 */
export async function keptAsPublished(
  deps: {
    readonly cache: CacheAccess;
    readonly state: StateAccess;
    readonly store: ObjectStore;
    readonly signal?: AbortSignal;
  },
  dir: string,
): Promise<string[]> {
  const { cache, state } = deps;
  const out: string[] = [];
  // The synced files the run deleted here too: a deletion is a change of
  // the run's, discarded as any other (the datastore's copy put back), never
  // left for a push to take for a local deletion of the published file.
  const paths = new Set(await cache.listFiles(dir));
  for (const p of state.syncedPaths?.() ?? []) if (p.startsWith(`${dir}/`)) paths.add(p);
  for (const path of paths) {
    const synced = state.synced(path);
    if (!synced) continue;
    const bytes = await cache.read(path);
    if (bytes && await sha256Hex(bytes) === synced.hash) {
      out.push(path);
      continue;
    }
    const theirs = await deps.store.get(path, { signal: deps.signal }).catch((e) => {
      if (e instanceof NotFoundError) return null;
      throw e;
    });
    if (
      theirs && theirs.version === synced.version && await sha256Hex(theirs.body) === synced.hash
    ) {
      await cache.write(path, theirs.body);
      out.push(path);
    }
  }
  return out.sort();
}
