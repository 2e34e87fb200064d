/**
 * Cache paths as the command line names them: resolved inside the cache,
 * and told apart from typos by what this cache knows of them.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { SluiceError, UnreadablePathError, UnsafePathError } from "../sync/errors.ts";
import { assertSafeRelPath, isInternalPath } from "../sync/paths.ts";
import type { SyncService } from "../sync/service/service.ts";
import { shellWord } from "../sync/shell_word.ts";
import type { DeletedUnderMarker } from "../sync/left_behind.ts";
import { deletedUnderMarkerReason } from "../sync/service/status.ts";

/**
 * Cache-relative paths from command-line paths (cache-relative, or absolute
 * inside the cache); directories expand to their files, or, with
 * `keepDirs`, stay as named (a push of a marked directory handles what is
 * under it, deletions included). With `known`, a
 * path with nothing at it in the cache must be one this cache synced (a
 * deletion to push), or hold synced paths, or an open conflict: anything
 * else is a typo, refused with `not_found` before anything is done.
 */
export async function cachePaths(
  service: SyncService,
  paths: readonly string[],
  known = false,
  keepDirs = false,
): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const rel = cacheRel(service, p);
    if (known && isInternalPath(rel, service.config.classifierRules)) {
      throw new SluiceError(
        "local_only",
        `${p} is local-only: Sluice never pushes nor pulls it (the bucket layout's own objects, also under a first segment, a lock, Sluice's state, a temporary file, or a path a classifier rule classes internal; see "Path classes" in the README). Nothing was pushed. Name the files you mean to publish; \`sluice status\` lists what changed.`,
      );
    }
    if (await service.cache.stat(rel).catch(unreadableIsThere)) {
      out.push(rel);
      continue;
    }
    // A directory named as it is (`keepDirs`): a push of it also deletes the
    // synced files under it that are gone, and a synced file it replaced.
    if (keepDirs && service.cache.holdsDirectory(rel)) {
      out.push(rel);
      continue;
    }
    const files = await service.cache.listFiles(rel);
    if (known && files.length === 0 && !service.cache.exists(rel) && !knownHere(service, rel)) {
      throw new SluiceError(
        "not_found",
        `Nothing is at ${p} in the cache ${service.cacheDir}, and this cache never synced it, so there is nothing to push or delete there; nothing was pushed. Check the path (relative to the cache, or absolute inside it); \`sluice status\` lists what changed.`,
      );
    }
    // A path that no longer exists stays as given: the push deletes it remotely.
    out.push(...(files.length ? files : [rel]));
  }
  return [...new Set(out)];
}

/** A path this process may not read is there: the push says so for it (never a deletion). */
function unreadableIsThere(e: unknown): true {
  if (e instanceof UnreadablePathError) return true;
  throw e;
}

/** The cache-relative path of a command-line path (cache-relative, or absolute inside the cache). */
export function cacheRel(service: SyncService, p: string): string {
  let rel = p;
  if (isAbsolute(p)) {
    rel = relative(service.cacheDir, p);
    if (rel === "") {
      throw new UnsafePathError(
        p,
        "it is the cache itself: name paths inside it, or none (a command with no path covers the whole cache)",
      );
    }
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new UnsafePathError(
        p,
        `it is not inside the cache ${service.cacheDir}: paths are relative to the cache, or absolute inside it (as \`sluice status\` shows them, relative)`,
      );
    }
  }
  rel = rel.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (rel === ".." || rel.startsWith("../")) {
    throw new UnsafePathError(
      p,
      `it leaves the cache ${service.cacheDir}: paths are relative to the cache (as \`sluice status\` shows them), not to the working directory`,
    );
  }
  assertSafeRelPath(rel);
  return rel;
}

/**
 * The open conflicts a command-line path names: the one at it, else every
 * one under it (a directory), sorted. None is a typo, refused with
 * `not_found` before anything is done: a resolution never acts on a path
 * it was not given, nor passes over one it was.
 */
export function conflictPaths(service: SyncService, paths: readonly string[]): string[] {
  const open = service.conflicts().map((c) => c.path);
  const out = new Set<string>();
  for (const p of paths) {
    const rel = cacheRel(service, p);
    const found = open.includes(rel) ? [rel] : open.filter((c) => c.startsWith(`${rel}/`)).sort();
    if (found.length === 0) {
      throw new SluiceError(
        "not_found",
        `There is no unresolved conflict at or under ${p} in the cache ${service.cacheDir}; nothing was changed. Run \`sluice status\` to list the open conflicts, and name one of them (or a directory holding some).`,
      );
    }
    for (const f of found) out.add(f);
  }
  return [...out];
}

/** True when this cache synced `rel` or paths under it, or holds a conflict on one of them. */
export function knownHere(service: SyncService, rel: string): boolean {
  const { state } = service;
  const under = (p: string) => p === rel || p.startsWith(`${rel}/`);
  return state.synced(rel) !== undefined || state.syncedPaths().some(under) ||
    service.conflicts().some((c) => under(c.path));
}

/**
 * Synced files (under `prefixes`, when given) with nothing at their path in
 * the cache, or a directory of their name, not in conflict: deletions made
 * here that a pull keeps.
 */
export function deletedHere(service: SyncService, prefixes: readonly string[]): string[] {
  const roots = prefixes.map((p) => p.replace(/\/+$/, ""));
  const under = (p: string) =>
    roots.length === 0 || roots.some((r) => p === r || p.startsWith(`${r}/`));
  const conflicted = new Set(service.conflicts().map((c) => c.path));
  // A synced file replaced here by a directory of its name is deleted here too.
  return service.state.syncedPaths()
    .filter((p) => under(p) && !conflicted.has(p) && service.cache.fileGone(p))
    .sort();
}

/** Of `deleted` (synced files deleted here), those a directory of their name now stands at. */
export function directoriesNow(service: SyncService, deleted: readonly string[]): string[] {
  return deleted.filter((p) => service.cache.exists(p));
}

/**
 * A synced file deleted here as a pull or push lists it: with, when a
 * directory of its name is here now, the ways out (a pull with
 * `--restore-deleted` does not write over that directory).
 */
export function deletedHereLine(service: SyncService, path: string): string {
  return service.cache.exists(path)
    ? `  ${path} (a directory of that name is here now: \`sluice push ${
      shellWord(path)
    }\` deletes the file there and publishes the directory's files; move the directory away and run \`sluice pull --restore-deleted\` to take the file back)`
    : `  ${path}`;
}

/**
 * A synced file deleted here as a pull or push lists it, `held` naming the
 * ones whose marker here names their version: for those, why a push naming
 * them alone keeps them and the way on (as `status` says it); for the
 * others, as `deletedHereLine` says it.
 */
export function deletionLineOf(
  service: SyncService,
  held: readonly DeletedUnderMarker[],
): (path: string) => string {
  const by = new Map(held.map((u) => [u.path, u]));
  return (path) => {
    const u = by.get(path);
    return u
      ? `  ${path}: ${deletedUnderMarkerReason(u.marker, u.n)}`
      : deletedHereLine(service, path);
  };
}
