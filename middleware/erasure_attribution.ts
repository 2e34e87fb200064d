/**
 * Which of a refused run's directories are provably its own, and the paths
 * around them: version directories, their `latest` markers, the models
 * behind lost locks, and the uploads to delete. The erasure
 * (`erasure.ts`) acts on what this finds.
 *
 * @module
 */
import type { LostLock } from "../sync/lock_errors.ts";
import { isSafeRelPath, parentOf } from "../sync/paths.ts";
import type { CacheAccess, UploadRecord } from "../sync/context.ts";
import type { Unattributable, UploadRef } from "./erasure_journal.ts";

/** True when `path` is `dir` or lies under it. */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * The version directory `[<ns>/]data/<type…>/<modelId>/<dataName>/<N>` with
 * trailing slashes removed, or null when `dir` does not have that shape.
 *
 * @example
 * ```ts
 * import { versionDir } from "./erasure_attribution.ts";
 * versionDir("data/aws/ec2/m1/state/4/"); // "data/aws/ec2/m1/state/4"
 * versionDir("data/aws/ec2/m1"); // null
 * ```
 */
export function versionDir(dir: string): string | null {
  const d = dir.replace(/\/+$/, "");
  if (!isSafeRelPath(d)) return null;
  const segs = d.split("/");
  const at = segs[0] === "data" ? 0 : segs[1] === "data" ? 1 : -1;
  if (at < 0 || segs.length - at < 5 || !/^\d+$/.test(segs[segs.length - 1])) return null;
  return d;
}

/** The `latest` marker of a version directory. */
export function markerOf(dir: string): string {
  return `${parentOf(dir)}/latest`;
}

/**
 * The objects a refused push uploaded under `dirs`, as references to delete,
 * leaving out those `foundEqual` says the push only found in place (a
 * create-only write that met equal bytes: another writer's object). Also a
 * `latest` marker of theirs that the push created: a marker is written only
 * once the fence let the push commit, but a first pass whose commit held it
 * back (its files found in place were erased) leaves it to a second pass,
 * which may then be refused. A marker written over an earlier one is never
 * among them: that earlier version, which the index may name, is gone.
 */
export function refusedUploads(
  uploaded: readonly UploadRecord[],
  dirs: readonly string[],
  foundEqual: (u: UploadRecord) => boolean,
): UploadRef[] {
  const markers = new Set(dirs.map(markerOf));
  return uploaded
    .filter((u) =>
      (dirs.some((d) => isUnder(u.path, d)) && !foundEqual(u)) ||
      (markers.has(u.path) && u.created && u.outcome === "written")
    )
    .map((u) => ({ path: u.path, version: u.info.version }));
}

/** True when `marker` is the `latest` marker of a `held` directory and names that version. */
export async function markerNamesHeld(
  cache: CacheAccess,
  marker: string,
  held: readonly string[],
): Promise<boolean> {
  if (!held.some((d) => markerOf(d) === marker)) return false;
  const named = new TextDecoder().decode((await cache.read(marker)) ?? new Uint8Array()).trim();
  return held.includes(`${parentOf(marker)}/${named}`);
}

/**
 * Cache prefixes of the models behind lost lock keys (`…/<model>/.lock`) and
 * version directories (`…/<model>/<dataName>/<N>`), de-duplicated.
 */
export function modelPrefixes(lost: readonly LostLock[], dirs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const l of lost) if (l.key.endsWith("/.lock")) out.add(parentOf(l.key));
  for (const d of dirs) out.add(parentOf(parentOf(d)));
  return [...out].filter((p) => p !== "").sort();
}

/**
 * The written directories that cannot be told apart from another run's data:
 * not a version directory, present before the run, or holding a file that
 * was already synced with the datastore before this push (`syncedBefore`).
 */
export async function findUnattributable(
  cache: CacheAccess,
  written: readonly string[],
  preexisting: ReadonlySet<string>,
  syncedBefore: (path: string) => boolean,
): Promise<Unattributable[]> {
  const before = new Set([...preexisting].map((p) => p.replace(/\/+$/, "")));
  const out: Unattributable[] = [];
  for (const w of written) {
    const dir = versionDir(w);
    if (!dir) {
      out.push({
        dir: w,
        reason: "it is not a data version directory (data/<type…>/<model>/<data>/<N>)",
      });
    } else if (before.has(dir)) {
      out.push({ dir, reason: "it existed in the cache before the run started" });
    } else {
      const synced = (await cache.listFiles(dir)).find(syncedBefore);
      if (synced) {
        out.push({
          dir,
          reason:
            `it holds ${synced}, already synced with the datastore (published by a push before this one was refused, during this run or before it)`,
        });
      }
    }
  }
  return out;
}
