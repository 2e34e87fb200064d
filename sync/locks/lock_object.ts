/**
 * The lock object as the engine reads it: a read that tells "absent" from
 * "failed", a description of whatever body it holds (a lock, or an
 * unreadable object described as one, see {@link UNREADABLE_NONCE}), the
 * nonce match a release or breakglass deletes on, and the store failures a
 * conditional write or delete of it reports.
 *
 * @module
 */
import { AbortedError, NotFoundError, PreconditionFailedError, preview } from "../errors.ts";
import { LockReadError } from "../lock_errors.ts";
import type { GetResult, LockInfo, ObjectStore } from "../ports.ts";
import { shellWord } from "../shell_word.ts";
import {
  bodyProblem,
  describeHolder,
  parseLockBody,
  UNREADABLE_HOLDER,
  UNREADABLE_NONCE,
} from "./lock_body.ts";

export { UNREADABLE_NONCE } from "./lock_body.ts";

/**
 * True when a conditional write or delete of the lock object failed on its
 * condition: the version moved (`PreconditionFailedError`) or the object is
 * gone (`NotFoundError`).
 *
 * @example
 * ```ts
 * import { conditionFailed } from "./lock_object.ts";
 * import { NotFoundError } from "../errors.ts";
 * conditionFailed(new NotFoundError(".datastore.lock")); // true
 * ```
 */
export function conditionFailed(e: unknown): boolean {
  return e instanceof PreconditionFailedError || e instanceof NotFoundError;
}

/**
 * A failure's message for a warning, cut to 160 characters.
 *
 * @example
 * ```ts
 * import { errorDetail } from "./lock_object.ts";
 * errorDetail(new Error("timeout")); // "timeout"
 * ```
 */
export function errorDetail(e: unknown): string {
  return preview(e instanceof Error ? e.message : String(e), 160);
}

/**
 * Reads the lock object at `key`: `null` only when absent; an abort or a
 * `LockReadError` is thrown as is, any other failure as `LockReadError`.
 *
 * @example
 * ```ts
 * import { readLockObject } from "./lock_object.ts";
 * import type { ObjectStore } from "../ports.ts";
 * async function present(store: ObjectStore) {
 *   return (await readLockObject(store, ".datastore.lock")) !== null;
 * }
 * ```
 */
export async function readLockObject(
  store: ObjectStore,
  key: string,
  signal?: AbortSignal,
): Promise<GetResult | null> {
  try {
    return await store.get(key, { signal });
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    if (e instanceof AbortedError || e instanceof LockReadError) throw e;
    throw new LockReadError(key, errorDetail(e), { cause: e });
  }
}

/**
 * The command that breaks the lock at `key`: `sluice lock release --force`,
 * with `--model` for a model lock (`[<ns>/]data/<type…>/<id>/.lock`) and
 * `--namespace` for a namespace's (`.locks/<ns>.lock` is its global lock);
 * without them it breaks the global lock, not this one.
 *
 * @example
 * ```ts
 * import { lockReleaseCommand } from "./lock_object.ts";
 * lockReleaseCommand("prod/data/aws/ec2/web-1/.lock");
 * // "sluice lock release --force --model aws/ec2/web-1 --namespace prod"
 * ```
 */
export function lockReleaseCommand(key: string): string {
  const command = "sluice lock release --force";
  const global = /^\.locks\/([^/]+)\.lock$/.exec(key);
  if (global) return `${command} --namespace ${shellWord(global[1])}`;
  const model = /^(?:([^/]+)\/)?data\/([^/]+\/.+)\/\.lock$/.exec(key);
  if (!model) return command;
  const ns = model[1] ? ` --namespace ${shellWord(model[1])}` : "";
  return `${command} --model ${shellWord(model[2])}${ns}`;
}

/**
 * Who holds a lock, for messages: its holder and pid, or `an unknown holder
 * (<what is wrong>)` for a body {@link parseLockBody} refused.
 *
 * @example
 * ```ts
 * import { describeFound } from "./lock_object.ts";
 * describeFound("malformed lock body \"x\" (not JSON)"); // 'an unknown holder (malformed lock body "x": not JSON)'
 * ```
 */
export function describeFound(found: LockInfo | string): string {
  return typeof found === "string"
    ? `an unknown holder (${bodyProblem(found)})`
    : describeHolder(found);
}

/**
 * The lock object's body as a lock; a body that is no lock is described, not
 * thrown: held by `an unreadable lock: <what is wrong>`, with the object's
 * last-modified time as `acquiredAt`, `ttlMs`, and as nonce
 * {@link UNREADABLE_NONCE} and the object's version.
 *
 * @example
 * ```ts
 * import { describeLockObject } from "./lock_object.ts";
 * const body = new TextEncoder().encode("oops");
 * const info = describeLockObject({ key: "k", version: "v1", size: 4, lastModified: 0, body }, 30_000);
 * info.nonce; // "unreadable@v1"
 * ```
 */
export function describeLockObject(current: GetResult, ttlMs: number): LockInfo {
  const found = parseLockBody(current.body);
  if (typeof found !== "string") return found;
  return {
    holder: `${UNREADABLE_HOLDER}${found}`,
    hostname: "unknown",
    pid: 0,
    acquiredAt: new Date(current.lastModified).toISOString(),
    ttlMs,
    nonce: `${UNREADABLE_NONCE}${current.version}`,
  };
}

/**
 * True when the lock object carries `nonce`: its body's nonce, or, for a body
 * that is no lock, the nonce {@link describeLockObject} gives it.
 *
 * @example
 * ```ts
 * import { carriesNonce } from "./lock_object.ts";
 * const body = new TextEncoder().encode("oops");
 * const current = { key: "k", version: "v1", size: 4, lastModified: 0, body };
 * carriesNonce(current, "unreadable@v1"); // true
 * ```
 */
export function carriesNonce(current: GetResult, nonce: string): boolean {
  const found = parseLockBody(current.body);
  return typeof found === "string"
    ? nonce === `${UNREADABLE_NONCE}${current.version}`
    : found.nonce === nonce;
}
