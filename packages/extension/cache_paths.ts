/**
 * Cache paths as the adapter sees them: the files the existing extensions
 * keep local (never marked, pushed or pulled), and the cache prefixes a
 * pull scoped to the tool's models covers.
 *
 * @module
 */
import type { SwampModelRef } from "./contract.ts";

/**
 * True for the files the existing extensions keep local (never uploaded,
 * never indexed), by their path relative to the cache root.
 *
 * @example
 * ```ts
 * import { isInternalCacheFile } from "./cache_paths.ts";
 * isInternalCacheFile("prod/data/t/m/.lock"); // true
 * isInternalCacheFile("data/t/m/state/1/raw"); // false
 * ```
 */
export function isInternalCacheFile(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf("/") + 1);
  return [".datastore-index.json", ".push-queue.json", ".datastore.lock"].includes(rel) ||
    rel === ".datastore-sync-state.json" ||
    /^(_index|_control)(\/|$)/.test(rel) ||
    base === ".lock" || base === ".namespace.json" ||
    base === "_catalog.db" || base.startsWith("_catalog.db-");
}

/**
 * Cache prefixes a scoped pull of `models` covers.
 *
 * @example
 * ```ts
 * import { modelPullPrefixes } from "./cache_paths.ts";
 * modelPullPrefixes([{ modelType: "t", modelId: "m" }]);
 * // ["data/t/m", "definitions-evaluated/t/m.yaml"]
 * ```
 */
export function modelPullPrefixes(models: readonly SwampModelRef[]): string[] {
  return models.flatMap((m) => [
    `data/${m.modelType}/${m.modelId}`,
    `definitions-evaluated/${m.modelType}/${m.modelId}.yaml`,
  ]);
}
