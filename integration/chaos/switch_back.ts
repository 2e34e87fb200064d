/**
 * I21: a cache the swamp extension drives (a `core` clone) holds nothing of
 * Sluice's own that the tool's existing S3 and GCS extensions, switched in
 * on the same cache, would upload. Their push walks the whole cache and
 * uploads every file but the names they keep local (`isInternalCacheFile`;
 * unbound, they also leave out each root directory holding a
 * `.namespace.json`): a file Sluice keeps local (`isLocalOnly`: its sync
 * state, set-aside copies, temporary files) that their rules do not would be
 * published as the user's data and pulled by every other clone.
 *
 * @module
 */
import { isInternalCacheFile } from "../../packages/extension/cache_paths.ts";
import { isLocalOnly } from "../../sync/transfer/bucket_layout.ts";
import type { Violation } from "./invariants.ts";
import { filesUnder } from "./accounted.ts";

/**
 * The files of Sluice's own that an existing extension's push (unbound, the
 * chaos clones' layout) would upload from the cache at `dir`.
 */
export function uploadedBySwitchBack(dir: string): string[] {
  const namespaceDirs = new Set<string>();
  for (
    const e of (() => {
      try {
        return [...Deno.readDirSync(dir)];
      } catch {
        return [];
      }
    })()
  ) {
    try {
      if (e.isDirectory && Deno.statSync(`${dir}/${e.name}/.namespace.json`).isFile) {
        namespaceDirs.add(e.name);
      }
    } catch { /* no manifest: not a namespace directory */ }
  }
  return filesUnder(dir, "").filter((rel) =>
    !isInternalCacheFile(rel) && !namespaceDirs.has(rel.split("/")[0]) && isLocalOnly(rel)
  ).sort();
}

/** I21 for clone `clone` driven through the extension, its cache at `dir` (see the module). */
export function checkSwitchBack(clone: number, dir: string): Violation[] {
  return uploadedBySwitchBack(dir).map((rel) => ({
    invariant: "I21" as const,
    message:
      `an existing extension switched in on c${clone}'s cache would upload ${rel}, which Sluice keeps local as its own`,
    afterOp: -1,
  }));
}
