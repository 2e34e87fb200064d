/**
 * The put-back of a refused run's erasure (`erasure_steps.ts`): the bytes of
 * an upload it deleted (or found gone) while a peer's entry names them,
 * written again and named in place of the gone version.
 *
 * @module
 */
import { AlreadyExistsError, PreconditionFailedError } from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import type { IndexEntry } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { putBackAndName } from "../sync/transfer/put_back.ts";
import type { UploadRef } from "./erasure_journal.ts";

/** One attempt: a failure leaves the put-back pending for the next push. */
const ONE_TRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/**
 * Puts back the bytes of an object a peer's entry names (deleted by this
 * erasure, or gone): only bytes whose hash is the entry's, created only where
 * nothing is, and named in place of the gone version only while the entry
 * still names it. True when the entry names the new object, or names
 * something else by now (a later writer's, left as it is), or is gone (a
 * deletion committed since, which stands). Its index update makes at most
 * `concurrency` requests at once, as the erasure's reads do: with 1, the
 * touched shards are read before the index write, not beside it. The entry
 * is timed by `now` (the injected clock), the system clock without one.
 */
export async function putBackErased(
  store: ObjectStore,
  u: UploadRef,
  entry: IndexEntry,
  bytesOf: (path: string) => Promise<Uint8Array | null>,
  signal: AbortSignal | undefined,
  concurrency: number,
  now?: () => number,
): Promise<boolean> {
  const bytes = await bytesOf(u.path);
  if (!bytes || (entry.h !== "" && await sha256Hex(bytes) !== entry.h)) return false;
  if (isUnversioned(entry)) {
    // Another client's entry names no version: the bytes put back where
    // nothing is are what it names (anything there by then is a later write).
    try {
      await store.put(u.path, bytes, PutModes.create, { signal });
    } catch (e) {
      if (!(e instanceof AlreadyExistsError || e instanceof PreconditionFailedError)) throw e;
    }
    return true;
  }
  const done = await putBackAndName(store, u.path, bytes, { v: u.version, h: entry.h }, {
    retry: ONE_TRY,
    signal,
    concurrency,
    ...(now ? { now } : {}),
  });
  // Named, or left to another writer's object or to a commit since: done;
  // what refused it gone before it could be read: looked at again.
  return done.kind !== "vanished";
}
