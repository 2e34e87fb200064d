/**
 * Bucket prefixes, store keys and endpoint descriptions, as every bucket
 * store treats them.
 *
 * @module
 */
import { UnsafePathError } from "../../sync/errors.ts";

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
