/**
 * What a resolution reads of the datastore (see `resolve.ts`): theirs as the
 * store holds it, for a conflict recorded against another client's entry,
 * and the index entries around a path, for the other shape of its name.
 *
 * @module
 */
import type { LocalCache } from "../transfer/cache.ts";
import type { ConflictRecord, RemoteSide } from "./conflicts.ts";
import { NotFoundError } from "../errors.ts";
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import { hashObject } from "../transfer/object_ops.ts";
import { openObject } from "../transfer/body.ts";
import { withRetry } from "../retry.ts";
import { isOwnUncommitted, readWriterId, WRITER_METADATA } from "../transfer/writer_id.ts";
import { ancestorWhere } from "../paths.ts";
import { readIndexAround } from "../transfer/remote_index.ts";
import type { ResolveDeps } from "./resolve.ts";

/**
 * {@link ResolveDeps.indexedOtherShape} over `store`: the index entries
 * around the path (the shards that can hold it, a directory above it or a
 * path under it), read once per resolution that needs them. A file above it
 * that already stands beside files under a directory of its name is no new
 * clash (another client made both), as for a commit (see `apply`).
 */
export function indexedShapeReader(
  store: ObjectStore,
  retry: RetryPolicy,
  concurrency: number,
  signal?: AbortSignal,
): NonNullable<ResolveDeps["indexedOtherShape"]> {
  return async (path) => {
    const entries = await readIndexAround(store, path, retry, signal, concurrency);
    const beside = (d: string) =>
      Object.keys(entries).some((k) => k.startsWith(`${d}/`) && k !== path);
    return ancestorWhere(path, (d) => Object.hasOwn(entries, d) && !beside(d)) ??
      Object.keys(entries).find((k) => k.startsWith(`${path}/`));
  };
}

/**
 * {@link ResolveDeps.indexedAt} over `store`: whether the index entries
 * around the path (the shards that can hold it) name the path itself.
 */
export function indexedPathReader(
  store: ObjectStore,
  retry: RetryPolicy,
  concurrency: number,
  signal?: AbortSignal,
): NonNullable<ResolveDeps["indexedAt"]> {
  return async (path) =>
    Object.hasOwn(await readIndexAround(store, path, retry, signal, concurrency), path);
}

/**
 * {@link ResolveDeps.readTheirs} over `store`: the object streamed and
 * hashed, and whether it carries this cache's writer id (its own write).
 */
export function theirsReader(
  store: ObjectStore,
  cache: LocalCache,
  retry: RetryPolicy,
  signal?: AbortSignal,
): NonNullable<ResolveDeps["readTheirs"]> {
  return async (path) => {
    const got = await hashObject(store, path, { retry, signal }).catch((e) => {
      if (e instanceof NotFoundError) return null;
      throw e;
    });
    if (!got) return null;
    const own = await readWriterId(cache);
    return {
      version: got.info.version,
      hash: got.hash,
      size: got.info.size,
      own: own !== null && got.info.metadata?.[WRITER_METADATA] === own,
    };
  };
}

/**
 * {@link ResolveDeps.takeBackOwn} over `store`: when the object at the path
 * carries this cache's writer id and is not `theirs` (its own upload, made
 * over theirs by a resolution cut off before its commit), it is streamed
 * into the cache at the path (atomically, checked against its size, and
 * only while nothing is there: a file saved there meanwhile is never written
 * over) and its version, hash and size returned; otherwise nothing is
 * written and `null` is returned. `before` runs once the object is known
 * to be this cache's own, before anything is written (the caller sets aside
 * what is at the path).
 */
export function ownUploadTaker(
  store: ObjectStore,
  cache: LocalCache,
  retry: RetryPolicy,
  signal?: AbortSignal,
): NonNullable<ResolveDeps["takeBackOwn"]> {
  return async (path, theirs, before) => {
    const own = await readWriterId(cache);
    if (own === null) return null;
    let ready = false;
    return await withRetry(
      async () => {
        const got = await openObject(store, path, { signal }).catch((e) => {
          if (e instanceof NotFoundError) return null;
          throw e;
        });
        if (!got) return null;
        const { body, ...info } = got;
        if (info.metadata?.[WRITER_METADATA] !== own || info.version === theirs) {
          await body.cancel().catch(() => {});
          return null;
        }
        // Once, on the first attempt that found it its own (a retry reads it again).
        if (!ready) {
          ready = true;
          await before?.();
        }
        const hash = await cache.writeStream(path, body, { size: info.size }, undefined, null);
        return { version: info.version, hash, size: info.size };
      },
      retry,
      signal,
    );
  };
}

/**
 * {@link ResolveDeps.ownUploadOver} over `store`: one HEAD (retried), the
 * object's version when it carries this cache's writer id and is not
 * `version` (this cache's own upload, named by no index); null otherwise.
 * A look that fails after its retries fails the resolution, which never
 * takes the store for unchanged for want of a look.
 */
export function ownUploadLooker(
  store: ObjectStore,
  cache: LocalCache,
  retry: RetryPolicy,
  signal?: AbortSignal,
): NonNullable<ResolveDeps["ownUploadOver"]> {
  return async (path, version) => {
    const own = await readWriterId(cache);
    if (own === null) return null;
    const now = await withRetry(() => store.head(path, { signal }), retry, signal);
    return now && isOwnUncommitted(now, version, own) ? now.version : null;
  };
}

/**
 * Theirs as the store holds it, for a conflict recorded against another
 * client's index entry (an old client's: its version `~…` is no object
 * version, so no compare-and-swap can be based on it): the object is read,
 * and when its bytes are the ones the conflict recorded (by hash: an entry
 * that recorded none cannot tell), its version stands for theirs. So does
 * this cache's own uncommitted write there: an earlier resolution's upload,
 * made over exactly those bytes, whose commit never came (a crash); the
 * index still names their entry, and the push writes it again over that
 * upload (rebased with no hash, so that it is written and committed, never
 * taken for a copy already published). Otherwise the datastore changed
 * since, or cannot be told unchanged: the conflict is recorded again with
 * what it holds now (its version and hash), and `undefined` is returned (a
 * new conflict, never a loss).
 */
export async function versionedTheirs(
  deps: ResolveDeps,
  rec: ConflictRecord,
): Promise<RemoteSide | null | undefined> {
  const theirs = rec.theirs;
  if (!theirs || !theirs.version.startsWith("~") || !deps.readTheirs) return theirs;
  const now = await deps.readTheirs(rec.path);
  const same = now !== null && theirs.hash !== "" && now.hash === theirs.hash &&
    now.size === theirs.size;
  if (now && same) return { version: now.version, hash: now.hash, size: now.size };
  if (now?.own) return { version: now.version, hash: "", size: now.size };
  await deps.state.conflicts.record([{
    ...rec,
    theirs: now && { version: now.version, hash: now.hash, size: now.size },
    reason: `${rec.reason}; the datastore's copy changed again before the resolution`,
  }]);
  return undefined;
}

/**
 * The file above `path` in the cache that replaced the directory `path`
 * lies in: a regular file this cache never synced, or one that differs from
 * the copy it records as synced there (the other shape of that name, made
 * here, that no push published), if there is one. The record may be a
 * rebase alone: a `--mine` of that file's own conflict, held back by its
 * push while `path` is in conflict, rebases it on theirs, which may be a
 * file the datastore has since replaced by the directory (chaos seed
 * 203150150); the file is still this cache's shape then.
 */
export async function ownFileAbove(
  deps: Pick<ResolveDeps, "cache" | "state">,
  path: string,
): Promise<string | undefined> {
  const { cache, state } = deps;
  const at = ancestorWhere(path, (d) => cache.exists(d) && !cache.holdsDirectory(d));
  if (at === undefined) return undefined;
  const here = await cache.hashFile(at).catch(() => null);
  if (!here) return undefined;
  const synced = state.synced(at);
  return synced === undefined || synced.hash !== here.hash ? at : undefined;
}
