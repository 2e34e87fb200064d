/**
 * The walk of an untouched cache: a push from a cache its service holds no
 * sync state for marks the whole cache dirty first (a bulk mark: the push
 * walks it), as the existing extensions do without their sidecar. The
 * tool's `datastore setup extension` copies files into a new cache without
 * a mark, pushes, then deletes its copies.
 *
 * The walk deletes nothing (the cache recorded no synced file) and never
 * overwrites a datastore copy this cache never synced. In solo mode a
 * cache whose root holds namespace directories is not walked (the walk
 * would take their files for root files): that is warned
 * (`unsynced_cache_not_walked`), naming what to run.
 *
 * @module
 */
import { existsSync } from "node:fs";
import type { SluiceEmitter } from "../../sync/events.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { walkFiles } from "../../sync/transfer/cache_walk.ts";
import { isLocalOnly } from "../../sync/transfer/bucket_layout.ts";

/** Where {@link walkUntouched} looks and warns. */
export interface UntouchedWalk {
  /** The cache root (namespace directories below it). */
  readonly cachePath: string;
  /** The namespace of the push (`""`: solo). */
  readonly namespace: string;
  /** Where the warning goes. */
  readonly events: SluiceEmitter;
  readonly signal?: AbortSignal;
}

/**
 * Marks the whole cache of `svc` dirty when the service holds no sync
 * state yet and the cache holds files (see the module).
 */
export async function walkUntouched(svc: SyncService, walk: UntouchedWalk): Promise<void> {
  if (!svc.state.untouched) return;
  const namespaceDirs = walk.namespace ? [] : await namespaceDirsAtRoot(walk.cachePath);
  let found: string | undefined;
  for await (const f of walkFiles(svc.cacheDir)) {
    const first = f.path.split("/")[0];
    if (isLocalOnly(f.path)) continue;
    if (namespaceDirs.includes(first)) continue;
    found = f.path;
    break;
  }
  if (found === undefined) return;
  if (namespaceDirs.length > 0) {
    walk.events.emit("warning", {
      code: "unsynced_cache_not_walked",
      message: `The cache ${svc.cacheDir} was never synced in solo mode and holds files (${
        JSON.stringify(found)
      } among them) beside namespace directories (${
        namespaceDirs.join(", ")
      }), so this solo push did not walk it: a walk would take the namespaces' files for root files. Nothing was changed and no unmarked file was pushed. Set the repository's namespace (or move the namespace directories out of ${svc.cacheDir}), then push again.`,
      path: found,
    });
    return;
  }
  await svc.markDirty({ signal: walk.signal });
}

/**
 * Root directories of the cache `cachePath` holding `.namespace.json`,
 * sorted; none when the cache cannot be read.
 *
 * @example
 * ```ts
 * import { namespaceDirsAtRoot } from "./untouched_cache.ts";
 * await namespaceDirsAtRoot("/no/such/cache"); // []
 * ```
 */
export async function namespaceDirsAtRoot(cachePath: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const e of Deno.readDir(cachePath)) {
      if (e.isDirectory && existsSync(`${cachePath}/${e.name}/.namespace.json`)) {
        found.push(e.name);
      }
    }
  } catch {
    return [];
  }
  return found.sort();
}
