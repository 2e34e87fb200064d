/**
 * The stranded upload of a synced `latest` marker that marker-after-version
 * (`marker_after_version.ts`) holds back: this cache's own upload of it, left
 * by a push cut off before the marker's index update, in place of the
 * committed object the index still names. Published as its commit would
 * have done once the version its bytes name is listed; where no push will
 * ever list that version, taken back, and the committed marker put back in
 * its place. The reads it shares with the gate are in `marker_listed.ts`, its
 * put-backs in `marker_put_back_committed.ts`.
 *
 * @module
 */
import type { PushContext, WriteContext } from "../sync/context.ts";
import { isInternalPath } from "../sync/paths.ts";
import { publishOwnStranded } from "../sync/service/push_delete.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { listedAfterPush, namedDir } from "./marker_listed.ts";
import { nameSyncedPutBack, putBackCommitted } from "./marker_put_back_committed.ts";

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
 * cleaned up, or this very push taking them back), no push will ever list
 * it, and the committed marker is put back in place of the upload instead
 * (`putBackCommitted`), also where that upload's commit landed. Where the
 * store holds this cache's own object at the version synced here, and the
 * index names another version of the same bytes, a put-back whose index
 * write never came, that copy is named (`nameSyncedPutBack`).
 */
export async function publishOwnMarker(
  push: PushContext,
  entry: WriteContext["entry"],
): Promise<void> {
  const writer = await pushWriterId(push);
  const now = await push.store.head(entry.path, { signal: push.signal });
  if (!now) return;
  if (!isOwnUncommitted(now, entry.syncedVersion, writer)) {
    if (writer !== null && now.metadata?.[WRITER_METADATA] === writer) {
      await nameSyncedPutBack(push, entry.path, now.version);
    }
    return;
  }
  const got = await getOrNull(push.store, entry.path, {
    retry: push.config.retry,
    signal: push.signal,
  });
  if (got?.version !== now.version) return;
  const dir = namedDir(entry.path, got.body);
  if (dir === undefined) return;
  if (await listedAfterPush(push, dir, true) === "listed") {
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
