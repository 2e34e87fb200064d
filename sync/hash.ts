/**
 * Content hashes (SHA-256, hex) used by the synced manifest and the
 * create-only writer.
 *
 * @module
 */
import { createHash } from "node:crypto";

/**
 * Hex SHA-256 of `bytes`.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./hash.ts";
 * const h = await sha256Hex(new TextEncoder().encode("x"));
 * ```
 */
export function sha256Hex(bytes: Uint8Array): Promise<string> {
  // node:crypto hashes the caller's bytes in place. WebCrypto's digest() first
  // copies its input (as the spec requires), which doubled the peak memory of
  // hashing a large file (measured: +200 MB for a 200 MB body).
  return Promise.resolve(createHash("sha256").update(bytes).digest("hex"));
}

/** {@link sha256Hex}, synchronously. */
export function sha256HexSync(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A random id (hex) for nonces, write tags and probe keys. */
export function randomId(bytes = 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
