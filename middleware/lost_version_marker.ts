/**
 * The `latest` marker of a data version this push lost to another writer
 * (`lost_version.ts`): reset as a refused run's is, told when it was a
 * change made here, and this cache's unnamed upload of it taken back.
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { sha256Hex } from "../sync/hash.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { putBackAndName, replaceAndName } from "../sync/transfer/put_back.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { markerOf } from "./erasure_attribution.ts";
import { latestResetWarning, recomputeLatest } from "./erasure_markers.ts";

/**
 * The `latest` marker of a version just set aside names a version this cache
 * no longer holds: it is reset as a refused run's is (to the highest version
 * left here, or removed), so that no later push publishes it naming the
 * other writer's version, whose files may not be committed yet. Told when it
 * was a change made here. A change made here that the reset leaves nothing
 * of to push takes back this cache's (`writer`) upload of the marker that no
 * index names (a run's, its commit cut off), as for the version's own files:
 * left, it would be named by no commit, and a peer's push of its own marker
 * would wait on it. Best effort: a failed reset leaves the marker as it was,
 * and a failed look or delete leaves that upload to a later push's check of
 * the writes it left.
 */
export async function resetLostMarker(
  push: PushContext,
  dir: string,
  writer: string,
  unindexed = false,
): Promise<void> {
  const marker = markerOf(dir);
  const m = await recomputeLatest(
    push.cache,
    push.state,
    marker,
    push.config.unfinishedVersions,
  ).catch(() => undefined);
  if (m?.was === undefined) return;
  if (!m.dirty) {
    // Marked dirty first: the take-back may not be made (a failed look or
    // delete; left to a commit that never comes, or to a global lock not
    // had in time), and the marker reset here, unmarked, is then no push's:
    // the upload would stay, the index naming the version it replaced.
    // Marked, the next push finds the store not holding the version synced
    // here and settles this cache's own upload there as any write it left.
    // Made, the mark goes again while the marker here holds the bytes it
    // held when marked (no change made here since). A marker removed here
    // is not marked: that mark would be a deletion to push.
    let marked: string | null = null;
    const mark = async () => {
      if (push.dryRun) return;
      marked = await hashHere(push, marker);
      if (marked !== null) await push.state.markDirty(marker);
    };
    const takeBack = async () => {
      const made = await takeBackMarker(push, marker, writer).then(() => true, (e) => {
        if (push.signal?.aborted) throw e;
        return false;
      });
      if (made && marked !== null && (await hashHere(push, marker)) === marked) {
        await push.state.clean([marker]);
      }
    };
    // It may write the index (the committed marker put back and named): in
    // a two-phase push, the commit makes it, under the global lock it holds
    // beside old clients, whose read-modify-write of the index would put
    // back the entry naming the upload it deletes. Left to it only when
    // there is such an upload to take back (a failed look leaves it too).
    if (!push.preparing) {
      await mark();
      await takeBack();
    } else if (await hasOwnUpload(push, marker, writer)) {
      await mark();
      push.atCommit.push(takeBack);
    }
  }
  push.events.emit(
    "warning",
    latestResetWarning(
      m,
      unindexed
        ? "which another client's upload holds, named by no index yet (this cache's copy of it was set aside)"
        : "which another writer published first (this cache's copy of it was set aside)",
    ),
  );
}

/**
 * Takes back this cache's (`writer`) upload of `marker` that no index names
 * (a run's, its commit cut off). Where the index names nothing there (a
 * create), the upload is deleted. Where it names a marker this upload was
 * written over (a bucket without object versions keeps only the upload),
 * deleting it would leave the path a commit names with no object: the
 * committed bytes are written over it instead, from the marker here
 * (reset to them: its synced copy), and named in place of the version the
 * index names, only while it still names it. A peer whose write of the same
 * bytes took the upload as its own can commit it between the look at the
 * index and the delete, its own look after its commit coming before the
 * delete: so the index is read again after it, and an upload it now names
 * is put back and named in place of the deleted one.
 */
async function takeBackMarker(push: PushContext, marker: string, writer: string): Promise<void> {
  const call = storeCall(push);
  const got = await ownUpload(push, marker, writer);
  if (!got) return;
  const index = async () =>
    (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
      ?.entries ?? {};
  const named = (await index())[marker];
  if (named?.v === got.version) return;
  let committed: Uint8Array | null = null;
  if (named) {
    // Only with the committed bytes at hand (the marker here, as synced), and never over an old client's entry.
    const here = await push.cache.read(marker).catch(() => null);
    if (
      isUnversioned(named) || !here || named.h === "" || (await sha256Hex(here)) !== named.h
    ) return;
    committed = here;
  }
  if (committed) {
    // Synced as the copy put back before the index write naming it: cut
    // off between the two, the index names a version the upload replaced
    // (gone where the store keeps one object a path), and a later pull,
    // finding the store holding the version synced here, keeps the marker
    // to be named again by the next push (`dropped_entries.ts`).
    const synced = push.state.synced(marker);
    const asSynced = synced?.version === named!.v ? synced : undefined;
    let moved = false;
    const record = async (version: string) => {
      moved = true;
      await push.state.recordSynced(marker, {
        hash: asSynced!.hash,
        version,
        size: asSynced!.size,
      });
    };
    const placed = asSynced ? { placed: record } : {};
    // Written over the upload, never deleted first: an old client's pull
    // that found the path empty would drop the marker's entry for good.
    const done = await replaceAndName(push.store, marker, got.version, committed, named!, {
      ...putBackCall(push, writer),
      ...placed,
    });
    // Not named (a commit since stands): synced as it was.
    if (moved && done?.kind !== "named") await push.state.recordSynced(marker, asSynced!);
    return;
  }
  if (!(await deleteAt(push.store, marker, got.version, call))) return;
  const now = (await index())[marker];
  if (now?.v === got.version) {
    await putBackAndName(
      push.store,
      marker,
      got.body,
      { v: now.v, h: now.h },
      putBackCall(push, writer),
    );
  }
}

/** The SHA-256 of `marker` here (null: none, or unreadable). */
async function hashHere(push: PushContext, marker: string): Promise<string | null> {
  const here = await push.cache.read(marker).catch(() => null);
  return here ? await sha256Hex(here) : null;
}

/** The retries, signal and concurrency of `push`'s store calls. */
function storeCall(push: PushContext) {
  return { retry: push.config.retry, signal: push.signal, concurrency: push.config.concurrency };
}

/**
 * The options of a put-back of the marker: written as every write of this
 * cache is, with its writer id (`writer`), so that no reader takes the copy
 * put back, should its entry be missing, for another writer's uncommitted
 * upload to wait on; its entry timed by the injected clock, as every index
 * write of a push is.
 */
function putBackCall(push: PushContext, writer: string) {
  return {
    ...storeCall(push),
    now: () => push.clock.now(),
    metadata: { [WRITER_METADATA]: writer },
  };
}

/**
 * The object at `marker` when it is this cache's (`writer`) upload, or null.
 * Not the version synced here: that one was committed (a committed marker
 * put back carries this cache's id too), and an old client may have dropped
 * its entry since, which peers keep to name again; deleted, it would be
 * taken for a deletion by every cache that synced it.
 */
async function ownUpload(push: PushContext, marker: string, writer: string) {
  const got = await getOrNull(push.store, marker, storeCall(push));
  return got && isOwnUncommitted(got, push.state.synced(marker)?.version, writer) ? got : null;
}

/**
 * True when the store holds this cache's (`writer`) upload of `marker`, or
 * when the look failed (then the take-back looks again); an abort is thrown.
 */
async function hasOwnUpload(push: PushContext, marker: string, writer: string): Promise<boolean> {
  try {
    return (await ownUpload(push, marker, writer)) !== null;
  } catch (e) {
    if (push.signal?.aborted) throw e;
    return true;
  }
}
