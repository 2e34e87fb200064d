/**
 * The remote half of a local deletion: a delete conditional on the version
 * this cache last synced. When the store holds another version, what it is
 * decides what happens:
 *
 * - nothing: both sides deleted it;
 * - this cache's own write that never reached the index (it carries this
 *   cache's writer id): deleted over that version, and the index entry
 *   removed, as the edit it replaces would have been committed;
 * - another writer's object the index does not name while the index still
 *   names the synced version: that writer's push is in flight or stopped
 *   before its index update, no committed change; the deletion waits
 *   (`push_waiting_uncommitted`, the path stays dirty), unless the push was
 *   told to take the path over: then it is deleted over that object;
 * - a committed change of a peer: a conflict (`delete_skipped`).
 *
 * @module
 */
import { NotFoundError, PreconditionFailedError } from "../errors.ts";
import type { ObjectInfo } from "../ports.ts";
import { withRetry } from "../retry.ts";
import type { PlanEntry, PushContext } from "../context.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../transfer/writer_id.ts";

/** What became of one deletion. */
export type DeleteOutcome =
  /**
   * Deleted remotely: the index entry goes (conditional on the synced
   * version); `tookOver`: deleted over that writer's uncommitted object, as told.
   */
  | { readonly kind: "deleted"; readonly tookOver?: ObjectInfo }
  /** Already gone remotely: the index entry goes too. */
  | { readonly kind: "gone" }
  /** Another writer's uncommitted object holds the path: wait for its commit. */
  | { readonly kind: "waiting"; readonly now: ObjectInfo }
  /** A peer's committed change: a conflict. */
  | { readonly kind: "conflict"; readonly now: ObjectInfo };

/** Deletes `version` of the entry's path; false when the store holds another one. */
async function deleteAt(ctx: PushContext, path: string, version: string | undefined) {
  try {
    await withRetry(
      () => ctx.store.delete(path, { signal: ctx.signal, ifVersion: version }),
      ctx.config.retry,
      ctx.signal,
    );
    return true;
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof NotFoundError) return false;
    throw e;
  }
}

/**
 * Deletes the entry's path remotely (see the module doc); `writer` gives this
 * cache's writer id (null: it never wrote one), asked only when the delete
 * is refused. Transport errors throw.
 */
export async function deleteRemote(
  ctx: PushContext,
  entry: PlanEntry,
  writer: () => Promise<string | null>,
): Promise<DeleteOutcome> {
  if (await deleteAt(ctx, entry.path, entry.syncedVersion)) return { kind: "deleted" };
  let now = await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
  if (!now) return { kind: "gone" };
  if (
    now.metadata?.[WRITER_METADATA] && isOwnUncommitted(now, entry.syncedVersion, await writer())
  ) {
    if (await deleteAt(ctx, entry.path, now.version)) return { kind: "deleted" };
    now = await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
    if (!now) return { kind: "gone" };
  }
  const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  const named = index && Object.hasOwn(index.entries, entry.path)
    ? index.entries[entry.path].v
    : undefined;
  if (entry.syncedVersion !== undefined && named === entry.syncedVersion) {
    // Told to take the path over (its writer is gone for good): deleted over that object.
    if (ctx.takeOver.has(entry.path) && await deleteAt(ctx, entry.path, now.version)) {
      return { kind: "deleted", tookOver: now };
    }
    return { kind: "waiting", now };
  }
  return { kind: "conflict", now };
}
