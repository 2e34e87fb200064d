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
 * pushed by a later one either. So too a push that fails as unreachable
 * (the store out of reach part way, perhaps only for one call: a `blip`
 * move), which has no result to name a change in: each change is published,
 * still marked dirty, or at a path with an open conflict.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { isLocalOnly } from "../../sync/transfer/bucket_layout.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";

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
  const consider = (path: string, here: string | null | undefined) => {
    // The managed lockfile is never pushed whole: the lockfile guard keeps it
    // out of every push and says so (`lockfile_guarded`); its changes are
    // published by lockfile transactions, a failed one's kept as a pending delta.
    if (here === undefined || isLocalOnly(path) || path === MANAGED_LOCKFILE_PATH) return;
    const synced = svc.state.synced(path);
    if (here === null ? synced !== undefined : synced?.hash !== here) out.set(path, here);
  };
  /** Each file under `dir` (`""`: the cache), and each synced path there that is gone. */
  const underDir = async (dir: string) => {
    for (const f of filesUnder(svc.cacheDir, dir)) consider(f, await localHash(svc, f));
    for (const p of svc.state.syncedPaths()) {
      if ((dir === "" || p.startsWith(`${dir}/`)) && (await localHash(svc, p)) === null) {
        consider(p, null);
      }
    }
  };
  if (svc.state.bulkPending()) await underDir("");
  for (const path of svc.state.dirtyPaths()) {
    const here = await localHash(svc, path);
    if (here === undefined) await underDir(path);
    else consider(path, here);
  }
  return out;
}

/** Regular files under `dir` of the cache `root` (`""`: all of it; links left out), cache-relative. */
export function filesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir ? `${root}/${dir}` : root)];
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...filesUnder(root, rel));
    else if (e.isFile) out.push(rel);
  }
  return out;
}

/** True when a mark still covers `path`: its own, a directory's above it, or a bulk mark. */
function stillMarked(svc: SyncService, dirty: ReadonlySet<string>, path: string): boolean {
  if (svc.state.bulkPending() || dirty.has(path)) return true;
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    if (dirty.has(path.slice(0, i))) return true;
  }
  return false;
}

/**
 * The changes of `before` the push `r` of `svc` left unaccounted for (see
 * the module); without `r`, those a push that failed left so.
 */
export async function unaccounted(
  svc: SyncService,
  before: ReadonlyMap<string, string | null>,
  r?: PushResult,
): Promise<string[]> {
  const named = new Set<string>(
    r
      ? [
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
      ]
      : svc.conflicts().map((c) => c.path),
  );
  const dirty = new Set(svc.state.dirtyPaths());
  const out: string[] = [];
  for (const [path, hash] of before) {
    if (named.has(path) || stillMarked(svc, dirty, path)) continue;
    const synced = svc.state.synced(path);
    if (hash === null ? synced === undefined : synced?.hash === hash) continue;
    // Changed again while the push ran (an edit made beside it): another change.
    if ((await localHash(svc, path)) !== hash) continue;
    out.push(path);
  }
  return out;
}
