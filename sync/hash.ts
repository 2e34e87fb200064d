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

/** Two hex digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, x) => x.toString(16).padStart(2, "0"));

/**
 * Random bytes drawn from `crypto.getRandomValues` ahead of use, 4 KiB at a
 * time: a push tags every data version write with an id, and one call per
 * id cost more than the rest of the id. Each byte is handed out once.
 */
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

/** A random id (hex) for nonces, write tags and probe keys: `bytes` bytes from the system CSPRNG. */
export function randomId(bytes = 16): string {
  if (bytes > POOL.length) {
    const b = crypto.getRandomValues(new Uint8Array(bytes));
    let big = "";
    for (let i = 0; i < b.length; i++) big += HEX[b[i]];
    return big;
  }
  if (poolAt + bytes > POOL.length) {
    crypto.getRandomValues(POOL);
    poolAt = 0;
  }
  let s = "";
  for (let i = poolAt, end = poolAt + bytes; i < end; i++) s += HEX[POOL[i]];
  poolAt += bytes;
  return s;
}
