/**
 * What the config-cas-writer gate does with a conditional write the store
 * refused (`config_cas_writer.ts`): it looks at the object met there. The
 * same bytes count as written (`identical`), so a cache that lost its sync
 * state reports no conflict for files that agree. An object this same cache
 * wrote (its writer id, object metadata `sluice-writer`) is its own write
 * that never reached the index (a crash or an outage between the write and
 * the commit), not a peer's change: the new copy replaces it with a
 * compare-and-swap on that orphan's version; but a copy put back as this
 * cache synced it is not written over such an object the index names (a
 * peer's create that met those bytes committed them as its change), which
 * is met as a committed change. A deletion the index does not
 * show yet is written over. A peer's write carries another id: an
 * uncommitted one is waited for (its push may be about to commit it), also
 * over an entry naming this write's very bytes at another version than its
 * base (this cache's own write, committed with its answer lost, which that
 * peer pulled and wrote over), unless the push was told to take the path
 * over (`adoptUncommitted`, for a writer gone for good): then that object
 * is published in the index as its writer's change, never written over,
 * and met as a committed change. A snapshot met by a committed change is
 * written again over that version (`snapshot_rebase.ts`), as is a `latest`
 * marker naming a newer version than the datastore's (`marker_rebase.ts`);
 * any other committed change is a recorded conflict (`cas_outcomes.ts`).
 *
 * @module
 */
import type { WriteContext } from "../sync/context.ts";
import { sha256Hex } from "../sync/hash.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import {
  adopt,
  fetchRemote,
  indexedEntry,
  leaveAdoptionToCommit,
  replaceOwn,
  stillIndexed,
  writeOverCommitted,
  WRITER_METADATA,
} from "./own_writes.ts";
import { rebaseSnapshot } from "./snapshot_rebase.ts";
import {
  namesNewerVersion,
  publishesOverDeletion,
  rebaseMarker,
  recreateMarker,
} from "./marker_rebase.ts";
import { recordConflict, waitFor } from "./cas_outcomes.ts";

/** The config-cas-writer gate's registered name. */
export const CONFIG_CAS_WRITER = "config-cas-writer";

/** The version this write is based on: the one it updates, null for a create. */
function baseOf(ctx: WriteContext): string | null {
  return ctx.mode.kind === "update" ? ctx.mode.version : null;
}

/**
 * True when the write puts back the copy this cache synced (no change made
 * here: a take-back of its own upload by writing over it, as the next push
 * after a lost version's marker reset makes) over this cache's own object
 * at `version`, and the index names that object. It is committed then: a
 * peer whose create met those very bytes committed them as its own change
 * (or this cache's commit landed, its answer lost: the two cannot be told
 * apart). Written over, a peer's committed change would be lost unseen, so
 * it is met as a committed change instead (chaos seed 203100067). Only such
 * a put-back reads the index.
 */
async function putBackOverNamed(ctx: WriteContext, version: string): Promise<boolean> {
  const synced = ctx.entry.syncedHash ?? ctx.push.state.synced(ctx.key)?.hash;
  if (synced === undefined || synced !== ctx.hash) return false;
  return (await indexedEntry(ctx))?.v === version;
}

/**
 * Settles a conditional write of `ctx` the store refused (a precondition
 * failed, or the object exists), this cache's writer id being `writer`:
 * sets `ctx.result` and `ctx.outcome`, or records a conflict, or waits for
 * another writer's uncommitted object (see the module doc).
 *
 * @example
 * ```ts ignore
 * try {
 *   await next();
 * } catch (e) {
 *   if (!(e instanceof PreconditionFailedError)) throw e;
 *   await settleRefused(ctx, await writerId(ctx));
 * }
 * ```
 */
export async function settleRefused(ctx: WriteContext, writer: string): Promise<void> {
  const push = ctx.push;
  let remote = await fetchRemote(ctx);
  /** True (and the write done) when the store holds this write's bytes. */
  const holdsThese = async () => {
    if (!remote || (await sha256Hex(remote.body)) !== ctx.hash) return false;
    const { body: _body, ...info } = remote;
    ctx.result = info;
    ctx.outcome = "identical";
    // Not the base it updates: a deletion may be committed over it by the commit.
    if (ctx.mode.kind === "update") ctx.baseGone = true;
    push.note(CONFIG_CAS_WRITER, `${ctx.key}: the remote already holds these bytes`, ctx.entry);
    return true;
  };
  if (await holdsThese()) return;
  if (
    remote && remote.metadata?.[WRITER_METADATA] === writer &&
    !(await putBackOverNamed(ctx, remote.version))
  ) {
    // This cache's own earlier write, which never reached the index or whose
    // record here was lost (a damaged manifest line): replace it.
    const info = await replaceOwn(ctx, remote.version);
    if (info) {
      ctx.result = info;
      ctx.outcome = "written";
      if (ctx.mode.kind === "update") ctx.baseGone = true;
      push.note(
        CONFIG_CAS_WRITER,
        `${ctx.key}: replaced this cache's own earlier write (version ${remote.version}), not committed or no longer recorded here`,
        ctx.entry,
      );
      return;
    }
    // Refused: a replacement that landed with its answer lost met itself.
    remote = await fetchRemote(ctx);
    if (await holdsThese()) return;
  }
  if (!remote && ctx.mode.kind === "update" && await stillIndexed(ctx, ctx.mode.version)) {
    // Gone from the store while the index still names the version this
    // cache synced: a deletion nobody committed (this cache's own, cut off
    // before its index update, or one still in flight). No committed change
    // is in the way: the file is created again.
    const info = await replaceOwn(ctx, null);
    if (info) {
      ctx.result = info;
      ctx.outcome = "written";
      ctx.baseGone = true;
      push.note(
        CONFIG_CAS_WRITER,
        `${ctx.key}: created again over an uncommitted deletion`,
        ctx.entry,
      );
      return;
    }
    remote = await fetchRemote(ctx);
    if (await holdsThese()) return;
  }
  // A snapshot is written over the committed version (see `snapshot_rebase.ts`):
  // an object the index does not name is waited for as with any file.
  const named = remote ? await indexedEntry(ctx) : undefined;
  // Synced from another client's entry (no object version: `~…`), so the
  // store had no version to compare with and refused the write; the object
  // it holds is the very copy this cache synced (its bytes), which the
  // index still names: no uncommitted write, no change of a peer's. The
  // write goes over it, conditional on that object's own version.
  if (
    remote && ctx.mode.kind === "update" && ctx.mode.version.startsWith("~") &&
    named?.v === ctx.mode.version &&
    (await sha256Hex(remote.body)) === push.state.synced(ctx.key)?.hash
  ) {
    return await writeOverCommitted(ctx, remote.version, CONFIG_CAS_WRITER, {
      written:
        `written over the copy this cache synced from another client's entry (version ${remote.version})`,
      lost: "replaced meanwhile by another writer",
      reason:
        "another writer replaced the datastore's copy while this push wrote over the one this cache synced; the local copy stays dirty and the next push looks again",
    });
  }
  /** The index names the object met: that version, or (an old client's entry) its bytes. */
  const namesRemote = async () =>
    named !== undefined && remote !== null &&
    (named.v === remote.version ||
      (isUnversioned(named) &&
        (named.h ? named.h === await sha256Hex(remote.body) : named.s === remote.size)));
  // Another Sluice writer's upload (its id, not this cache's) over an
  // entry naming these very bytes: this copy is no change over what the
  // index names (this cache's own write, committed with its answer lost,
  // which that writer pulled and wrote over; or the same bytes committed by
  // a peer). Nothing committed is in the way of it, so that upload is
  // waited for as over the base itself: taken as theirs, the conflict would
  // name an upload its writer may still withdraw.
  const overTheseBytes = named?.h === ctx.hash && !!remote?.metadata?.[WRITER_METADATA] &&
    remote.metadata[WRITER_METADATA] !== writer;
  if (
    remote &&
    ((named?.v ?? null) === baseOf(ctx) ||
      ((ctx.entry.snapshot || overTheseBytes) && !(await namesRemote())))
  ) {
    // Another writer's object the index does not name: its push is in
    // flight, or stopped between its upload and its index commit. That is
    // no committed change to resolve against, and writing over it could
    // take the object from under a push about to commit it: wait for it,
    // unless told to adopt it (its writer is gone for good): it is then
    // published as that writer's change, and met below as a committed one.
    // Not in a two-phase push's preparation: the adoption writes the
    // index, which old clients rewrite under the global lock only its
    // commit holds; the write is left to the commit (`atCommit`).
    if (push.adoptUncommitted.has(ctx.key) && push.preparing) {
      return leaveAdoptionToCommit(ctx, CONFIG_CAS_WRITER);
    }
    const adoption = push.adoptUncommitted.has(ctx.key)
      ? await adopt(ctx, remote, CONFIG_CAS_WRITER)
      : undefined;
    if (!adoption?.adopted) {
      await waitFor(ctx, remote, CONFIG_CAS_WRITER, adoption?.why);
      return;
    }
  }
  if (ctx.entry.snapshot) return await rebaseSnapshot(ctx, remote, CONFIG_CAS_WRITER);
  // A `latest` marker naming a newer version than the datastore's: no
  // conflict, written over it (see `marker_rebase.ts`).
  if (remote && await namesNewerVersion(ctx, remote)) {
    return await rebaseMarker(ctx, remote, CONFIG_CAS_WRITER);
  }
  // One deleted by another writer, this push publishing the version it
  // names: created again (see `marker_rebase.ts`).
  if (!remote && await publishesOverDeletion(ctx)) {
    return await recreateMarker(ctx, CONFIG_CAS_WRITER);
  }
  await recordConflict(ctx, remote, CONFIG_CAS_WRITER);
}
