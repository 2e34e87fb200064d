/**
 * The committed `latest` marker put back in place of this cache's stranded
 * upload of it (`putBackCommitted`), and such a put-back named where its
 * process died before the index write (`nameSyncedPutBack`): the writes
 * `marker_stranded.ts` makes where no push will list the version the
 * upload names.
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { readIndex, readIndexAround } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { nameLeftPutBack, replaceAndName } from "../sync/transfer/put_back.ts";
import { committedMarkerBytes, warnUnrestored } from "./marker_committed_bytes.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";

/**
 * Takes back this cache's (`writer`) upload `upload` of the synced
 * `marker`, which names a version no push will list: the committed marker
 * written over it (with this cache's writer id, as the marker take-back of
 * a lost version does) and named in place of the version the index names,
 * only while it still names the version synced here, or this very upload
 * (its commit landed, its answer lost: `replaceAndName`). The committed
 * bytes are found by the synced hash among the version numbers of the
 * versions here (a marker holds one): not found, the upload is left as it
 * was, and that is said (`committed_marker_unrestored`); the index naming
 * another version, the upload is left as it was. Recorded as synced at the
 * copy put back before the index write naming it, as
 * `lost_version_marker.ts` does, and back as it was where that write did
 * not name it.
 */
export async function putBackCommitted(
  push: PushContext,
  marker: string,
  upload: string,
  writer: string,
): Promise<void> {
  const synced = push.state.synced(marker);
  if (!synced) return;
  const call = { retry: push.config.retry, signal: push.signal };
  const named = (await readIndex(
    push.store,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  ))?.entries[marker];
  // The upload itself named (its commit landed, its answer lost): put back
  // over it, as over the version synced here.
  const over = named?.v === upload;
  if (
    !named || isUnversioned(named) ||
    (!over && (named.v !== synced.version || named.h !== synced.hash))
  ) return;
  // A published version deleted here whose deletion this push holds (its
  // committed marker names it: see version-under-marker) counts as one left
  // here: the datastore keeps its files.
  const kept = push.plan.filter((e) =>
    e.class === "data-version" && e.action === "skip" && e.keepDirty === true &&
    e.syncedVersion !== undefined && !e.strandedCheck
  ).map((e) => e.path);
  const committed = await committedMarkerBytes(push.cache, marker, synced.hash, [], kept);
  if (!committed) {
    warnUnrestored(
      push.events,
      marker,
      "its bytes are no version number held in this cache",
      `The marker here names a version this cache does not hold and the datastore does not list, so it is held, dirty: write that version, or set the marker to a version that exists, and push.`,
    );
    return;
  }
  let moved = false;
  const base = { v: named.v, h: synced.hash };
  // Written over the upload, never deleted first: an old client's pull that
  // found the path empty would drop the marker's entry for good.
  const done = await replaceAndName(push.store, marker, upload, committed, base, {
    ...call,
    concurrency: push.config.concurrency,
    now: () => push.clock.now(),
    metadata: { [WRITER_METADATA]: writer },
    placed: async (version) => {
      moved = true;
      await push.state.recordSynced(marker, { hash: synced.hash, version, size: synced.size });
    },
  });
  if (moved && done?.kind !== "named") {
    await push.state.recordSynced(marker, {
      hash: synced.hash,
      version: synced.version,
      size: synced.size,
    });
  }
}

/**
 * Names this cache's own object at `marker`, at `version`, the version
 * synced here, where the index names another version of the same bytes
 * (the synced hash): a put-back of the committed marker recorded as synced
 * before its index write (`putBackCommitted`, or the marker take-back of a
 * lost version), whose process died before that write. The copy replaced
 * the version the index names (the store holds one object a path), so the
 * index names a version gone for good, and a fresh clone's pull skips the
 * marker as not yet committed; while the marker stays held here, no write
 * of it names the copy either (chaos seed 227900160). Named in place of
 * that version only while the index still names it, as the put-back would
 * have; in a two-phase push, by the commit, under the global lock. One
 * index read, on this path alone.
 */
export async function nameSyncedPutBack(
  push: PushContext,
  marker: string,
  version: string,
): Promise<void> {
  const synced = push.state.synced(marker);
  if (!synced || synced.version !== version) return;
  const call = { retry: push.config.retry, signal: push.signal };
  const named = (await readIndexAround(
    push.store,
    marker,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  ))[marker];
  if (
    !named || isUnversioned(named) || named.v === synced.version || named.h !== synced.hash
  ) return;
  const name = () =>
    nameLeftPutBack(push.store, marker, synced.version, synced.size, named, {
      ...call,
      concurrency: push.config.concurrency,
      now: () => push.clock.now(),
    }).then(() => {}, (e) => {
      if (push.signal?.aborted) throw e;
    });
  if (push.preparing) push.atCommit.push(name);
  else await name();
}
