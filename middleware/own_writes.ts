/**
 * What the config-cas-writer needs around a refused conditional write: the
 * cache's writer id (carried as object metadata, so a cache can tell its own
 * uncommitted writes from a peer's), reading the object it met, replacing
 * its own object with a compare-and-swap, and asking whether the index still
 * names a version.
 *
 * @module
 */
import type { WriteContext } from "../sync/context.ts";
import { checkThenPut } from "../sync/transfer/conditional.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import {
  AlreadyExistsError,
  NotImplementedError,
  PreconditionFailedError,
} from "../sync/errors.ts";
import { type GetResult, type ObjectInfo, PutModes } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { type IndexEntry, isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { ADOPTED_UNCOMMITTED, adoptedMessage } from "../sync/service/conflicts.ts";
import { recordVanished } from "../sync/service/vanished_record.ts";
import { type Adoption, adoptStranded } from "../sync/transfer/adopt.ts";

import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";

export { WRITER_METADATA };

/** This cache's writer id: a random id created once and kept in its state directory. */
export function writerId(ctx: WriteContext): Promise<string> {
  return pushWriterId(ctx.push);
}

/**
 * Writes over `version` (this cache's own uncommitted object), or creates the
 * object when `version` is null; `null` when the object changed meanwhile.
 */
export async function replaceOwn(
  ctx: WriteContext,
  version: string | null,
): Promise<ObjectInfo | null> {
  const push = ctx.push;
  const mode = version === null ? PutModes.create : PutModes.update(version);
  const o = { signal: push.signal, metadata: ctx.metadata };
  try {
    return await withRetry(
      () => push.store.put(ctx.key, ctx.body, mode, o),
      push.config.retry,
      push.signal,
    );
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    if (!(e instanceof NotImplementedError)) throw e;
  }
  try {
    return await checkThenPut(push.store, ctx.key, ctx.body, mode, o);
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    throw e;
  }
}

/**
 * Writes over `base`, the committed version the datastore holds (null:
 * none), with a compare-and-swap on it; the write's mode is then that
 * version, so the index commit checks against it. Noted as `said.written`.
 * Refused (another writer got there first), the entry is left out and kept
 * dirty for the next push, with `said.reason`, and noted as `said.lost`.
 */
export async function writeOverCommitted(
  ctx: WriteContext,
  base: string | null,
  gate: string,
  said: { readonly written: string; readonly lost: string; readonly reason: string },
): Promise<void> {
  const info = await replaceOwn(ctx, base);
  if (info) {
    ctx.mode = base === null ? PutModes.create : PutModes.update(base);
    ctx.result = info;
    ctx.outcome = "written";
    ctx.push.note(gate, `${ctx.key}: ${said.written}`, ctx.entry);
    return;
  }
  ctx.entry.action = "skip";
  ctx.entry.keepDirty = true;
  ctx.entry.reason = said.reason;
  if (!ctx.push.dryRun) await ctx.push.state.markDirty(ctx.key);
  ctx.push.note(gate, `${ctx.key}: ${said.lost}`, ctx.entry);
}

/** The entry the remote index names for the write's path (undefined when none). */
export async function indexedEntry(ctx: WriteContext): Promise<IndexEntry | undefined> {
  const push = ctx.push;
  const index = await readIndex(
    push.store,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  return index && Object.hasOwn(index.entries, ctx.key) ? index.entries[ctx.key] : undefined;
}

/** The version the remote index names for the write's path (null when it names none). */
export async function indexedVersion(ctx: WriteContext): Promise<string | null> {
  return (await indexedEntry(ctx))?.v ?? null;
}

/**
 * True when the remote index still names `version` for the write's path: or
 * names, without an object version (another tool's object named by a
 * listing, an old client's write), the bytes this cache synced at `version`:
 * by their hash, or, for an entry that records none, by their size alone (a
 * same-size change an old client committed and then deleted the object of,
 * outside the global lock a mixed fleet pushes under, is not told apart).
 */
export async function stillIndexed(ctx: WriteContext, version: string): Promise<boolean> {
  const named = await indexedEntry(ctx);
  if (!named) return false;
  if (named.v === version) return true;
  const synced = ctx.push.state.synced(ctx.key);
  return isUnversioned(named) && synced?.version === version &&
    (named.h ? named.h === synced.hash : named.s === synced.size);
}

export async function fetchRemote(ctx: WriteContext): Promise<GetResult | null> {
  const push = ctx.push;
  return await getOrNull(push.store, ctx.key, { retry: push.config.retry, signal: push.signal });
}

/**
 * In a two-phase push's preparation, a write told to adopt another writer's
 * uncommitted object at its path is not made: the adoption writes the
 * index, which old clients rewrite under the global lock without a
 * compare-and-swap, and only the commit holds that lock. The write is left
 * to the commit (`atCommit`), which makes it as a plain push does; noted as
 * `gate`.
 */
export function leaveAdoptionToCommit(ctx: WriteContext, gate: string): void {
  ctx.entry.atCommit = true;
  ctx.push.note(
    gate,
    `${ctx.key}: its adoption of another writer's object left to the commit`,
    ctx.entry,
  );
}

/**
 * Publishes another writer's uncommitted object at the write's path as that
 * writer's committed change (the push was told to adopt it: its writer is
 * gone for good), noted as `gate`; nothing is written over it. Adopted when
 * the index now names it (the caller then records a conflict with it); else
 * the caller waits as usual, saying why.
 */
export async function adopt(
  ctx: WriteContext,
  remote: GetResult,
  gate: string,
): Promise<Adoption> {
  const push = ctx.push;
  const base = ctx.mode.kind === "update" ? ctx.mode.version : null;
  const adoption = await adoptStranded(push.store, ctx.key, remote, base, {
    retry: push.config.retry,
    signal: push.signal,
    concurrency: push.config.concurrency,
    clock: () => push.clock.now(),
    pathClass: ctx.entry.class,
    recordLost: (path, entry) =>
      recordVanished(push.store, [[path, entry]], push.clock.now(), push.config.retry, push.signal),
  });
  if (!adoption.adopted) return adoption;
  push.note(
    gate,
    `${ctx.key}: published another writer's uncommitted object (version ${remote.version}) as its change`,
    ctx.entry,
  );
  push.events.emit("warning", {
    code: ADOPTED_UNCOMMITTED,
    message: adoptedMessage(ctx.key, remote.version, remote.metadata?.[WRITER_METADATA]),
    path: ctx.key,
  });
  return adoption;
}
