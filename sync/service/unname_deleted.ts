/**
 * After a push deleted this cache's own upload: the index read again, and an
 * entry still naming that upload (a peer's adoption of it, or an old
 * client's rewrite of the same bytes, committed between this cache's look
 * and its delete) taken out or its bytes put back; another writer's entry
 * met there is left and returned, for the deletion to stay a conflict.
 *
 * @module
 */
import type { PushContext } from "../context.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { type IndexEntry, isUnversioned } from "../transfer/bucket_layout.ts";
import { recordVanished } from "./vanished_record.ts";
import { sha256Hex } from "../hash.ts";
import { putBackAndName } from "../transfer/put_back.ts";
import { withRetry } from "../retry.ts";

/** Whether `bytes` are those `e` (an old client's entry) records: by hash, or by size without one. */
export async function sameBytes(e: IndexEntry, bytes: Uint8Array): Promise<boolean> {
  return e.h ? e.h === await sha256Hex(bytes) : e.s === bytes.length;
}

/**
 * After this cache deleted its own upload `version` at `path`: a peer whose
 * adoption of it (`adoptUncommitted`) committed between this cache's look at
 * the index and the delete left the index naming an object that is gone.
 * The index is read again, and such an entry taken out, only while it still
 * names that version and the store holds nothing there: this cache's
 * deletion of its own change stands, as it would have had the adoption come
 * later (the adopter looks again after its commit, see `adoptStranded`).
 * So too an entry of `over`, the version the index named before the delete,
 * which the upload had replaced in the store. One index read more, on this
 * rare path alone. With `bytes` (the upload's, kept beside old clients'
 * entries): an old client's entry naming those very bytes now is its
 * rewrite of them, committed before the delete took it (the same version
 * on a store whose versions are the bytes'): they are put back and named.
 * Returns the entry the index names there now when it names another
 * version (another writer's, left as it is), or the deleted version put
 * back by a peer (the same bytes, where versions are the bytes'), else
 * undefined.
 */
export async function unnameDeleted(
  ctx: PushContext,
  path: string,
  version: string,
  over?: string,
  bytes?: Uint8Array,
): Promise<IndexEntry | undefined> {
  const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  const e = index && Object.hasOwn(index.entries, path) ? index.entries[path] : undefined;
  if (bytes && e && isUnversioned(e)) {
    if (await sameBytes(e, bytes)) {
      await putBackAndName(ctx.store, path, bytes, e, {
        retry: ctx.config.retry,
        signal: ctx.signal,
        concurrency: ctx.config.concurrency,
        now: () => ctx.clock.now(),
      });
      return undefined;
    }
  }
  const v = index && Object.hasOwn(index.entries, path) ? index.entries[path].v : undefined;
  if (v === undefined) return undefined;
  if (v !== version && v !== over) return isUnversioned(e!) ? undefined : e;
  // `over` may be a peer's commit whose object went outside Sluice before
  // this cache's upload stood there: recorded as lost first (as a pull does
  // for an entry naming nothing), so that a cache holding that copy keeps
  // it, told, and never takes the removal for a deletion.
  if (v !== version) {
    await recordVanished(
      ctx.store,
      [[path, index!.entries[path]]],
      ctx.clock.now(),
      ctx.config.retry,
      ctx.signal,
    );
  }
  // Refused and tried again, the removal may meet another writer's entry
  // committed after that read (a peer's file of its own, created once the
  // upload was gone): left as it is, and told as one read first would be.
  let kept = false;
  let complete = true;
  await updateIndex(
    ctx.store,
    { set: {}, remove: [path], base: { [path]: v }, verify: true },
    ctx.config.retry,
    ctx.signal,
    undefined,
    ctx.config.concurrency,
    () => ctx.clock.now(),
    (_base, done, foreign) => {
      kept = foreign.get(path) != null;
      complete = done;
    },
  );
  if (!kept && complete) return undefined;
  const now = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  const theirs = now && Object.hasOwn(now.entries, path) ? now.entries[path] : undefined;
  if (!theirs || isUnversioned(theirs)) return undefined;
  if (theirs.v !== version) return kept ? theirs : undefined;
  // The removal left out an entry naming the very version this cache just
  // deleted, the store holding that version again: where versions are the
  // bytes' (ETags), a peer that synced the upload named it again as a
  // dropped entry and put its copy back over the delete, the same bytes.
  // That copy is the peer's, and stays: the local deletion did not take
  // effect, which the caller tells as it tells a peer's other version. A
  // look that fails fails the push: never taken for nothing there.
  const held = await withRetry(
    () => ctx.store.head(path, { signal: ctx.signal }),
    ctx.config.retry,
    ctx.signal,
  );
  return held?.version === version ? theirs : undefined;
}
