/**
 * The index a pull works from: the token's fast path (nothing changed since
 * the last whole pull, or since this cache's own checked commit), the read of
 * the v1 index object or the v2 shards, the discovery of a datastore with
 * objects and no index, the refusal of an index naming unsafe keys, a
 * warning when an old client's push unlisted the unpartitioned shard, and
 * the drop of the token a pull of some prefixes finds outgrown.
 *
 * @module
 */
import { UnsafePathError } from "../errors.ts";
import { isSafeRelPath } from "../paths.ts";
import {
  headIndexAndMeta,
  INDEX_KEY,
  type IndexHead,
  readIndex,
  type RemoteIndex,
  updateIndex,
} from "../transfer/remote_index.ts";
import { shardsMatch } from "../transfer/index_v2.ts";
import { META_KEY, shardKey, shardOf, UNPARTITIONED } from "../transfer/bucket_layout.ts";
import type { SluiceEmitter } from "../events.ts";
import { checkedToken, UNCHECKED } from "./state.ts";
import { indexDiscovery } from "./index_discovered.ts";
import type { PullDeps } from "./pull.ts";

/**
 * The remote index for a pull of `prefixes` (all without), null when the
 * datastore has none; `"unchanged"` when the pull has nothing to do.
 */
export async function indexForPull(
  deps: PullDeps,
  prefixes: readonly string[] | undefined,
): Promise<{ readonly index: RemoteIndex | null } | "unchanged"> {
  const { store, state, config, events, signal } = deps;
  // The index's token tells a whole pull that nothing changed since the
  // last; a pull with nothing to compare it with (the first, or of some
  // prefixes) reads the index straight away.
  let head: IndexHead | undefined;
  // Paths a pull left out as blocked are looked at again whatever the token says.
  if (
    !prefixes && state.indexVersion !== undefined && !deps.restoreDeleted &&
    state.blocked.size === 0
  ) {
    head = await headIndexAndMeta(store, config.retry, signal);
    if (
      head.token === state.indexVersion ||
      (head.token !== null && state.indexVersion === `${head.token}${UNCHECKED}` &&
        await commitChecked(deps, head))
    ) {
      return "unchanged";
    }
  }
  let index = head?.token === null
    ? null
    : await readIndex(store, config.retry, signal, config.concurrency, head);
  if (!index) {
    // No index: the objects already on the datastore (another tool's, or
    // named by an index since lost) are named in one written now.
    const made = await updateIndex(
      store,
      { set: {}, remove: [] },
      config.retry,
      signal,
      deps.indexMemo,
      config.concurrency,
      deps.now,
      undefined,
      { ...indexDiscovery(store, config.retry, events, signal, config.concurrency), alone: true },
    );
    if (made) index = await readIndex(store, config.retry, signal, config.concurrency);
  }
  if (!index && !prefixes && state.syncedCount === 0) {
    return "unchanged";
  }
  if (index) warnUnlisted(index, events);
  if (prefixes && index) await tokenOutgrown(deps, index);
  const unsafe = Object.keys(index?.entries ?? {}).filter((p) => !isSafeRelPath(p));
  if (unsafe.length > 0) {
    throw new UnsafePathError(
      unsafe[0],
      `the remote index (${INDEX_KEY}) lists ${unsafe.length} key(s) that are not safe cache paths (they would resolve outside the cache, or hold a backslash, NUL, control character or invalid Unicode, or are too long); the pull was refused and nothing was written. Sluice never writes such keys, so check the bucket for a foreign writer. Remove those entries from ${INDEX_KEY} (and their objects), then run the pull again`,
    );
  }
  return { index };
}

/**
 * Warns (`unpartitioned_unlisted`) when a v2 meta no longer lists the
 * unpartitioned shard while it holds entries: an old client's push wrote
 * the meta's shard list from the partitions it computes, and old clients
 * do not see those files until a Sluice commit lists it again.
 */
function warnUnlisted(index: RemoteIndex, events: SluiceEmitter): void {
  const meta = index.meta?.meta;
  if (meta?.version !== 2 || meta.partitions.includes(UNPARTITIONED)) return;
  if (index.shards?.[UNPARTITIONED] === undefined) return;
  const paths = Object.keys(index.entries).filter((p) => shardOf(p) === UNPARTITIONED);
  if (paths.length === 0) return;
  events.emit("warning", {
    code: "unpartitioned_unlisted",
    message: `The datastore's index meta (${META_KEY}) no longer lists ${
      shardKey(UNPARTITIONED)
    }, which names ${paths.length} file(s) outside the tool's folders (${
      paths.slice(0, 3).join(", ")
    }${
      paths.length > 3 ? ", …" : ""
    }): an old client's push wrote the meta's shard list without it. Sluice clients still see them; old clients do not. Nothing was lost: the next Sluice push that commits anything lists it again (run \`sluice push\` once there is a change to publish).`,
  });
}

/**
 * Drops the cache's index token when `index`, read whole by a pull of some
 * prefixes under the very meta the token names, holds shards at versions
 * other than those of the index the cache reflects (as far as the memo
 * knows them): a peer's shard write whose meta bump was cut off stands under
 * that meta. Such a pull takes in only what lies under its prefixes, and the
 * memo then holds the shard versions it read, so that a commit made after it
 * on that meta would take them for the index the cache reflects and keep its
 * own token as current: the next whole pull would pass over the peer's
 * entries outside those prefixes. Without the token, that pull reads the
 * index.
 */
async function tokenOutgrown(deps: PullDeps, index: RemoteIndex): Promise<void> {
  const { state } = deps;
  const m = index.meta;
  if (m?.meta.version !== 2 || checkedToken(state.indexVersion) !== index.version) return;
  const known = (await deps.indexMemo?.shardsAt(m.version))?.versions;
  const read = index.shards ?? {};
  const same = known !== undefined &&
    [...new Set([...m.meta.partitions, UNPARTITIONED])]
      .every((p) => (known[p] ?? null) === (read[p] ?? null));
  if (!same) state.indexVersion = undefined;
}

/**
 * True when the shard versions this cache's own v2 commit derived for the
 * index `head` names are what one listing of the shards finds now (that
 * commit's meta bump may also have published a peer's shard write, which
 * this cache never read); the token is then kept as checked.
 */
async function commitChecked(deps: PullDeps, head: IndexHead): Promise<boolean> {
  const memo = deps.indexMemo;
  const seen = head.meta?.meta.version === 2 ? await memo?.shardsAt(head.meta.version) : undefined;
  if (!memo || !seen) return false;
  const same = await shardsMatch(deps.store, head.meta!.meta, seen.versions, deps.signal)
    .catch((e) => {
      if (deps.signal.aborted) throw e;
      return false;
    });
  if (!same) return false;
  deps.state.indexVersion = head.token!;
  await deps.state.saveManifest();
  return true;
}
