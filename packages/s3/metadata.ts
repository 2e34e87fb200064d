/**
 * S3 user metadata as the store sends and reads it: the write id a
 * conditional put carries (hidden from callers), the metadata a caller may
 * set (lower-case ASCII names, printable ASCII values), and ETags as the
 * `If-Match` header wants them.
 *
 * @module
 */
import { UnsafePathError } from "../../sync/errors.ts";
import { normaliseEtag } from "./errors.ts";

/**
 * User-metadata key of the random id a conditional put carries; hidden from
 * the metadata that `get` and `head` return.
 */
export const WRITE_ID = "sluice-write-id";

/**
 * Splits user metadata as S3 returns it into the caller's metadata and the
 * write id.
 *
 * @example
 * ```ts
 * import { splitMetadata } from "./metadata.ts";
 * console.log(splitMetadata({ a: "1", "sluice-write-id": "w" })); // { metadata: { a: "1" }, writeId: "w" }
 * ```
 */
export function splitMetadata(
  raw: Record<string, string> | undefined,
): { metadata: Record<string, string>; writeId?: string } {
  const metadata: Record<string, string> = {};
  let writeId: string | undefined;
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (k.toLowerCase() === WRITE_ID) writeId = v;
    else metadata[k] = v;
  }
  return { metadata, writeId };
}

/** An ETag quoted, as `If-Match` takes it. */
export function quoteEtag(version: string): string {
  const v = normaliseEtag(version);
  return `"${v}"`;
}

/**
 * The caller's metadata to send (undefined when none): refuses the reserved
 * write id and names or values S3 would mangle, with `UnsafePathError`.
 */
export function checkMetadata(
  key: string,
  metadata: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (k === WRITE_ID) {
      throw new UnsafePathError(key, `metadata ${JSON.stringify(k)} is reserved by the S3 store`);
    }
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(k) || /[^\x20-\x7e]/.test(v)) {
      throw new UnsafePathError(
        key,
        `metadata ${
          JSON.stringify(k)
        } must have a lower-case ASCII name and a printable ASCII value`,
      );
    }
    out[k] = v;
  }
  return out;
}
