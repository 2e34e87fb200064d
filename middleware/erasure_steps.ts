/**
 * The two steps of a refused run's erasure that act on one marker or one
 * upload at a time: recomputing a `latest` marker from the version
 * directories left in the cache, and deleting the run's uploads while they
 * still carry its versions. `erasure.ts` drives them.
 *
 * @module
 */
import { NotFoundError, NotImplementedError, PreconditionFailedError } from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import { parentOf } from "../sync/paths.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
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

/** One attempt: a failed read leaves the deletions pending for the next push. */
const ONE_TRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/**
 * Deletes each object while it still carries the refused push's version, so a
 * peer's object is never deleted, and only while the remote index does not
 * name that version: a peer whose create-only write met the same bytes took
 * the object as its own and committed it (its run, or a deterministic one,
 * wrote the same output), and it is that peer's published version now.
 * Failures (store unreachable, the index unreadable) are returned as
 * pending.
 */
export async function deleteUploads(
  store: ObjectStore,
  uploads: readonly UploadRef[],
  signal?: AbortSignal,
  concurrency = 1,
): Promise<{ deleted: string[]; kept: string[]; pending: UploadRef[] }> {
  const deleted: string[] = [];
  const kept: string[] = [];
  const pending: UploadRef[] = [];
  if (uploads.length === 0) return { deleted, kept, pending };
  let named: Readonly<Record<string, { readonly v?: string }>>;
  try {
    named = (await readIndex(store, ONE_TRY, signal, concurrency))?.entries ?? {};
  } catch {
    return { deleted, kept, pending: [...uploads] };
  }
  for (const u of uploads) {
    if (Object.hasOwn(named, u.path) && named[u.path].v === u.version) {
      kept.push(u.path);
      continue;
    }
    try {
      try {
        await store.delete(u.path, { ifVersion: u.version, signal });
      } catch (e) {
        if (!(e instanceof NotImplementedError)) throw e;
        // The endpoint refuses conditional deletes: compare, then delete.
        const head = await store.head(u.path, { signal });
        if (head?.version !== u.version) throw new PreconditionFailedError(u.path);
        await store.delete(u.path, { signal });
      }
      deleted.push(u.path);
    } catch (e) {
      if (e instanceof PreconditionFailedError || e instanceof NotFoundError) kept.push(u.path);
      else pending.push(u);
    }
  }
  return { deleted, kept, pending };
}
