/**
 * This cache's own uploads of a version it lost or holds back: the files it
 * created that no index names are deleted (each only over the version
 * found), and the records of its writes to files the index names at the
 * object the store holds are settled.
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { AbortedError } from "../sync/errors.ts";
import { withRetry } from "../sync/retry.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";

/**
 * The files of a lost version that this cache created and no index names
 * (uploaded by this push, or by an earlier one whose commit never came):
 * deleted, each only over the version found, so that no object of this
 * cache's stays beside the other writer's version, seen by no reader and
 * named by no commit.
 */
export async function dropOwnSiblings(
  push: PushContext,
  paths: readonly string[],
  writer: string,
): Promise<void> {
  let named: Record<string, { v: string }> | undefined;
  for (const path of paths) {
    const head = await withRetry(
      () => push.store.head(path, { signal: push.signal }),
      push.config.retry,
      push.signal,
    );
    if (!head || head.metadata?.[WRITER_METADATA] !== writer) continue;
    named ??= (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
      ?.entries ?? {};
    if (named[path]?.v !== head.version) await dropOwn(push, path, head.version);
  }
}

/** Deletes `version` of `path` (this cache's own); nothing when the store holds another one. */
export async function dropOwn(push: PushContext, path: string, version: string): Promise<void> {
  await deleteAt(push.store, path, version, { retry: push.config.retry, signal: push.signal });
}

/**
 * The lost version's files recorded as this cache's writes (`markAttempted`:
 * this push's, about to create them) that the index names at the object the
 * store holds: published versions (a peer's whose create met this cache's
 * earlier upload of the same bytes and committed it, or this cache's own
 * commit whose answer was lost). The refused create left nothing of this
 * cache's there, and the set-aside is no local deletion: the record goes, so
 * that no later push takes the path for this cache's stranded upload and
 * deletes that published version with its entry (chaos seed 185100234).
 * A failed look leaves the records as they are.
 */
export async function settlePublished(push: PushContext, files: readonly string[]): Promise<void> {
  const recorded = files.filter((f) => push.state.attempted?.(f));
  if (recorded.length === 0 || !push.state.settleAttempted) return;
  const settled: string[] = [];
  try {
    const named =
      (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
        ?.entries ?? {};
    for (const path of recorded) {
      if (!Object.hasOwn(named, path)) continue;
      const head = await withRetry(
        () => push.store.head(path, { signal: push.signal }),
        push.config.retry,
        push.signal,
      );
      if (head && head.version === named[path].v) settled.push(path);
    }
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    return;
  }
  await push.state.settleAttempted(settled);
}
