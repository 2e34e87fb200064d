/**
 * The two steps of a refused run's erasure that act on one marker or one
 * upload at a time: recomputing a `latest` marker from the version
 * directories left in the cache, and deleting the run's uploads while they
 * still carry its versions. `erasure.ts` drives them.
 *
 * @module
 */
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
} from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import { parentOf } from "../sync/paths.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import { type IndexEntry, readIndex } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { putBackAndName } from "../sync/transfer/put_back.ts";
import type { CacheAccess, StateAccess } from "../sync/context.ts";
import { isUnder } from "./erasure_attribution.ts";
import type { MarkerOutcome, UploadRef } from "./erasure_journal.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Recomputes a `latest` marker from the version directories left in the
 * cache, unless it names one of them already (it is then left as it is), or
 * there is none (none is made up). No version left: the marker is removed, cleaned and forgotten (the
 * next pull brings the datastore's). The highest version still unpushed:
 * the marker names it and stays dirty. Otherwise it names the highest
 * version, is clean, and is forgotten unless it matches the synced copy, so
 * that the next pull refreshes it; it never pushes a refused version number.
 */
export async function recomputeLatest(
  cache: CacheAccess,
  state: StateAccess,
  marker: string,
): Promise<MarkerOutcome> {
  const parent = parentOf(marker);
  const versions = new Set<number>();
  for (const f of await cache.listFiles(parent)) {
    const segs = f.slice(parent.length + 1).split("/");
    if (segs.length >= 2 && /^\d+$/.test(segs[0])) versions.add(Number(segs[0]));
  }
  const max = Math.max(-1, ...versions);
  const dirty = state.dirtyPaths().includes(marker);
  const bytes = await cache.read(marker).catch(() => null);
  const text = bytes === null ? null : new TextDecoder().decode(bytes).trim();
  // A marker naming a version still here (one set by hand, e.g. one back,
  // after the refused run) is left as it is: only a marker naming an erased
  // version is recomputed.
  if (text !== null && /^\d+$/.test(text) && versions.has(Number(text))) {
    return { path: marker, version: Number(text), dirty };
  }
  // No marker here (the refused run wrote none): none is made up; the next
  // pull brings the datastore's, if it has one.
  if (text === null) return { path: marker, version: null, dirty };
  // A local change of the marker that the recomputation replaces (reported).
  const was = dirty && text !== null ? { was: text } : {};
  const synced = state.synced(marker);
  if (max < 0) {
    await cache.remove(marker);
    await state.clean([marker]);
    if (synced) await state.forget([marker]);
    return { path: marker, version: null, dirty: false, ...was };
  }
  const maxDir = `${parent}/${max}`;
  if (state.dirtyPaths().some((p) => isUnder(p, maxDir))) {
    await cache.write(marker, enc(`${max}`));
    await state.markDirty(marker);
    return { path: marker, version: max, dirty: true, ...was };
  }
  for (const t of [`${max}`, `${max}\n`]) {
    if (synced && synced.hash === (await sha256Hex(enc(t)))) {
      await cache.write(marker, enc(t));
      await state.clean([marker]);
      return { path: marker, version: max, dirty: false, ...was };
    }
  }
  await cache.write(marker, enc(`${max}`));
  await state.clean([marker]);
  if (synced) await state.forget([marker]);
  return { path: marker, version: max, dirty: false, ...was };
}

/**
 * The `latest_reset` warning for a marker changed here that {@link
 * recomputeLatest} reset (`m.was` set): it named version `m.was`, which
 * `because` says is gone from this cache.
 */
export function latestResetWarning(
  m: MarkerOutcome,
  because: string,
): { code: "latest_reset"; message: string; path: string } {
  return {
    code: "latest_reset",
    message: `${m.path} was changed here and named version ${m.was}, ${because}; it ${
      m.version === null
        ? "was removed (no version is left here; the next pull brings the datastore's)"
        : `now names version ${m.version}, the highest left here`
    }. If you meant another version, set ${m.path} again and push.`,
    path: m.path,
  };
}

/** One attempt: a failed read leaves the deletions pending for the next push. */
const ONE_TRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/** What {@link deleteUploads} reports. */
export interface DeleteOutcome {
  readonly deleted: string[];
  readonly kept: string[];
  readonly pending: UploadRef[];
  /**
   * Objects deleted while a peer's commit named them (see
   * {@link deleteUploads}), put back with the same bytes and named again.
   */
  readonly restored: string[];
}

/**
 * Deletes each object while it still carries the refused push's version and
 * this cache's writer id, so a peer's object is never deleted, and only while
 * the remote index does not name it: a peer whose create-only write met the
 * same bytes took the object as its own and committed it (its run, or a
 * deterministic one, wrote the same output), and it is that peer's published
 * version now. Another client's entry (an old client's, which records no
 * version) names the object when it records the upload's bytes (its hash is
 * theirs).
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
 * off after its delete) is put back the same way. Failures (store
 * unreachable, the index unreadable, no local copy to put back) are returned
 * as pending: the next push's erasure looks again.
 */
export async function deleteUploads(
  store: ObjectStore,
  uploads: readonly UploadRef[],
  signal?: AbortSignal,
  concurrency = 1,
  bytesOf: (path: string) => Promise<Uint8Array | null> = () => Promise.resolve(null),
  writerId: string | null = null,
): Promise<DeleteOutcome> {
  const out: DeleteOutcome = { deleted: [], kept: [], pending: [], restored: [] };
  if (uploads.length === 0) return out;
  let named: Readonly<Record<string, IndexEntry>>;
  try {
    named = (await readIndex(store, ONE_TRY, signal, concurrency))?.entries ?? {};
  } catch {
    return { ...out, pending: [...uploads] };
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
  const namesIt = async (at: Readonly<Record<string, IndexEntry>>, u: UploadRef) => {
    if (!Object.hasOwn(at, u.path)) return false;
    const e = at[u.path];
    if (e.v === u.version) return true;
    // Another client's entry names whatever object holds its bytes.
    return isUnversioned(e) && e.h !== "" && e.h === await hashOf(u.path);
  };
  const deleted: UploadRef[] = [];
  // Named already: a peer's published version, kept; put back if it is gone.
  const toRestore: UploadRef[] = [];
  for (const u of uploads) {
    if (await namesIt(named, u)) {
      try {
        const head = await store.head(u.path, { signal });
        if (head && (head.version === u.version || isUnversioned(named[u.path]))) {
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
      deleted.push(u);
    } catch (e) {
      if (e instanceof PreconditionFailedError || e instanceof NotFoundError) out.kept.push(u.path);
      else out.pending.push(u);
    }
  }
  if (deleted.length > 0) {
    // A peer's commit naming a deleted object may have landed meanwhile.
    try {
      named = (await readIndex(store, ONE_TRY, signal, concurrency))?.entries ?? {};
    } catch {
      // Not known: looked at again by the next push (named: put back; not: done).
      out.pending.push(...deleted);
      return out;
    }
    for (const u of deleted) {
      if (await namesIt(named, u)) toRestore.push(u);
      else out.deleted.push(u.path);
    }
  }
  for (const u of toRestore) {
    const restored = await putBack(store, u, named[u.path], bytesOf, signal).catch(() => false);
    if (restored) out.restored.push(u.path);
    else out.pending.push(u);
  }
  return out;
}

/**
 * Puts back the bytes of an object a peer's entry names (deleted by this
 * erasure, or gone): only bytes whose hash is the entry's, created only where
 * nothing is, and named in place of the gone version only while the entry
 * still names it. True when the entry names the new object, or names
 * something else by now (a later writer's, left as it is), or is gone (a
 * deletion committed since, which stands).
 */
async function putBack(
  store: ObjectStore,
  u: UploadRef,
  entry: IndexEntry,
  bytesOf: (path: string) => Promise<Uint8Array | null>,
  signal?: AbortSignal,
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
  });
  // Named, or left to another writer's object or to a commit since: done;
  // what refused it gone before it could be read: looked at again.
  return done.kind !== "vanished";
}
