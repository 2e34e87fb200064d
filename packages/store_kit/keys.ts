/**
 * Bucket prefixes, store keys and endpoint descriptions, as every bucket
 * store treats them.
 *
 * @module
 */
import { ConfigError, UnsafePathError } from "../../sync/errors.ts";
import { isSafeRelPath } from "../../sync/paths.ts";

/**
 * A bucket prefix in its normal form: no leading `/`, and either empty or
 * ending in exactly one `/`.
 *
 * @example
 * ```ts
 * import { normalisePrefix } from "./keys.ts";
 * normalisePrefix("/datastore//"); // "datastore/"
 * normalisePrefix(""); // ""
 * ```
 */
export function normalisePrefix(prefix: string): string {
  const p = prefix.replace(/^\/+/, "").replace(/\/+$/, "");
  return p ? `${p}/` : "";
}

/**
 * A bucket prefix checked and in its normal form (see
 * {@link normalisePrefix}): edge slashes are dropped, and a prefix with a
 * `.`, `..` or empty segment, a backslash or a control character throws
 * `ConfigError` (`invalid_config`) naming `field`, before any request. An
 * endpoint would resolve such names to other keys (`safe/../x` is `x`), or
 * refuse them, so a store never sends one.
 *
 * @example
 * ```ts
 * import { checkedPrefix } from "./keys.ts";
 * checkedPrefix("/team/ds/"); // "team/ds/"
 * try {
 *   checkedPrefix("safe/../escape");
 * } catch (e) {
 *   console.log((e as Error).message); // Invalid configuration at "prefix": …
 * }
 * ```
 */
export function checkedPrefix(prefix: string, field = "prefix"): string {
  const p = prefix.replace(/^\/+/, "").replace(/\/+$/, "");
  if (p !== "" && !isSafeRelPath(p)) {
    throw new ConfigError(
      field,
      `a plain key prefix without '.', '..' or empty segments, backslashes or control characters, got ${
        JSON.stringify(prefix)
      } (an endpoint would resolve such a name to another key, or refuse it)`,
    );
  }
  return p ? `${p}/` : "";
}

/**
 * The object name of a store key under a normalised `prefix`; throws
 * `UnsafePathError` for an empty or absolute key, or one holding NUL.
 *
 * @example
 * ```ts
 * import { joinKey } from "./keys.ts";
 * joinKey("datastore/", "data/m/1/raw"); // "datastore/data/m/1/raw"
 * ```
 */
export function joinKey(prefix: string, key: string): string {
  if (!key || key.startsWith("/") || key.includes("\0")) {
    throw new UnsafePathError(key, "store keys must be non-empty, relative, and free of NUL");
  }
  return prefix + key;
}

/**
 * A store's `endpoint` as messages name it: `<scheme>://<bucket>/<prefix>`,
 * then ` at <protocol>//<host><path>` for a custom endpoint (its credentials
 * and query left out).
 *
 * @example
 * ```ts
 * import { describeEndpoint } from "./keys.ts";
 * describeEndpoint("s3", "b", "p/", "http://u:pw@127.0.0.1:9000/"); // "s3://b/p at http://127.0.0.1:9000"
 * describeEndpoint("gs", "b", ""); // "gs://b/"
 * ```
 */
export function describeEndpoint(
  scheme: string,
  bucket: string,
  prefix: string,
  endpoint?: string,
): string {
  const base = `${scheme}://${bucket}/${prefix.replace(/\/$/, "")}`;
  if (!endpoint) return base;
  try {
    const u = new URL(endpoint);
    return `${base} at ${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return `${base} at a custom endpoint`;
  }
}
