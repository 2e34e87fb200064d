/**
 * The stranded upload of a synced `latest` marker that marker-after-version
 * (`marker_after_version.ts`) holds back: this cache's own upload of it, left
 * by a push cut off before the marker's index update, in place of the
 * committed object the index still names. Published as its commit would
 * have done once the version its bytes name is listed; where no push will
 * ever list that version, taken back, and the committed marker put back in
 * its place. With the two reads the gate shares: the version directory a
 * marker's bytes name, and whether the datastore's index lists it once the
 * push's take-backs are made.
 *
 * @module
 */
import type { PushContext, WriteContext } from "../sync/context.ts";
import { isInternalPath } from "../sync/paths.ts";
import { readIndex, readIndexAround } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { nameLeftPutBack, replaceAndName } from "../sync/transfer/put_back.ts";
import { committedMarkerBytes, warnUnrestored } from "./marker_committed_bytes.ts";
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
async function nameSyncedPutBack(
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

/**
 * Whether the datastore's index lists a file under the version directory
 * `dir` that stays after `push` (one index read): `listed`; with
 * `deletions`, once the push's deletions are decided (at a marker's write),
 * a file whose deletion the push makes does not stay (its own deletion cut
 * off before the index update, the store holding nothing there, which
 * version-under-marker lets through: chaos seed 226400214); `taken-back`
 * when every file it lists there is this cache's own upload, named by the
 * index (its commit landed, its answer lost; or cut off before the marker's
 * shard), that this push takes back (a never-synced path it checks, absent
 * here: the version's files deleted here since, see `dropOwnStranded`), one
 * HEAD per such file, on that rare path alone; `none` otherwise. A marker
 * written naming a version so taken back would be named by this push's
 * commit and read by every clone, its version gone (the take-back comes
 * after the commit step's writes).
 */
export async function listedAfterPush(
  push: PushContext,
  dir: string,
  deletions = false,
): Promise<"listed" | "taken-back" | "none"> {
  const near = await readIndexAround(
    push.store,
    dir,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  const deleted = new Set(
    deletions
      ? push.plan.filter((e) => e.action === "delete" && e.path.startsWith(`${dir}/`)).map((e) =>
        e.path
      )
      : [],
  );
  const listed = Object.keys(near).filter((k) => k.startsWith(`${dir}/`) && !deleted.has(k));
  if (listed.length === 0) return "none";
  const back = takenBackBy(push, dir);
  if (listed.some((k) => !back.has(k))) return "listed";
  const writer = await pushWriterId(push);
  for (const k of listed) {
    const now = await push.store.head(k, { signal: push.signal });
    if (!now || now.version !== near[k].v || !isOwnUncommitted(now, undefined, writer)) {
      return "listed";
    }
  }
  return "taken-back";
}

/**
 * The paths under `dir` whose check this push makes as a take-back of this
 * cache's own upload (see `settleStrays`): never synced, nothing here,
 * recorded as written by this cache, no open conflict.
 */
function takenBackBy(push: PushContext, dir: string): Set<string> {
  const conflicts = new Set(push.state.conflicts?.list().map((c) => c.path) ?? []);
  return new Set(
    push.plan.filter((e) =>
      e.path.startsWith(`${dir}/`) && e.strandedCheck === true && e.action === "skip" &&
      e.syncedVersion === undefined && !e.heldHere && !conflicts.has(e.path) &&
      push.state.attempted?.(e.path) === true
    ).map((e) => e.path),
  );
}
