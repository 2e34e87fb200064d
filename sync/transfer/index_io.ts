/**
 * The store requests under the remote index (`remote_index.ts`): reads of
 * the meta and shards, compare-and-swap writes and deletes, and the pause
 * between refused rounds. The application of a change to a set of entries
 * is `index_apply.ts`.
 *
 * @module
 */
import {
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
} from "../errors.ts";
import { type GetResult, type ObjectStore, PutModes } from "../ports.ts";
import { backoff, type RetryPolicy, withRetry } from "../retry.ts";
import {
  type IndexEntry,
  type Meta,
  META_KEY,
  parseMeta,
  parseShard,
  shardKey,
} from "./bucket_layout.ts";

/**
 * Runs `fn` over `items`, at most `limit` at a time, in the caller's own
 * turn (no timers between calls: a single-writer scheduler sees one caller).
 * A failure starts no further call, and is thrown once every call started
 * has ended: nothing runs on after it returns.
 */
export async function eachLimit<T>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const list = [...items];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < list.length) {
      try {
        await fn(list[next++]);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const runs = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(limit, list.length)) }, worker),
  );
  const failure = runs.find((r) => r.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

export type Call = { retry: RetryPolicy; signal?: AbortSignal; concurrency?: number };

export async function getOrNull(
  store: ObjectStore,
  key: string,
  c: Call,
): Promise<GetResult | null> {
  try {
    return await withRetry(() => store.get(key, { signal: c.signal }), c.retry, c.signal);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

export function unreadable(key: string, e: unknown): SluiceError {
  // No push can repair it: every push reads the index first, and rewriting
  // it from one clone's view would drop its peers' entries.
  return new SluiceError(
    "corrupt_download",
    `The remote index object ${key} is unreadable (${
      (e as Error).message
    }). Nothing was changed locally, and pushes stay refused until it is readable (local changes stay dirty). Sluice never writes such an index: check the bucket for a foreign writer, restore ${key} from a backup or an earlier object version, then run the command again.`,
    { cause: e },
  );
}

export function parsed<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw unreadable(key, e);
  }
}

/** The meta with its object version; `null` when absent (or not a known form). */
export async function readMeta(
  store: ObjectStore,
  c: Call,
): Promise<{ meta: Meta; version: string } | null> {
  const got = await getOrNull(store, META_KEY, c);
  const meta = got ? parseMeta(got.body) : null;
  return got && meta ? { meta, version: got.version } : null;
}

export async function readShardOrNull(
  store: ObjectStore,
  partition: string,
  c: Call,
): Promise<{ entries: Record<string, IndexEntry>; version: string } | null> {
  const key = shardKey(partition);
  const got = await getOrNull(store, key, c);
  if (!got) return null;
  const entries = parsed(key, () => parseShard(got.body));
  return entries ? { entries, version: got.version } : null;
}

export const CONFLICT_LIMIT = 25;

/**
 * A compare-and-swap write: `create` when `expected` is null, else `update`.
 * On an endpoint that refuses conditional writes, a read compares first (this
 * narrows, cannot close, the race). Returns the new version, or `null` when
 * the object changed meanwhile.
 */
export async function casPut(
  store: ObjectStore,
  key: string,
  body: Uint8Array,
  expected: string | null,
  c: Call,
): Promise<string | null> {
  const mode = expected === null ? PutModes.create : PutModes.update(expected);
  try {
    const info = await withRetry(
      () => store.put(key, body, mode, { signal: c.signal }),
      c.retry,
      c.signal,
    );
    return info.version;
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    if (!(e instanceof NotImplementedError)) throw e;
  }
  const head = await withRetry(() => store.head(key, { signal: c.signal }), c.retry, c.signal);
  if ((head?.version ?? null) !== expected) return null;
  const info = await withRetry(
    () => store.put(key, body, PutModes.overwrite, { signal: c.signal }),
    c.retry,
    c.signal,
  );
  return info.version;
}

/** A conditional delete; `false` when the object changed meanwhile. */
export async function casDelete(store: ObjectStore, key: string, version: string, c: Call) {
  try {
    await withRetry(
      () => store.delete(key, { ifVersion: version, signal: c.signal }),
      c.retry,
      c.signal,
    );
    return true;
  } catch (e) {
    if (e instanceof PreconditionFailedError) return false;
    if (e instanceof NotFoundError) return true;
    throw e;
  }
}

export function busy(key: string): SluiceError {
  return new SluiceError(
    "push_failed",
    `Could not update the remote index (${key}): it kept changing under concurrent pushes. The uploaded files are kept remotely and stay dirty locally; run the push again.`,
    { retryable: true },
  );
}

/**
 * Waits before another compare-and-swap round after a refused one: a random
 * time up to `minTimeoutMs / 10 × 2^attempt` (capped by `maxTimeoutMs`), so
 * that writers refused together do not all come back together. No wait
 * under a policy with `minTimeoutMs` 0 (tests and seeded histories).
 */
export async function conflictPause(attempt: number, c: Call): Promise<void> {
  const cap = Math.min(c.retry.maxTimeoutMs, (c.retry.minTimeoutMs / 10) * 2 ** (attempt - 1));
  if (cap > 0) await backoff(Math.random() * cap, c.signal);
}

/** The shards the bucket holds: partition key to version. */
export async function listShards(
  store: ObjectStore,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const page of store.list("_index/", { signal })) {
    for (const o of page) {
      const name = o.key.slice("_index/".length);
      if (name !== "_meta.json" && name.endsWith(".json") && !name.includes("/")) {
        out.set(name.slice(0, -".json".length), o.version);
      }
    }
  }
  return out;
}
