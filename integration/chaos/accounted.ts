/**
 * I20: a push that succeeds accounts for every local change it was asked to
 * publish. Each path marked dirty (not a directory; not a bulk walk) whose
 * file here differs from what the clone last synced, or that the clone
 * synced and no longer holds, is after the push either published (synced
 * now with those bytes, or as a deletion), still marked dirty for a later
 * push, or named in the push's result (uploaded, identical, deleted, a
 * conflict, overwritten, kept as a local deletion, left local, or skipped
 * while kept dirty or said to be unpublished). A change the push drops
 * (a skip that neither keeps it dirty nor says it is unpublished) is never
 * pushed by a later one either.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncService } from "../../sync/service/service.ts";

/** What a file here holds: its hash, `null` when absent, `undefined` when not a file (a directory). */
async function localHash(svc: SyncService, path: string): Promise<string | null | undefined> {
  let st: Deno.FileInfo;
  try {
    st = await Deno.lstat(`${svc.cacheDir}/${path}`);
  } catch {
    return null;
  }
  if (!st.isFile) return undefined;
  try {
    return await sha256Hex(await Deno.readFile(`${svc.cacheDir}/${path}`));
  } catch {
    return undefined;
  }
}

/**
 * The local changes the next push of `svc` is asked to publish (see the
 * module): path to the hash of its bytes here, `null` for a deletion.
 */
export async function pendingChanges(svc: SyncService): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const path of svc.state.dirtyPaths()) {
    const here = await localHash(svc, path);
    if (here === undefined) continue;
    const synced = svc.state.synced(path);
    if (here === null ? synced !== undefined : synced?.hash !== here) out.set(path, here);
  }
  return out;
}

/** The changes of `before` the push `r` of `svc` left unaccounted for (see the module). */
export async function unaccounted(
  svc: SyncService,
  before: ReadonlyMap<string, string | null>,
  r: PushResult,
): Promise<string[]> {
  const named = new Set<string>([
    ...r.uploaded,
    ...r.identical,
    ...r.deleted,
    ...r.conflicts,
    ...r.overwritten,
    ...r.localDeletions,
    // Left out for a later push (kept dirty), or said to be unpublished: a
    // skip that does neither drops the change.
    ...r.skipped.filter((s) => s.keepDirty || s.unpublished).map((s) => s.path),
    ...r.localOnly.map((s) => s.path),
  ]);
  const dirty = new Set(svc.state.dirtyPaths());
  const out: string[] = [];
  for (const [path, hash] of before) {
    if (named.has(path) || dirty.has(path)) continue;
    const synced = svc.state.synced(path);
    if (hash === null ? synced === undefined : synced?.hash === hash) continue;
    // Changed again while the push ran (an edit made beside it): another change.
    if ((await localHash(svc, path)) !== hash) continue;
    out.push(path);
  }
  return out;
}
