/**
 * The remote index: one small object per bucket prefix listing every synced
 * path with its version, hash and size. A push updates it last (with a
 * compare-and-swap), so a pull that finds its version unchanged costs one
 * request, and files a push uploaded but never committed stay invisible to
 * peers until that push is completed.
 *
 * @module
 */
import {
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  preview,
  SluiceError,
} from "./errors.ts";
import { type ObjectStore, PutModes } from "./ports.ts";
import { type RetryPolicy, withRetry } from "./retry.ts";

/** Store key of the index (internal: never a cache file). */
export const INDEX_KEY = ".sluice/index.json";

/** One indexed path. */
export interface IndexEntry {
  /** Remote version. */
  readonly v: string;
  /** Hex SHA-256. */
  readonly h: string;
  /** Size. */
  readonly s: number;
}

/** A parsed index with its object version. */
export interface RemoteIndex {
  readonly version: string;
  readonly entries: Record<string, IndexEntry>;
}

function parse(body: Uint8Array, version: string): RemoteIndex {
  try {
    const j = JSON.parse(new TextDecoder().decode(body));
    if (j?.format !== 1 || typeof j.entries !== "object" || j.entries === null) {
      throw new Error("unknown format");
    }
    // Every entry is checked here, so a damaged one fails as a damaged index
    // rather than as an odd size or hash mismatch later.
    for (const [path, e] of Object.entries(j.entries as Record<string, unknown>)) {
      const x = e as Partial<IndexEntry> | null;
      if (
        typeof x !== "object" || x === null || typeof x.v !== "string" ||
        typeof x.h !== "string" || !Number.isSafeInteger(x.s) || (x.s as number) < 0
      ) {
        throw new Error(`the entry of ${JSON.stringify(preview(path, 80))} is malformed`);
      }
    }
    return { version, entries: j.entries as Record<string, IndexEntry> };
  } catch (e) {
    // No push can repair it: every push reads the index first, and rewriting
    // it from one clone's view would drop its peers' entries.
    throw new SluiceError(
      "corrupt_download",
      `The remote index ${INDEX_KEY} is unreadable (${
        (e as Error).message
      }). Nothing was changed locally, and pushes stay refused until it is readable (local changes stay dirty). Sluice never writes such an index: check the bucket for a foreign writer, restore ${INDEX_KEY} from a backup or an earlier object version, then run the command again.`,
      { cause: e },
    );
  }
}

/**
 * The last index this service read or wrote, held so that a push whose index
 * is unchanged remotely (checked with one HEAD) need not download and parse
 * it again: in a cache of 100 000 files the index is about 12 MB. Whoever
 * takes it owns it (it is changed in place), so a failed update leaves
 * nothing stale behind.
 */
export class IndexMemo {
  #last: RemoteIndex | null = null;

  /** Keeps `index` (which must not be changed afterwards by the caller). */
  remember(index: RemoteIndex | null): void {
    this.#last = index;
  }

  /** Hands over the kept index, if any, and forgets it. */
  take(): RemoteIndex | null {
    const last = this.#last;
    this.#last = null;
    return last;
  }
}

/** Reads the index; null when the store has none yet. */
export async function readIndex(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<RemoteIndex | null> {
  try {
    const r = await withRetry(() => store.get(INDEX_KEY, { signal }), retry, signal);
    return parse(r.body, r.version);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * Applies `set` and `remove` to the remote index with a compare-and-swap,
 * re-reading and re-applying on a conflict (bounded). On an endpoint that
 * refuses conditional writes it falls back to compare-then-write. With a
 * `memo`, the index it holds is used when a HEAD shows the remote one still
 * at its version, and the written index is kept there for the next update.
 */
export async function updateIndex(
  store: ObjectStore,
  change: { set: Record<string, IndexEntry>; remove: readonly string[] },
  retry: RetryPolicy,
  signal?: AbortSignal,
  memo?: IndexMemo,
): Promise<string> {
  if (Object.keys(change.set).length === 0 && change.remove.length === 0) return "";
  let conditional = true;
  for (let attempt = 0; attempt < 25; attempt++) {
    const held = memo?.take();
    let cur: RemoteIndex | null = null;
    if (held) {
      // Only a shortcut: when the HEAD fails, the index is read as without a memo.
      const head = await store.head(INDEX_KEY, { signal }).catch((e) => {
        if (signal?.aborted) throw e;
        return null;
      });
      if (head?.version === held.version) cur = held;
    }
    cur ??= await readIndex(store, retry, signal);
    // Freshly parsed, or taken from the memo: owned here, so changed in place.
    const entries = cur?.entries ?? {};
    for (const p of change.remove) delete entries[p];
    Object.assign(entries, change.set);
    const body = new TextEncoder().encode(JSON.stringify({ format: 1, entries }));
    try {
      const mode = !conditional
        ? PutModes.overwrite
        : cur
        ? PutModes.update(cur.version)
        : PutModes.create;
      if (!conditional && cur) {
        const head = await store.head(INDEX_KEY, { signal });
        if (head && head.version !== cur.version) continue;
      }
      const info = await withRetry(
        () => store.put(INDEX_KEY, body, mode, { signal }),
        retry,
        signal,
      );
      memo?.remember({ version: info.version, entries });
      return info.version;
    } catch (e) {
      if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) continue;
      if (e instanceof NotImplementedError) {
        conditional = false;
        continue;
      }
      throw e;
    }
  }
  throw new SluiceError(
    "push_failed",
    `Could not update the remote index ${INDEX_KEY}: it kept changing under concurrent pushes. The uploaded files are kept remotely and stay dirty locally; run the push again.`,
    { retryable: true },
  );
}
