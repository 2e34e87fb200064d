/**
 * The remote half of a local deletion: a delete conditional on the version
 * this cache last synced. When the store holds another version, what it is
 * decides what happens:
 *
 * - nothing: both sides deleted it;
 * - this cache's own write that never reached the index (it carries this
 *   cache's writer id): deleted over that version, and the index entry
 *   removed, as the edit it replaces would have been committed; or one the
 *   index names (its commit made, its answer lost): the entry naming it
 *   removed first, then the object deleted (a cut-off between the delete and
 *   the commit would otherwise leave the entry naming nothing);
 * - another writer's object the index does not name while the index still
 *   names the synced version: that writer's push is in flight or stopped
 *   before its index update, no committed change; the deletion waits
 *   (`push_waiting_uncommitted`, the path stays dirty), unless the push was
 *   told to adopt it: then it is published as that writer's change, and the
 *   deletion is a conflict with it;
 * - another writer's object while the index names nothing there (a peer's
 *   deletion committed, and that writer's upload in flight, or left out by
 *   its commit beside the other shape of its name, `path_blocked`): no
 *   committed change of a peer's, and the committed one agrees with this
 *   deletion, made in the index alone (`unnamed`); the upload stays its
 *   writer's, still marked there for its next push;
 * - a committed change of a peer: a conflict (`delete_skipped`).
 *
 * @module
 */
import { NotFoundError } from "../errors.ts";
import type { ObjectInfo } from "../ports.ts";
import { withRetry } from "../retry.ts";
import type { PlanEntry, PushContext } from "../context.ts";
import { readIndex, unlistedEntry, updateIndex } from "../transfer/remote_index.ts";
import { adoptStranded } from "../transfer/adopt.ts";
import { getOrNull } from "../transfer/index_io.ts";
import { type IndexEntry, isUnversioned } from "../transfer/bucket_layout.ts";
import { recordVanished } from "./vanished_record.ts";
import { isOwnUncommitted, WRITER_METADATA } from "../transfer/writer_id.ts";
import { sha256Hex } from "../hash.ts";
import { deleteAt, hashObject } from "../transfer/object_ops.ts";
import { dropUploadOverWithdrawn } from "./withdrawn_under_upload.ts";
import { clearWithdrawal, clearWithdrawalOf, noteWithdrawal } from "../transfer/withdrawal_note.ts";
import { setAsideAsLost } from "./set_aside_lost.ts";
import { sameBytes, unnameDeleted } from "./unname_deleted.ts";

/** What became of one deletion. */
export type DeleteOutcome =
  /**
   * Deleted remotely: the index entry goes (conditional on the synced
   * version, or on `base`: this cache's own write deleted, which the index
   * names, its commit made and its answer lost).
   */
  | { readonly kind: "deleted"; readonly base?: string }
  /**
   * Already gone remotely: the index entry goes too (while the store still
   * holds nothing), conditional as a deletion's (`base`: see `deleted`).
   */
  | { readonly kind: "gone"; readonly base?: string }
  /**
   * The index names nothing at the path (a peer's deletion committed) while
   * the store holds an upload no index names (another writer's): both sides
   * deleted the version this cache synced. The index entry goes (there is
   * none, unless that upload is committed meanwhile: the removal is
   * conditional on the synced version), and the upload is left to its
   * writer.
   */
  | { readonly kind: "unnamed"; readonly base?: undefined }
  /** Another writer's uncommitted object holds the path: wait for its commit. */
  | { readonly kind: "waiting"; readonly now: ObjectInfo }
  /**
   * A peer's committed change: a conflict. `adopted`: that change was
   * another writer's uncommitted object, published as its change, as told.
   */
  | {
    readonly kind: "conflict";
    readonly now: ObjectInfo;
    readonly adopted?: boolean;
    /** The SHA-256 the index records for `now`'s version, when it names that version. */
    readonly hash?: string;
  }
  /**
   * Another writer's uncommitted object holds the path, which the push was
   * told to adopt, in a two-phase push's preparation (`deferIndexWrites`):
   * the adoption writes the index, which an old client rewrites under the
   * global lock without a compare-and-swap, and only the commit holds that
   * lock; the deletion is left to the commit (`atCommit`), which makes it
   * as a plain push does.
   */
  | { readonly kind: "deferred" };

/** Deletes `version` of `path`; false when the store holds another one. */
function deleteOwn(ctx: PushContext, path: string, version: string | undefined) {
  return deleteAt(ctx.store, path, version, { retry: ctx.config.retry, signal: ctx.signal });
}

/**
 * Publishes the store's `now` at the entry's path as its writer's change
 * (see `transfer/adopt.ts`); what the index then names, or null when it was
 * not published.
 */
async function adoptAt(
  ctx: PushContext,
  entry: PlanEntry,
  now: ObjectInfo,
): Promise<{ hash: string; version: string; size: number } | null> {
  const got = await readHashed(ctx, entry.path, now);
  if (!got) return null;
  const adoption = await adoptStranded(ctx.store, entry.path, got, entry.syncedVersion ?? null, {
    retry: ctx.config.retry,
    signal: ctx.signal,
    concurrency: ctx.config.concurrency,
    clock: () => ctx.clock.now(),
    pathClass: entry.class,
    recordLost: (path, lost) =>
      recordVanished(ctx.store, [[path, lost]], ctx.clock.now(), ctx.config.retry, ctx.signal),
  });
  if (!adoption.adopted) return null;
  return { hash: got.hash, version: got.version, size: got.size };
}

/**
 * The object at `path` with its SHA-256, while the store still holds `now`'s
 * version (null otherwise): read whole up to the streaming threshold (with
 * its bytes), else hashed as it streams, never held whole.
 */
async function readHashed(
  ctx: PushContext,
  path: string,
  now: ObjectInfo,
): Promise<{ version: string; size: number; hash: string; body?: Uint8Array } | null> {
  const o = { retry: ctx.config.retry, signal: ctx.signal };
  if (now.size <= ctx.config.streamThresholdBytes) {
    const got = await getOrNull(ctx.store, path, o);
    if (got?.version !== now.version) return null;
    return { ...got, hash: await sha256Hex(got.body) };
  }
  try {
    const { info, hash } = await hashObject(ctx.store, path, o);
    return info.version === now.version ? { version: info.version, size: info.size, hash } : null;
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * Deletes the entry's path remotely (see the module doc); `writer` gives this
 * cache's writer id (null: it never wrote one), asked only when the delete
 * is refused. With `deferIndexWrites` (a two-phase push's preparation), an
 * adoption it is told to make is not made (`deferred`). Transport errors
 * throw.
 */
export async function deleteRemote(
  ctx: PushContext,
  entry: PlanEntry,
  writer: () => Promise<string | null>,
  deferIndexWrites = false,
): Promise<DeleteOutcome> {
  if (await deleteOwn(ctx, entry.path, entry.syncedVersion)) {
    await clearLeftNote(ctx, entry);
    return { kind: "deleted" };
  }
  let now = await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
  if (!now) {
    await clearLeftNote(ctx, entry);
    return { kind: "gone" };
  }
  // This cache's take-back of its own committed write, whose delete met another object.
  let withdrawn: { version: string; clear?: () => Promise<void> } | undefined;
  if (
    now.metadata?.[WRITER_METADATA] && isOwnUncommitted(now, entry.syncedVersion, await writer())
  ) {
    // Its commit may have landed, its answer lost: the index then names it,
    // and the deletion is based on it.
    const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
    const committed = !!index && Object.hasOwn(index.entries, entry.path) &&
      index.entries[entry.path].v === now.version;
    const base = committed ? { base: now.version } : {};
    const own = now.version;
    // The entry naming it goes first, then the object (as `dropOwnStranded`
    // does for a create): deleted first, a cut-off before this push's commit
    // would leave the index naming nothing, and the next push, finding
    // nothing there and an entry of a version it never synced, would take
    // its own committed write for a peer's lost change (a conflict with
    // itself, the entry left naming nothing). Cut off between the two, the
    // upload stands unnamed, still this cache's, and the next push deletes it:
    // the path is recorded as written first (`markAttempted`), as a pull
    // that finds the entry gone forgets the file as synced, and a directory
    // of its name here is then no deletion the next push would plan, while
    // the record makes it check the name (`buildPlan`; chaos seed 178300155).
    // The write is recorded as synced first too (`recordOwnNamed`): a peer
    // may name it again before the delete, and a cut-off after the delete
    // then leaves the next push a deletion to finish.
    const before = ctx.state.synced(entry.path);
    let clear: (() => Promise<void>) | undefined;
    if (committed) {
      await ctx.state.markAttempted?.([entry.path]);
      await recordOwnNamed(ctx, entry.path, index!.entries[entry.path]);
      clear = await unnameOwn(ctx, entry.path, now.version);
    }
    // Deleted, or gone (by this call, its answer lost, or a peer): its note has served.
    const gone = await deleteOwn(ctx, entry.path, now.version) ? "deleted" : undefined;
    now = gone ? null : await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
    if (!now) {
      await clear?.();
      return { kind: gone ?? "gone", ...base };
    }
    if (committed) {
      ctx.state.setSynced(entry.path, before);
      // Its entry taken out, a peer's edit over it met, not committed yet:
      // it goes with this deletion (see `withdrawn_under_upload.ts`).
      const met = await dropUploadOverWithdrawn(ctx, entry.path, await writer());
      if (met.left) await clear?.();
      if (met.dropped && !met.named) return { kind: "deleted", ...base };
      const theirs = met.named;
      if (theirs && !isUnversioned(theirs)) {
        const held = await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
        if (held) {
          await clear?.();
          return { kind: "conflict", now: held, hash: theirs.h };
        }
      }
      withdrawn = { version: own, clear };
    }
  }
  const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  const named = index && Object.hasOwn(index.entries, entry.path)
    ? index.entries[entry.path].v
    : undefined;
  if (entry.syncedVersion !== undefined && named === entry.syncedVersion) {
    // Told to adopt it (its writer is gone for good): published as that
    // writer's change, the deletion meets it as a committed one. Not in a
    // preparation: the adoption writes the index (see `deferred`).
    if (ctx.adoptUncommitted.has(entry.path) && deferIndexWrites) return { kind: "deferred" };
    if (ctx.adoptUncommitted.has(entry.path) && await adoptAt(ctx, entry, now) !== null) {
      return { kind: "conflict", now, adopted: true };
    }
    return { kind: "waiting", now };
  }
  // Nothing named there (on a v2 index, neither in the path's shard the meta
  // does not list yet, which the next commit into it lists): the object met
  // is no committed change, and the committed deletion agrees with this one.
  if (
    named === undefined &&
    await unlistedEntry(ctx.store, index, entry.path, ctx.config.retry, ctx.signal) === undefined
  ) return { kind: "unnamed" };
  // The take-back's delete met an object another commit named in place of
  // the withdrawn version (an old client's write): its note has served.
  if (withdrawn && named !== undefined && named !== withdrawn.version) await withdrawn.clear?.();
  // The index's hash of the version found, when it names that one (the status shows it).
  const hash = index && named === now.version ? index.entries[entry.path].h : undefined;
  return { kind: "conflict", now, ...(hash ? { hash } : {}) };
}

/**
 * The synced version of the entry's path is gone from the store (deleted
 * now, or before). Where this cache recorded a write of the path
 * (`attempted`), that version may be one a take-back of its own noted and
 * was cut off before deleting (it records the version as synced first, see
 * `recordOwnNamed`): the note has served, and goes (one read, on that path
 * alone). Left, it would outlive the take-back: the same bytes published
 * there again (the same version, where versions are the bytes'), their
 * entry then dropped by an old client, a peer's edit of them would be left
 * out as a conflict with a deletion nobody made, and its write deleted.
 */
async function clearLeftNote(ctx: PushContext, entry: PlanEntry): Promise<void> {
  if (entry.syncedVersion === undefined || ctx.state.attempted?.(entry.path) !== true) return;
  await clearWithdrawalOf(ctx.store, entry.path, entry.syncedVersion, {
    retry: ctx.config.retry,
    signal: ctx.signal,
  });
}

/**
 * A path marked dirty, absent here, that this cache never synced: when the
 * store holds this cache's own upload of it that never reached the index
 * (its push crashed before the commit, and the file was deleted since), that
 * upload is deleted, conditional on its version, so no peer waits on it for
 * good, and an entry naming it (its commit landed, its answer lost, or a
 * peer adopted it) is taken out with it, where this cache recorded a write
 * of the path (`attempted`). Anything else there (nothing, a peer's object)
 * is left alone. True when an upload was deleted. Transport
 * errors throw. `namedAgain` is told of the entry another writer committed
 * at the path after this cache took out the entry naming its upload (a
 * peer's, naming the path again or putting its copy back over the delete):
 * the index shows no withdrawal then.
 */
export async function dropOwnStranded(
  ctx: PushContext,
  path: string,
  writer: () => Promise<string | null>,
  attempted: boolean,
  namedAgain?: (theirs: IndexEntry) => void,
): Promise<boolean> {
  const now = await withRetry(
    () => ctx.store.head(path, { signal: ctx.signal }),
    ctx.config.retry,
    ctx.signal,
  );
  if (!now?.metadata?.[WRITER_METADATA] || !isOwnUncommitted(now, undefined, await writer())) {
    return false;
  }
  const index = await readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
  // On a v2 index, an entry in the path's shard that the meta does not list
  // yet (this cache's commit cut off after the shard write, before its meta
  // bump) counts as named: the next commit into that shard lists it, and
  // would publish it naming the deleted upload.
  const named = index && Object.hasOwn(index.entries, path)
    ? index.entries[path]
    : await unlistedEntry(ctx.store, index, path, ctx.config.retry, ctx.signal);
  // Named by the index (committed by this cache, its answer lost, or
  // adopted by a peer): the deletion here came after that write, and goes
  // with the entry (`unnameDeleted`), where this cache recorded a write of
  // the path (`attempted`); else it is another's (a cache sharing the
  // writer id): left alone.
  if (named?.v === now.version && !attempted) return false;
  // Its copy here set aside as a lost version's (`version_exists`), not
  // deleted: the refused create left nothing of this cache's there, and the
  // index names a published version (a peer's, whose create met this
  // upload's bytes and committed it), which stays. The record of the write
  // stands when the look that settles it at the set-aside failed.
  if (
    named?.v === now.version && await setAsideAsLost(ctx.cache.stateDir, path, now.version)
  ) return false;
  // The entry naming this very upload goes first, then the object: deleted
  // first, a cut-off before the entry's removal would leave the index naming
  // nothing, and the next push, finding nothing there to check, would never
  // take it out (its own committed file then looked like a peer's change to
  // this cache's pull). Cut off between the two, the upload stands unnamed,
  // still recorded here, and the next push deletes it.
  // Recorded as synced at that version first (`recordOwnNamed`), durably:
  // cut off after the delete, the next push finishes the deletion.
  const own = named?.v === now.version;
  let clear: (() => Promise<void>) | undefined;
  if (own) {
    await recordOwnNamed(ctx, path, named!);
    clear = await unnameOwn(ctx, path, now.version);
  }
  // Named by no index at that read, the upload may be named before its
  // delete lands all the same: a move to v2 whose catch-up carries the v1
  // commit that wrote it (its answer lost) into the shards, and looks at it
  // before the delete. The read after the delete takes such an entry out
  // (`unnameDeleted`); recorded as synced at the upload's version first,
  // durably, a cut-off between the two leaves the next push a deletion to
  // finish, which takes out an entry naming that version (chaos seed
  // 222700055). Not for a file here still (`attempted` is false then), nor
  // over a peer's entry of another version (its object gone outside
  // Sluice): the next push's plain deletion would take it out, no loss
  // recorded; unrecorded, it takes the upload back again (chaos seed 241600138).
  const recorded = !own && attempted && (named === undefined || isUnversioned(named)) &&
    await recordOwnUnnamed(ctx, path, now);
  // Beside old clients' entries on a store whose versions are the bytes'
  // (ETags), an old client's rewrite of the same bytes, committed before the
  // delete, carries this upload's version and goes with it: its bytes are
  // kept to put back (see `unnameDeleted`). So too in a push beside old
  // clients whose index holds none of theirs yet: its global lock taken over
  // before the delete, the new holder's first write may be those bytes.
  const beside = ctx.oldClients === true ||
    (index !== null && Object.values(index.entries).some(isUnversioned));
  const o = { retry: ctx.config.retry, signal: ctx.signal, concurrency: ctx.config.concurrency };
  const held = beside ? await getOrNull(ctx.store, path, o) : null;
  const bytes = held?.version === now.version ? held.body : undefined;
  if (!(await deleteOwn(ctx, path, now.version))) {
    if (recorded) ctx.state.setSynced(path, undefined);
    if (own) {
      ctx.state.setSynced(path, undefined);
      const after = await readIndex(
        ctx.store,
        ctx.config.retry,
        ctx.signal,
        ctx.config.concurrency,
      );
      const e = after && Object.hasOwn(after.entries, path) ? after.entries[path] : undefined;
      // Unnamed: a peer's edit over the withdrawn write, not committed yet,
      // goes with the withdrawal (see `withdrawn_under_upload.ts`).
      const drop = e ? undefined : await dropUploadOverWithdrawn(ctx, path, await writer());
      if (drop?.left) await clear?.();
      const met = e ?? drop?.named;
      if (met && !isUnversioned(met) && met.v !== now.version) namedAgain?.(met);
      // Another object committed in place of the withdrawn version (a
      // peer's, or an old client's write): no write over that version can
      // land now, and the note has served.
      if (met && met.v !== now.version) await clear?.();
    }
    return false;
  }
  await clear?.(); // the take-back's delete done, its note has served
  // An entry of a version the store no longer held before this delete (this
  // cache's upload stood there: written over this cache's own commit whose
  // answer never came back, a crash; or created where a peer's committed
  // object had gone outside Sluice) names nothing once the upload is gone:
  // taken out with it, recorded as lost (see `unnameDeleted`). So does an
  // old client's entry (no version) of other bytes than the upload's: the
  // upload was written over that client's object (an edit of it here whose
  // commit never came, the file's record since lost), and those bytes went
  // then (chaos seed 206200022).
  const over = named && (!isUnversioned(named) || (bytes && !(await sameBytes(named, bytes))))
    ? named.v
    : undefined;
  const left = await unnameDeleted(ctx, path, now.version, over, bytes);
  // Never synced here: the record goes with the upload (the push persists it).
  if (own || recorded) ctx.state.setSynced(path, undefined);
  // The entry naming this upload was taken out first: one naming another
  // version now was committed since, by a peer (one that synced this upload
  // named it again as a dropped entry, and put its copy back over the
  // delete; or it wrote the path). That is no withdrawal the index shows:
  // told to the caller, which keeps the local deletion as a conflict with it.
  if (own && left) namedAgain?.(left);
  return true;
}

/**
 * Records `path` as synced, durably, at the version `named` (this cache's
 * own upload, whose commit landed with its answer lost), before the entry
 * naming it is taken out and the object deleted. Between the two, a peer
 * that synced that version finds the entry gone while the store still holds
 * it, and names it again as an entry another client dropped (see
 * `dropped_entries.ts`); a process cut off after its delete, before it reads
 * the index again, would leave that entry naming nothing, and its next push,
 * finding nothing there and no record of the version, would never take it
 * out (chaos seed 182700371, I7). With the record, the path gone here is a
 * deletion whose commit never came: the next push that covers it finds the
 * object gone and takes out the entry naming that version.
 */
async function recordOwnNamed(ctx: PushContext, path: string, named: IndexEntry): Promise<void> {
  await ctx.state.recordSynced(path, { hash: named.h, version: named.v, size: named.s });
}

/**
 * Records `path` as synced, durably, at the version of this cache's own
 * upload `now` that no index named at the look before its delete (see
 * `dropOwnStranded`), with its bytes' hash; false when the store holds
 * another version now (the delete is then refused, and nothing recorded).
 */
async function recordOwnUnnamed(ctx: PushContext, path: string, now: ObjectInfo) {
  const got = await readHashed(ctx, path, now);
  if (!got) return false;
  await ctx.state.recordSynced(path, { hash: got.hash, version: got.version, size: got.size });
  return true;
}

/**
 * Takes out the entry naming this cache's own upload `version` at `path`
 * (its commit landed, its answer lost), before that upload is deleted:
 * conditional on the entry naming that version still. Returns the clearing
 * of the take-back's note, which its caller makes once its delete is done.
 */
async function unnameOwn(
  ctx: PushContext,
  path: string,
  version: string,
): Promise<() => Promise<void>> {
  // Noted first: a peer's commit over that version that finds the entry
  // gone tells the withdrawal from an entry an old client dropped.
  const c = { retry: ctx.config.retry, signal: ctx.signal };
  const note = await noteWithdrawal(ctx.store, path, version, c);
  await updateIndex(
    ctx.store,
    { set: {}, remove: [path], base: { [path]: version }, removeHeld: [path] },
    ctx.config.retry,
    ctx.signal,
    undefined,
    ctx.config.concurrency,
    () => ctx.clock.now(),
  );
  return () => clearWithdrawal(ctx.store, path, note, c);
}

/**
 * A synced path a walk found deleted here, which an earlier walk push of
 * this cache uploaded without committing (its index update failed, or the
 * process stopped): when the store holds that upload (this cache's writer
 * id, another version than the one synced) and the index still names the
 * synced version, the upload is published as this cache's change, as its
 * commit would have done, so that no reader skips the path and no peer
 * waits on it. A walk never deletes, so the local deletion stays one to
 * push by name; it now goes over the published version. Returns what the
 * manifest records for the path, or null when there was nothing of this
 * cache's to publish. Transport errors throw.
 */
export async function publishOwnStranded(
  ctx: PushContext,
  entry: PlanEntry,
  writer: () => Promise<string | null>,
): Promise<{ hash: string; version: string; size: number } | null> {
  const now = await withRetry(
    () => ctx.store.head(entry.path, { signal: ctx.signal }),
    ctx.config.retry,
    ctx.signal,
  );
  if (
    !now?.metadata?.[WRITER_METADATA] || !isOwnUncommitted(now, entry.syncedVersion, await writer())
  ) {
    return null;
  }
  return await adoptAt(ctx, entry, now);
}
