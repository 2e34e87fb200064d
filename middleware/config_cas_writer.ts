/**
 * config-cas-writer: the per-write half of the lockfile-guard and the
 * overwrite-cas gate. Those give a config file, a latest marker, an index
 * file or other state a compare-and-swap mode: `update` on the version this
 * cache last synced, or `create` when it never synced one. When that write
 * is refused because a peer changed (or created, or deleted) the file
 * remotely, this gate turns the refusal into a conflict instead of a failed
 * push: nothing is overwritten, the local copy is kept and stays dirty, the
 * entry carries the datastore's version (`entry.conflict`), which the push
 * records as an unresolved conflict, and a warning (`config_changed_remotely`
 * for config files, `changed_remotely` for the others) names the file and
 * the command that resolves it.
 *
 * A snapshot (a catalog export: see `snapshot_rebase.ts`) met by a
 * committed change is no conflict: it is written again over that version;
 * so is a `latest` marker naming a newer version than the datastore's
 * marker (see `marker_rebase.ts`).
 *
 * When the remote already holds the same bytes, the write counts as done
 * (`identical`), so a cache that lost its sync state does not report
 * conflicts for files that agree.
 *
 * Every such write carries this cache's writer id (object metadata
 * `sluice-writer`, a random id kept in the cache's state). When the refusal
 * finds an object this same cache wrote, it is this cache's own write that
 * never reached the index (a crash or an outage between the write and the
 * commit), not a peer's change: the new copy replaces it with a
 * compare-and-swap on that orphan's version, and the commit then names a
 * version the store holds. A peer's write carries another id: a committed
 * one is a conflict; an uncommitted one is waited for (its push may be about
 * to commit it), unless the push was told to take the path over
 * (`adoptUncommitted`, for a writer gone for good): then that object is
 * published in the index as its writer's change, never written over, and
 * this write meets it as a committed change: a conflict.
 *
 * @module
 */
import type { PathClass, WriteContext, WriteGateEntry } from "../sync/context.ts";
import { AlreadyExistsError, PreconditionFailedError } from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import type { Middleware } from "../sync/pipeline.ts";
import {
  adopt,
  fetchRemote,
  indexedEntry,
  leaveAdoptionToCommit,
  replaceOwn,
  stillIndexed,
  writeOverCommitted,
  WRITER_METADATA,
  writerId,
} from "./own_writes.ts";
import { rebaseSnapshot } from "./snapshot_rebase.ts";
import {
  namesNewerVersion,
  publishesOverDeletion,
  rebaseMarker,
  recreateMarker,
} from "./marker_rebase.ts";
import { recordConflict, waitFor } from "./cas_outcomes.ts";

export {
  CHANGED_REMOTELY,
  CONFIG_CHANGED_REMOTELY,
  PUSH_WAITING_UNCOMMITTED,
} from "./cas_outcomes.ts";

export { WRITER_METADATA } from "./own_writes.ts";

/** The gate's registered name. */
export const CONFIG_CAS_WRITER = "config-cas-writer";

/** The version this write is based on: the one it updates, null for a create. */
function baseOf(ctx: WriteContext): string | null {
  return ctx.mode.kind === "update" ? ctx.mode.version : null;
}

/** The classes whose conditional writes this gate turns into conflicts. */
export const CAS_CLASSES: ReadonlySet<PathClass | undefined> = new Set([
  "config",
  "latest-marker",
  "index",
  "other",
]);

/**
 * The gate. Acts only on config files written with a conditional mode; every
 * other write passes through untouched.
 *
 * @example
 * ```ts
 * import { configCasWriter } from "./config_cas_writer.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * const write = new Pipeline<WriteContext>(WRITE_PHASES);
 * write.add({ name: "config-cas-writer", phase: "mode", middleware: configCasWriter() });
 * ```
 */
export function configCasWriter(): Middleware<WriteContext> {
  return async function configCasWriterGate(ctx, next) {
    if (!CAS_CLASSES.has(ctx.entry.class) || ctx.mode.kind === "overwrite") return await next();
    const writer = await writerId(ctx);
    ctx.metadata[WRITER_METADATA] = writer;
    try {
      await next();
      return;
    } catch (e) {
      if (!(e instanceof PreconditionFailedError || e instanceof AlreadyExistsError)) throw e;
    }
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
    if (remote && remote.metadata?.[WRITER_METADATA] === writer) {
      // This cache's own write that never reached the index: replace it.
      const info = await replaceOwn(ctx, remote.version);
      if (info) {
        ctx.result = info;
        ctx.outcome = "written";
        if (ctx.mode.kind === "update") ctx.baseGone = true;
        push.note(
          CONFIG_CAS_WRITER,
          `${ctx.key}: replaced this cache's own uncommitted write (version ${remote.version})`,
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
    if (
      remote &&
      ((named?.v ?? null) === baseOf(ctx) || (ctx.entry.snapshot && !(await namesRemote())))
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
  };
}

/**
 * The gate's default registration: write phase `mode`.
 *
 * @example
 * ```ts
 * import { configCasWriterEntry } from "./config_cas_writer.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * new Pipeline<WriteContext>(WRITE_PHASES).add(configCasWriterEntry());
 * ```
 */
export function configCasWriterEntry(): WriteGateEntry {
  return {
    appliesTo: (entry) =>
      entry.class === "config" ||
      (CAS_CLASSES.has(entry.class) && entry.mode !== undefined && entry.mode.kind !== "overwrite"),
    name: CONFIG_CAS_WRITER,
    phase: "mode",
    middleware: configCasWriter(),
    description:
      "a config file, marker or other file a peer changed since the last sync is never overwritten: it becomes a recorded conflict",
  };
}
