/**
 * The versions of a data above one this push lost that the datastore holds
 * and no index names (an older client's runs stopped before their commit),
 * kept as empty local directories so that the next version made here is
 * numbered above them (`create_only_writer.ts`).
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { withRetry } from "../sync/retry.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";

/**
 * After this push lost the version directory `dir` (`data/…/<N>`) to
 * another writer: the versions of the same data above N that the datastore
 * holds and no index names (an older client's run stopped between its
 * uploads and its commit leaves them, one per run). Each gets an empty
 * directory here, as the lost one keeps, so that the next version made here
 * (numbered from the highest directory in the cache, as swamp core does) is
 * above them all: one failed run, not one for each such version. One
 * listing of the data's directory, on this path only; a listing that fails
 * keeps nothing (the conflict is told all the same). Returns the
 * directories made, lowest first.
 */
export async function keepUnindexedAbove(push: PushContext, dir: string): Promise<string[]> {
  const cut = dir.lastIndexOf("/");
  const lost = dir.slice(cut + 1);
  if (cut < 0 || !/^\d+$/.test(lost)) return [];
  const data = dir.slice(0, cut + 1);
  const byVersion = new Map<string, string[]>();
  try {
    const keys = await withRetry(
      async () => {
        const out: string[] = [];
        for await (const page of push.store.list(data, { signal: push.signal })) {
          for (const o of page) out.push(o.key);
        }
        return out;
      },
      push.config.retry,
      push.signal,
    );
    for (const key of keys) {
      const v = /^(\d+)\//.exec(key.slice(data.length))?.[1];
      if (v === undefined || Number(v) <= Number(lost)) continue;
      byVersion.set(v, [...byVersion.get(v) ?? [], key]);
    }
    if (byVersion.size === 0) return [];
    const named =
      (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
        ?.entries ?? {};
    const kept: string[] = [];
    for (const [v, keys] of [...byVersion].sort((a, b) => Number(a[0]) - Number(b[0]))) {
      if (keys.some((k) => Object.hasOwn(named, k))) continue;
      if (push.cache.keepDirectory(`${data}${v}`)) kept.push(`${data}${v}`);
    }
    return kept;
  } catch (e) {
    if (push.signal?.aborted) throw e;
    return [];
  }
}
