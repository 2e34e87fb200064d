/**
 * swamp's lazy hydration: which files a `metadataOnly` pull leaves for
 * `hydrateFile` to fetch when they are read.
 *
 * @module
 */

/**
 * True for the `raw` file of a data version, `data/…/raw` with at least
 * three segments (relative to the namespace root): the bytes a lazy pull
 * defers. Everything else (metadata, latest markers, definitions) is pulled.
 *
 * @example
 * ```ts
 * import { isLazySkippable } from "./lazy_paths.ts";
 * console.log(isLazySkippable("data/t/m/out/1/raw")); // true
 * console.log(isLazySkippable("data/t/m/out/1/metadata.yaml")); // false
 * ```
 */
export function isLazySkippable(path: string): boolean {
  const parts = path.split("/");
  return parts.length >= 3 && parts[0] === "data" && parts[parts.length - 1] === "raw";
}
