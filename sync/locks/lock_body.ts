/**
 * The lock object's body: `{holder, hostname, pid, acquiredAt, ttlMs, nonce}`
 * as JSON. Shared by the lock engine, the breakglass and third-party locks
 * that want the same format.
 *
 * @module
 */
import { preview } from "../errors.ts";
import { LockReadError } from "../lock_errors.ts";
import type { LockInfo } from "../ports.ts";

/**
 * Encodes a lock body as JSON bytes (only the six lock fields).
 *
 * @example
 * ```ts
 * import { encodeLockInfo } from "./lock_body.ts";
 * const bytes = encodeLockInfo({
 *   holder: "a@h", hostname: "h", pid: 1, acquiredAt: "2026-01-01T00:00:00.000Z", ttlMs: 30_000, nonce: "n",
 * });
 * ```
 */
export function encodeLockInfo(info: LockInfo): Uint8Array {
  const { holder, hostname, pid, acquiredAt, ttlMs, nonce } = info;
  return new TextEncoder().encode(
    JSON.stringify({ holder, hostname, pid, acquiredAt, ttlMs, nonce }),
  );
}

/**
 * Decodes a lock body, or returns a short description (with a preview of the
 * body) of what is wrong with it.
 *
 * @example
 * ```ts
 * import { parseLockBody } from "./lock_body.ts";
 * const r = parseLockBody(new TextEncoder().encode("{}"));
 * if (typeof r === "string") console.log(r); // malformed lock body "{}" (missing or invalid …)
 * ```
 */
export function parseLockBody(body: Uint8Array): LockInfo | string {
  const text = new TextDecoder().decode(body);
  const shown = JSON.stringify(preview(text, 60));
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return `malformed lock body ${shown} (not JSON)`;
  }
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  const bad: string[] = ["holder", "hostname", "acquiredAt", "nonce"].filter((f) =>
    typeof o[f] !== "string" || (f !== "hostname" && o[f] === "")
  );
  if (typeof o.pid !== "number" || !Number.isFinite(o.pid)) bad.push("pid");
  if (typeof o.ttlMs !== "number" || !(o.ttlMs > 0)) bad.push("ttlMs");
  if (bad.length > 0) return `malformed lock body ${shown} (missing or invalid ${bad.join(", ")})`;
  const { holder, hostname, pid, acquiredAt, ttlMs, nonce } = o as unknown as LockInfo;
  return { holder, hostname, pid, acquiredAt, ttlMs, nonce };
}

/**
 * Decodes a lock body; throws `LockReadError` naming `key`, with a short
 * preview, when it is not a complete lock body.
 *
 * @example
 * ```ts
 * import { decodeLockInfo } from "./lock_body.ts";
 * try {
 *   decodeLockInfo(".datastore.lock", new TextEncoder().encode("oops"));
 * } catch (e) {
 *   console.log((e as Error).message);
 * }
 * ```
 */
export function decodeLockInfo(key: string, body: Uint8Array): LockInfo {
  const r = parseLockBody(body);
  if (typeof r === "string") throw new LockReadError(key, r, { malformed: true });
  return r;
}

/**
 * The holder a lock object whose body is no lock is described with
 * (`StoreLock.describe`), before what is wrong with its body.
 */
export const UNREADABLE_HOLDER = "an unreadable lock: ";

/**
 * The nonce prefix `StoreLock.describe` gives a lock object whose body is no
 * lock, followed by the object's version.
 */
export const UNREADABLE_NONCE = "unreadable@";

/**
 * What {@link parseLockBody} found wrong with a body, worded to stand in
 * parentheses: `malformed lock body "x": not JSON`.
 *
 * @example
 * ```ts
 * import { bodyProblem } from "./lock_body.ts";
 * bodyProblem('malformed lock body "x" (not JSON)'); // 'malformed lock body "x": not JSON'
 * ```
 */
export function bodyProblem(found: string): string {
  return found.replace(/ \(([^()]*)\)$/, ": $1");
}

/**
 * For a lock object described as held by an unreadable lock, what is wrong
 * with its body (see {@link bodyProblem}); undefined for a lock's holder.
 *
 * @example
 * ```ts
 * import { unreadableProblem } from "./lock_body.ts";
 * unreadableProblem({ holder: 'an unreadable lock: malformed lock body "x" (not JSON)', nonce: "unreadable@v1" });
 * // 'malformed lock body "x": not JSON'
 * unreadableProblem({ holder: "a@h", nonce: "n" }); // undefined
 * ```
 */
export function unreadableProblem(
  info: Pick<LockInfo, "holder"> & Partial<Pick<LockInfo, "nonce">>,
): string | undefined {
  if (!info.holder.startsWith(UNREADABLE_HOLDER)) return undefined;
  if (info.nonce !== undefined && !info.nonce.startsWith(UNREADABLE_NONCE)) return undefined;
  return bodyProblem(info.holder.slice(UNREADABLE_HOLDER.length));
}

/**
 * A holder for messages: `alice@host (pid 42)`; for a lock object whose body
 * is no lock, `an unknown holder (<what is wrong with the body>)`, with no
 * pid (it has none).
 *
 * @example
 * ```ts
 * import { describeHolder } from "./lock_body.ts";
 * describeHolder({ holder: "a@h", pid: 1 }); // "a@h (pid 1)"
 * ```
 */
export function describeHolder(
  info: Pick<LockInfo, "holder" | "pid"> & Partial<Pick<LockInfo, "nonce">>,
): string {
  const problem = unreadableProblem(info);
  return problem === undefined
    ? `${info.holder} (pid ${info.pid})`
    : `an unknown holder (${problem})`;
}
