/**
 * Content hashes (SHA-256, hex) used by the synced manifest and the
 * create-only writer.
 *
 * @module
 */

/**
 * Hex SHA-256 of `bytes`.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./hash.ts";
 * const h = await sha256Hex(new TextEncoder().encode("x"));
 * ```
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A random id (hex) for nonces, write tags and probe keys. */
export function randomId(bytes = 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
