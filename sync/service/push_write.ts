/**
 * The write itself: the per-write pipeline's innermost handler, and the
 * check that lets a push skip a write the store already holds.
 *
 * @module
 */
import { type PushContext, PushVar, type WriteContext } from "../context.ts";
import { withRetry } from "../retry.ts";
import { ensureWriterId, isOwnUncommitted, WRITER_METADATA } from "../transfer/writer_id.ts";

/** Per push: the cache's writer id, read (or created) once. */
const WRITER = new PushVar<{ id?: Promise<string> }>("push/writer", () => ({}));

/** This cache's writer id (a random id created once and kept in its state directory), read once per push. */
export function pushWriterId(push: PushContext): Promise<string> {
  const slot = push.vars.get(WRITER);
  return slot.id ??= ensureWriterId(push.cache, push.dryRun);
}

/**
 * The innermost handler of the per-write pipeline: the put itself, with
 * retries. Every object a push writes carries this cache's writer id
 * (`WRITER_METADATA`), whatever gates ran: until a commit names it, it is
 * a write of Sluice's in flight, which an index discovery never names.
 */
export async function terminalWrite(ctx: WriteContext): Promise<void> {
  const push = ctx.push;
  if (ctx.metadata[WRITER_METADATA] === undefined) {
    ctx.metadata[WRITER_METADATA] = await pushWriterId(push);
  }
  await withRetry(
    async () => {
      ctx.result = await push.store.put(ctx.key, ctx.body, ctx.mode, {
        signal: push.signal,
        metadata: ctx.metadata,
      });
      ctx.outcome = "written";
    },
    push.config.retry,
    push.signal,
    (error, attempt) => push.events.emit("retry", { what: `put ${ctx.key}`, attempt, error }),
  );
}

/**
 * True when the store holds `version` of `key` now (one HEAD, retried as puts
 * are). With `settling` (a path an earlier push wrote without a commit, put
 * back here as synced), also when it holds anything but this cache's own
 * uncommitted write: there is nothing of this cache's to settle, and a
 * peer's change there is the next pull's, not a conflict. Never when it
 * holds nothing: this cache's own deletion of the path may have landed
 * without its commit (the file since put back as synced), and the file is
 * then written again, through the gates (a deletion a peer committed
 * meanwhile stands).
 */
export async function storeHolds(
  ctx: PushContext,
  key: string,
  version: string,
  settling?: false | (() => Promise<string | null>),
): Promise<boolean> {
  const now = await withRetry(
    () => ctx.store.head(key, { signal: ctx.signal }),
    ctx.config.retry,
    ctx.signal,
  );
  if (now?.version === version) return true;
  return !!settling && now !== null && !isOwnUncommitted(now, version, await settling());
}
