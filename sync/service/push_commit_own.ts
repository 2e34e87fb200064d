/**
 * The commit's care of the objects it named: finding those the store no
 * longer holds after the commit, putting this cache's own bytes back where
 * one is gone, and deleting again its own write left unpublished over a
 * peer's deletion.
 *
 * @module
 */
import type { HeldObject } from "../transfer/remote_index.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { withRetry } from "../retry.ts";
import { sha256Hex } from "../hash.ts";
import { putBackAndName } from "../transfer/put_back.ts";
import type { PushContext } from "../context.ts";
import type { Overwritten, PendingCommit } from "./push_commit.ts";

/**
 * The paths this commit named with bytes it found in place (`check`) that
 * the store no longer holds (one HEAD each, only for such paths: a push of
 * new files pays nothing). A HEAD that fails counts as gone: the path stays
 * dirty, and the next push, finding the bytes in place again, names them
 * again.
 */
export async function goneAfterCommit(
  pending: PendingCommit,
  unpublished: readonly string[],
  overwritten: readonly Overwritten[],
  deps: {
    readonly store: PushContext["store"];
    readonly retry: PushContext["config"]["retry"];
    readonly signal?: AbortSignal;
  },
): Promise<string[]> {
  const left = new Set([...unpublished, ...overwritten.map((o) => o.path)]);
  const named = (pending.check ?? []).filter((p) => Object.hasOwn(pending.set, p) && !left.has(p));
  const gone: string[] = [];
  for (const p of named) {
    try {
      const held = await withRetry(
        () => deps.store.head(p, { signal: deps.signal }),
        deps.retry,
        deps.signal,
      );
      // Another version there: a later write (or the erasure's put-back), named by its writer.
      if (held === null) gone.push(p);
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      gone.push(p);
    }
  }
  return gone;
}

/**
 * Puts back each of `paths` (named by this commit, the object gone since)
 * from the local copy, only while it still has the bytes this commit named
 * (their hash), where the store holds nothing, with this cache's writer id,
 * and moves its entry to the new object only while it still names the gone
 * one. Returns the paths put back and named, whose synced record is moved to
 * the new object; a failure leaves a path to the caller (not published).
 */
export async function putBackOwn(
  pending: PendingCommit,
  paths: readonly string[],
  deps: {
    readonly store: PushContext["store"];
    readonly retry: PushContext["config"]["retry"];
    readonly signal?: AbortSignal;
    readonly concurrency?: number;
    readonly now?: () => number;
    readonly writerId?: string | null;
    readonly cache?: { read(path: string): Promise<Uint8Array | null> };
  },
): Promise<{ back: Set<string>; overtaken: Map<string, HeldObject | null> }> {
  const back = new Set<string>();
  const overtaken = new Map<string, HeldObject | null>();
  if (!deps.cache) return { back, overtaken };
  for (const p of paths) {
    const named = pending.set[p];
    try {
      const bytes = await deps.cache.read(p);
      if (!bytes || named.h === "" || await sha256Hex(bytes) !== named.h) continue;
      const done = await putBackAndName(deps.store, p, bytes, named, {
        retry: deps.retry,
        signal: deps.signal,
        concurrency: deps.concurrency,
        now: deps.now,
        ...(deps.writerId ? { metadata: { [WRITER_METADATA]: deps.writerId } } : {}),
      });
      if (done.kind === "overtaken") overtaken.set(p, done.theirs);
      if (done.kind !== "named") continue;
      const synced = pending.synced?.[p];
      if (synced) {
        (pending.synced as Record<string, typeof synced>)[p] = { ...synced, version: done.version };
      }
      back.add(p);
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      // Left to the caller: not published (kept dirty, written again).
    }
  }
  return { back, overtaken };
}

/**
 * Deletes again this cache's own write at each path left unpublished where
 * the store holds nothing else (a peer's deletion committed after this write
 * created the object again): the object is this cache's, no index names it,
 * and its bytes stay in the local copy the conflict keeps. Left in place, it
 * would hold the path for every later create as an uncommitted write. Only
 * while the store still holds exactly that version with this cache's writer
 * id; best effort, a failure leaves it as it was.
 */
export async function dropOwnOverDeletions(
  pending: PendingCommit,
  overwritten: readonly Overwritten[],
  deps: {
    readonly store: PushContext["store"];
    readonly signal?: AbortSignal;
    readonly writerId?: string | null;
  },
): Promise<void> {
  if (!deps.writerId) return;
  for (const o of overwritten) {
    const own = Object.hasOwn(pending.set, o.path) ? pending.set[o.path] : undefined;
    if (o.theirs !== null || own?.v === undefined) continue;
    try {
      const held = await deps.store.head(o.path, { signal: deps.signal });
      if (held?.version !== own.v || held.metadata?.[WRITER_METADATA] !== deps.writerId) continue;
      await deps.store.delete(o.path, { ifVersion: own.v, signal: deps.signal, noRetry: true });
    } catch {
      // Best effort: the object stays, as this cache's own uncommitted write.
    }
  }
}
