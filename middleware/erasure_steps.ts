/**
 * The step of a refused run's erasure that acts on its uploads: deleting
 * them while they still carry its versions, and putting back one a peer's
 * commit named meanwhile. `erasure.ts` drives it; the markers' step is in
 * `erasure_markers.ts`; what it reads and reports (the index as read, the
 * look at uploads journaled before their version was known, the outcome) is
 * in `erasure_upload_looks.ts`.
 *
 * @module
 */
import {
  AbortedError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
} from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { type IndexEntry, readIndex, unlistedEntries } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import type { UploadRef } from "./erasure_journal.ts";
import { putBackErased } from "./erasure_put_back.ts";
import {
  type DeleteOutcome,
  entryOf,
  lookedAt,
  ONE_TRY,
  type Seen,
} from "./erasure_upload_looks.ts";

export type { DeleteOutcome } from "./erasure_upload_looks.ts";

/**
 * Deletes each object while it still carries the refused push's version and
 * this cache's writer id, so a peer's object is never deleted, and only while
 * the remote index does not name it: a peer whose create-only write met the
 * same bytes took the object as its own and committed it (its run, or a
 * deterministic one, wrote the same output), and it is that peer's published
 * version now. Another client's entry (an old client's, which records no
 * version) names the object when it records the upload's bytes (its hash is
 * theirs). An entry in a v2 shard the meta does not list yet (that peer's
 * commit cut off before its meta bump) names it too: the next commit into
 * that shard lists it.
 *
 * Where a version is derived from the bytes (an S3 ETag), another client's
 * plain write of the same bytes over the upload leaves its version as it
 * was: only the writer id, which such a write does not carry, tells the two
 * apart. So each object is looked at before its delete, and one whose
 * writer id is not this cache's (`writerId`; not checked when null) is kept
 * as that writer's, whose commit may come at any time.
 *
 * Such a peer's commit can land between the index read and the delete (it
 * checked the object was there just before). So the index is read again
 * after the deletes: an object deleted while the index now names that very
 * version (or, another client's entry, those bytes) is put back from
 * `bytesOf` (the run's local copy, equal to the bytes the peer named:
 * checked by hash) and its entry is moved to the new object's version, only
 * while it still names the deleted one. The peer, for its part, looks again
 * after its commit (`commitPrepared`): between them, one of the two sees the
 * other. An upload the index names whose object is gone (this erasure cut
 * off after its delete) is put back the same way. Beside old clients'
 * entries (which record no version), the index is read again right after
 * each delete rather than once after the last: an old client's pull that
 * meets an object gone drops its entry from the index it writes back (no
 * lock), and an old client's write of the same bytes that a delete took
 * is told by nothing else. Failures (store
 * unreachable, the index unreadable, no local copy to put back) are returned
 * as pending: the next push's erasure looks again. A put-back's index entry
 * is timed by `now` (the injected clock).
 */
export async function deleteUploads(
  store: ObjectStore,
  uploads: readonly UploadRef[],
  signal?: AbortSignal,
  concurrency = 1,
  bytesOf: (path: string) => Promise<Uint8Array | null> = () => Promise.resolve(null),
  writerId: string | null = null,
  now?: () => number,
): Promise<DeleteOutcome> {
  const out: DeleteOutcome = { deleted: [], kept: [], pending: [], restored: [] };
  uploads = await lookedAt(store, uploads, writerId, out, signal);
  if (uploads.length === 0) return out;
  const paths = uploads.map((u) => u.path);
  // The index's entries, and those of the uploads' paths in a v2 shard the
  // meta does not list yet (a peer's commit cut off before its meta bump):
  // the next commit into that shard lists them, naming what they name.
  const read = async (): Promise<Seen> => {
    const index = await readIndex(store, ONE_TRY, signal, concurrency);
    const unlisted = await unlistedEntries(store, index, paths, ONE_TRY, signal);
    return { entries: index?.entries ?? {}, unlisted };
  };
  let named: Seen;
  try {
    named = await read();
  } catch {
    return { ...out, pending: [...out.pending, ...uploads] };
  }
  const hashes = new Map<string, Promise<string | null>>();
  const hashOf = (path: string) => {
    let h = hashes.get(path);
    if (!h) {
      h = bytesOf(path).then((b) => (b ? sha256Hex(b) : null), () => null);
      hashes.set(path, h);
    }
    return h;
  };
  const namesIt = async (at: Seen, u: UploadRef) => {
    const e = entryOf(at, u.path);
    if (e === undefined) return false;
    if (e.v === u.version) return true;
    // Another client's entry names whatever object holds its bytes.
    return isUnversioned(e) && e.h !== "" && e.h === await hashOf(u.path);
  };
  const deleted: UploadRef[] = [];
  // Named already: a peer's published version, kept; put back if it is gone.
  const toRestore: UploadRef[] = [];
  // The index as last read: each upload is judged by it, and a put-back is
  // made only while it still names the bytes (see the end).
  let latest = named;
  // Beside old clients' entries, each delete is followed at once by a look
  // at the index (see below): an old client's write of the same bytes it
  // took is put back before the next delete, not after the last.
  const beside = Object.values(named.entries).some(isUnversioned);
  const restore = async (u: UploadRef, entry: IndexEntry) => {
    const restored = await putBackErased(store, u, entry, bytesOf, signal, concurrency, now)
      .catch(() => false);
    if (restored) out.restored.push(u.path);
    else out.pending.push(u);
  };
  for (const u of uploads) {
    if (await namesIt(latest, u)) {
      try {
        const head = await store.head(u.path, { signal });
        if (head && (head.version === u.version || isUnversioned(entryOf(latest, u.path)!))) {
          out.kept.push(u.path);
        } else toRestore.push(u);
      } catch {
        out.pending.push(u);
      }
      continue;
    }
    try {
      // The same version, written again by another writer (same bytes, same
      // ETag), is kept as that writer's. A look that fails does not hold the
      // erasure back (deferred, its deletion would meet a peer's commit of
      // the same bytes since): the conditional delete alone decides then.
      const head = writerId === null
        ? undefined
        : await store.head(u.path, { signal }).catch((e) => {
          if (e instanceof AbortedError) throw e;
          return undefined;
        });
      if (head === null || (head && head.version !== u.version)) {
        throw new PreconditionFailedError(u.path); // gone, or another version: not the run's
      }
      if (head && head.metadata?.[WRITER_METADATA] !== writerId) {
        throw new PreconditionFailedError(u.path);
      }
      try {
        await store.delete(u.path, { ifVersion: u.version, signal });
      } catch (e) {
        if (!(e instanceof NotImplementedError)) throw e;
        // The endpoint refuses conditional deletes: compare (unless just
        // compared), then delete.
        const now = head ?? await store.head(u.path, { signal });
        if (now?.version !== u.version) throw new PreconditionFailedError(u.path);
        await store.delete(u.path, { signal });
      }
    } catch (e) {
      if (e instanceof PreconditionFailedError || e instanceof NotFoundError) out.kept.push(u.path);
      else out.pending.push(u);
      continue;
    }
    if (!beside) {
      deleted.push(u);
      continue;
    }
    // Where versions are the bytes' (an S3 ETag), an old client's write of
    // these bytes, with its entry, landing between the look above and the
    // delete, went with it; its entry is all that tells. An old client's
    // pull that meets the object gone writes back its index without that
    // entry (no lock): looked at before this erasure's next delete gives
    // such a pull the window of one index read, not of every delete left.
    try {
      const now = await read();
      latest = now;
      if (await namesIt(now, u)) await restore(u, entryOf(now, u.path)!);
      else out.deleted.push(u.path);
    } catch {
      out.pending.push(u); // not known: looked at again by the next push
    }
  }
  if (deleted.length > 0) {
    // A peer's commit naming a deleted object may have landed meanwhile.
    try {
      latest = await read();
    } catch {
      // Not known: looked at again by the next push (named: put back; not:
      // done), the named ones it was to put back with them.
      out.pending.push(...deleted, ...toRestore);
      return out;
    }
    for (const u of deleted) {
      if (await namesIt(latest, u)) toRestore.push(u);
      else out.deleted.push(u.path);
    }
  } else if (toRestore.some((u) => isUnversioned(entryOf(latest, u.path)!))) {
    // An old client's write to put back, found gone before this erasure's
    // later looks: an old client's pull that met it gone may have dropped
    // its entry since (no lock, no compare-and-swap), so the index is read
    // again right before. That leaves such a pull the window of one read.
    try {
      latest = await read();
    } catch {
      out.pending.push(...toRestore);
      return out;
    }
  }
  for (const u of toRestore) {
    // Found named and gone by an earlier read: an index read since that no
    // longer names it (an old client's pull that met the object gone wrote
    // back its index without the entry, by their design) leaves it gone.
    // Bytes put back then would stand unnamed for good, and a later run of
    // that version would take them for another writer's and lose to them.
    if (await namesIt(latest, u)) await restore(u, entryOf(latest, u.path)!);
    else out.kept.push(u.path);
  }
  return out;
}
