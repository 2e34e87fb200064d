/**
 * Where the create-only-writer creates nothing: a data version's key that
 * this cache's pulls saw the index name with nothing behind it, while the
 * index still names other bytes there. Its object may be gone for a moment
 * only (a refused run's erasure deleted it by its version, the same as an
 * ETag is, and is about to put it back); created in that moment, this
 * write would keep the put-back out and this push's commit would name it
 * over that entry.
 *
 * @module
 */
import { PushVar, type WriteContext } from "../sync/context.ts";
import { danglingSeen } from "../sync/service/dangling_entries.ts";
import { indexedEntry } from "./own_writes.ts";
import type { IndexEntry } from "../sync/transfer/bucket_layout.ts";

/** Per push: the index entries this cache's pulls saw naming nothing, read once. */
const DANGLING = new PushVar("create-only-writer/dangling", () => {
  let seen: Promise<ReadonlySet<string>> | undefined;
  return { seen: (cache: Parameters<typeof danglingSeen>[0]) => seen ??= danglingSeen(cache) };
});

/**
 * True when the write's key is such a key: seen naming nothing, and the
 * index still names other bytes than the write's there (by hash, or by size
 * for an entry that records none). One read of the sightings per push; the
 * index is read only for a key among them.
 *
 * @example
 * ```ts ignore
 * import { putBackPending } from "./put_back_pending.ts";
 * declare const ctx: import("../sync/context.ts").WriteContext;
 * if (await putBackPending(ctx)) console.log("nothing is created here now");
 * ```
 */
export async function putBackPending(ctx: WriteContext): Promise<boolean> {
  return (await pendingPutBack(ctx)) !== undefined;
}

/**
 * The index entry of {@link putBackPending} (its version is the one a copy
 * held back for it lost to), or undefined where the create goes on.
 *
 * @example
 * ```ts ignore
 * import { pendingPutBack } from "./put_back_pending.ts";
 * declare const ctx: import("../sync/context.ts").WriteContext;
 * console.log((await pendingPutBack(ctx))?.v);
 * ```
 */
export async function pendingPutBack(ctx: WriteContext): Promise<IndexEntry | undefined> {
  if (!(await ctx.push.vars.get(DANGLING).seen(ctx.push.cache)).has(ctx.key)) return undefined;
  const named = await indexedEntry(ctx);
  if (named === undefined) return undefined;
  return (named.h !== "" ? named.h !== ctx.hash : named.s !== ctx.size) ? named : undefined;
}
