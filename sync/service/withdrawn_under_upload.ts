/**
 * A take-back of this cache's own committed write (its commit landed, its
 * answer lost, the file deleted here since) takes the entry naming that
 * write out first, then deletes the object (see `dropOwnStranded` in
 * `push_delete.ts`). A peer that synced the write can upload an edit over
 * it in between: the delete then meets that upload, which no index names.
 *
 * A pull of that peer's made inside the withdrawal cannot tell it from an
 * entry an old client's write-back dropped (both leave the path unnamed
 * while the store holds the version it synced), and keeps the record to
 * name it again; its writer's commit, finding no entry, would then name
 * the edit over the committed withdrawal. The upload is deleted here
 * instead, conditional on its version, as a store whose deletes check the
 * version and then delete takes it: its writer's commit then finds its
 * write gone with the entry and keeps the edit as a conflict with the
 * deletion (see `keptBase` and `namedBase` in `transfer/remote_index.ts`),
 * while an edit over a dropped entry, which nobody deletes, is named.
 *
 * @module
 */
import type { PushContext } from "../context.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { getOrNull } from "../transfer/index_io.ts";
import type { IndexEntry } from "../transfer/bucket_layout.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { deleteAt } from "../transfer/object_ops.ts";
import { putBackAndName } from "../transfer/put_back.ts";

/** The entry the index names at `path` now, if any. */
async function namedAt(ctx: PushContext, path: string): Promise<IndexEntry | undefined> {
  const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  return index && Object.hasOwn(index.entries, path) ? index.entries[path] : undefined;
}

/**
 * After this cache took out the entry naming its own write at `path` and
 * its delete of that write met another object: when that object is another
 * Sluice writer's upload (`writer` is this cache's id) that no index names,
 * it is deleted, conditional on its version (`dropped`). A commit of it
 * that lands before the delete is told (`named`): its bytes are put back
 * and named, and the withdrawal meets it as a committed change. Neither
 * when nothing is there, or an object without a writer id, or one too
 * large to keep in memory for a put-back, which is left as it is. `left`
 * when nothing is left of the withdrawal's window (the upload deleted and
 * no entry naming the path, or nothing there): an upload over the withdrawn
 * version can no longer land, and the take-back's note has served.
 */
export async function dropUploadOverWithdrawn(
  ctx: PushContext,
  path: string,
  writer: string | null,
): Promise<{ readonly dropped: boolean; readonly named?: IndexEntry; readonly left?: true }> {
  const o = { retry: ctx.config.retry, signal: ctx.signal, concurrency: ctx.config.concurrency };
  const head = await ctx.store.head(path, { signal: ctx.signal });
  // Nothing there: the upload met is gone already (its writer's commit met
  // the take-back's note and took it back).
  if (!head) return { dropped: false, left: true };
  const by = head.metadata?.[WRITER_METADATA];
  if (!by || by === writer || head.size > ctx.config.streamThresholdBytes) {
    return { dropped: false };
  }
  const held = await getOrNull(ctx.store, path, o);
  if (held?.version !== head.version) return { dropped: false };
  const before = await namedAt(ctx, path);
  if (before !== undefined) return { dropped: false, named: before };
  if (!(await deleteAt(ctx.store, path, held.version, o))) return { dropped: false };
  // Its writer's commit may have named it between that look and the delete.
  const after = await namedAt(ctx, path);
  if (after?.v !== held.version) {
    return { dropped: true, ...(after ? { named: after } : { left: true as const }) };
  }
  await putBackAndName(ctx.store, path, held.body, after, {
    ...o,
    now: () => ctx.clock.now(),
    ...(held.metadata ? { metadata: held.metadata } : {}),
  });
  return { dropped: false, named: (await namedAt(ctx, path)) ?? after };
}
