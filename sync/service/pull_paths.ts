/**
 * Where a pull may write a path: whether it lies under the prefixes a pull
 * was asked for, and what in the cache is in its way.
 *
 * @module
 */
import type { PullDeps } from "./pull.ts";

/** True when `path` is one of `prefixes` or lies under one (every path without them). */
export function under(path: string, prefixes: readonly string[] | undefined): boolean {
  return !prefixes ||
    prefixes.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`));
}

/**
 * What in the cache is in the way of `path`: a file (or link) at a directory
 * above it, or a directory at it; undefined when the way is clear.
 */
export function inTheWay(
  cache: Pick<PullDeps["cache"], "exists" | "holdsDirectory">,
  path: string,
): string | undefined {
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    const above = path.slice(0, i);
    if (!cache.exists(above)) return undefined;
    if (!cache.holdsDirectory(above)) return above;
  }
  return cache.holdsDirectory(path) ? `${path}/` : undefined;
}
