/**
 * The stranded upload of a synced `latest` marker that marker-after-version
 * (`marker_after_version.ts`) holds back: this cache's own upload of it, left
 * by a push cut off before the marker's index update, in place of the
 * committed object the index still names. Published as its commit would
 * have done once the version its bytes name is listed; where no push will
 * ever list that version, taken back, and the committed marker put back in
 * its place. With the two reads the gate shares: the version directory a
 * marker's bytes name, and whether the datastore's index lists it.
 *
 * @module
 */
import type { PushContext, WriteContext } from "../sync/context.ts";
import { isInternalPath } from "../sync/paths.ts";
import { readIndex, readIndexAround } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { putBackAndName } from "../sync/transfer/put_back.ts";
import { committedMarkerBytes } from "./marker_committed_bytes.ts";
import { publishOwnStranded } from "../sync/service/push_delete.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../sync/transfer/writer_id.ts";

/** The version directory a marker's bytes name, if they read as one. */
export function namedDir(marker: string, body: WriteContext["body"]): string | undefined {
  if (!(body instanceof Uint8Array) || body.length > 64) return undefined;
  const named = new TextDecoder().decode(body).trim();
  if (!/^[0-9]+$/.test(named)) return undefined;
  return `${marker.slice(0, marker.lastIndexOf("/"))}/${named}`;
}

/**
 * A synced marker held back, where an earlier push of this cache rewrote it
 * and stopped before the index update: that upload stands in place of the
 * synced object the index still names (a reader finds no marker, and a
 * peer's marker write meets a change it cannot see), and no push writes the
 * marker while it is held. It is published as its commit would have done
 * (`publishOwnStranded`: only while the index names the synced version),
 * once the version its own bytes name is listed, so that no marker is
 * published ahead of its version; until then it is left, to a later push
 * of that version from here. Where this cache holds no file of that version
 * either (deleted here, its uploads taken back: a crashed run's output
 * cleaned up), no push will ever list it, and the committed marker is put
 * back in place of the upload instead (`putBackCommitted`).
 */
export async function publishOwnMarker(
  push: PushContext,
  entry: WriteContext["entry"],
): Promise<void> {
  const writer = await pushWriterId(push);
  const now = await push.store.head(entry.path, { signal: push.signal });
  if (!now || !isOwnUncommitted(now, entry.syncedVersion, writer)) return;
  const got = await getOrNull(push.store, entry.path, {
    retry: push.config.retry,
    signal: push.signal,
  });
  if (got?.version !== now.version) return;
  const dir = namedDir(entry.path, got.body);
  if (dir === undefined) return;
  if (await indexListsDir(push, dir)) {
    await publishOwnStranded(push, entry, () => Promise.resolve(writer));
    return;
  }
  const held = await push.cache.listFiles(dir).catch(() => [] as string[]);
  if (held.some((f) => !isInternalPath(f, push.config.classifierRules))) return;
  // It writes the index: in a two-phase push, the commit makes it, under
  // the global lock it holds beside old clients (as the marker take-back of
  // a lost version is left to it).
  const back = () =>
    putBackCommitted(push, entry.path, got.version, writer).catch((e) => {
      if (push.signal?.aborted) throw e;
    });
  if (push.preparing) push.atCommit.push(back);
  else await back();
}

/**
 * Takes back this cache's (`writer`) upload `upload` of the synced
 * `marker`, which names a version no push will list: deleted, and the
 * committed marker put back in its place (with this cache's writer id, as
 * the marker take-back of a lost version does) and named in place of the
 * version the index names, only while it still names the version synced
 * here (`putBackAndName`). The committed bytes are found by the synced hash
 * among the version numbers of the versions here (a marker holds one);
 * not found, or the index naming another version, the upload is left as it
 * was. Recorded as synced at the copy put back before the index write
 * naming it, as `lost_version_marker.ts` does, and back as it was where
 * that write did not name it.
 */
async function putBackCommitted(
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
  if (
    !named || isUnversioned(named) || named.v !== synced.version || named.h !== synced.hash
  ) return;
  const committed = await committedMarkerBytes(push.cache, marker, synced.hash);
  if (!committed) return;
  if (!(await deleteAt(push.store, marker, upload, call))) return;
  let moved = false;
  const done = await putBackAndName(push.store, marker, committed, named, {
    ...call,
    concurrency: push.config.concurrency,
    now: () => push.clock.now(),
    metadata: { [WRITER_METADATA]: writer },
    placed: async (version) => {
      moved = true;
      await push.state.recordSynced(marker, { hash: synced.hash, version, size: synced.size });
    },
  });
  if (moved && done.kind !== "named") {
    await push.state.recordSynced(marker, {
      hash: synced.hash,
      version: synced.version,
      size: synced.size,
    });
  }
}

/** True when the datastore's index lists a file under the version directory `dir` (one index read). */
export async function indexListsDir(push: PushContext, dir: string): Promise<boolean> {
  const near = await readIndexAround(
    push.store,
    dir,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  return Object.keys(near).some((k) => k.startsWith(`${dir}/`));
}
