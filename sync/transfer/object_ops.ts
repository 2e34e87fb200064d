/**
 * Two object operations the push and its gates share: a delete conditional
 * on a version, and a read that hashes an object as it streams.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { NotFoundError, PreconditionFailedError } from "../errors.ts";
import type { ObjectInfo, ObjectStore } from "../ports.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";
import { openObject } from "./body.ts";

/** Retries and cancellation of these operations. */
export interface ObjectOpOptions {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
}

/**
 * Deletes `version` of `key` (any version when undefined), retried; false
 * when the store holds another version or nothing by then.
 *
 * @example
 * ```ts
 * import { deleteAt } from "./object_ops.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * console.log(await deleteAt(store, "a.txt", "v1", { retry })); // false: nothing there
 * ```
 */
export async function deleteAt(
  store: ObjectStore,
  key: string,
  version: string | undefined,
  o: ObjectOpOptions,
): Promise<boolean> {
  try {
    await withRetry(
      () => store.delete(key, { signal: o.signal, ifVersion: version }),
      o.retry,
      o.signal,
    );
    return true;
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof NotFoundError) return false;
    throw e;
  }
}

/**
 * The object at `key` (its info) and the hex SHA-256 of its bytes, read as a
 * stream and hashed in chunks, never held whole; retried as a whole. Throws
 * `NotFoundError` when absent.
 *
 * @example
 * ```ts
 * import { hashObject } from "./object_ops.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * await store.put("a.txt", new Uint8Array([1]), { kind: "overwrite" });
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * console.log((await hashObject(store, "a.txt", { retry })).hash.length); // 64
 * ```
 */
export async function hashObject(
  store: ObjectStore,
  key: string,
  o: ObjectOpOptions,
): Promise<{ info: ObjectInfo; hash: string }> {
  return await withRetry(
    async () => {
      const { body, ...info } = await openObject(store, key, { signal: o.signal });
      const h = createHash("sha256");
      for await (const chunk of body) h.update(chunk);
      return { info, hash: h.digest("hex") };
    },
    o.retry,
    o.signal,
  );
}
