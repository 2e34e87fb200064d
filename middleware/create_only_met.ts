/**
 * The object a create-only write met: what the create-only writer
 * (`create_only_writer.ts`) makes of a data version's create refused because
 * the key exists. The object is read back and classified: this write's own
 * earlier attempt, the same bytes, another writer's upload that no index names
 * (the version waits, or is adopted), this cache's own refused-run upload whose
 * erasure is pending (the version waits), or a published version (the version
 * is lost to it and set aside).
 *
 * @module
 */
import type { WriteContext } from "../sync/context.ts";
import { type AlreadyExistsError, SluiceError } from "../sync/errors.ts";
import type { ObjectInfo } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";
import { hashObject } from "../sync/transfer/object_ops.ts";
import { indexedEntry, replaceOwn, WRITER_METADATA } from "./own_writes.ts";
import { adoptVersionFile, sayAdopted } from "./version_adoption.ts";
import { loseVersion } from "./lost_version.ts";
import { unlessSiblingWaits, versionWaits, waitVersion } from "./waiting_version.ts";
import { readErasureJournal, UNLOOKED } from "./erasure_journal.ts";

/** The gate's registered name. */
export const CREATE_ONLY_WRITER = "create-only-writer";

/** Metadata key: a random id per write, the same across retries of that write. */
export const WRITE_ID_METADATA = "sluice-push-id";

/** Metadata key: hex SHA-256 of the object's bytes. */
export const CONTENT_HASH_METADATA = "sluice-sha256";

/** The remote's content hash: from our metadata tag when present, else by reading the object. */
export async function remoteHash(
  ctx: WriteContext,
  head: ObjectInfo,
): Promise<{ hash: string; info: ObjectInfo }> {
  const tagged = head.metadata?.[CONTENT_HASH_METADATA];
  if (tagged) return { hash: tagged, info: head };
  // Streamed and hashed in chunks: the remote may be a large file.
  const push = ctx.push;
  return await hashObject(push.store, ctx.key, { retry: push.config.retry, signal: push.signal });
}

/**
 * True when `version` of the write's path is an upload of a refused run that
 * this cache's erasure journal still has to delete (see
 * `refused_run_eraser.ts`), or the journal holds the path not looked at yet
 * (`UNLOOKED`: whatever of this cache's is there), and no index names the
 * path.
 */
export async function erasurePending(ctx: WriteContext, version: string): Promise<boolean> {
  const journal = await readErasureJournal(ctx.push.cache);
  return journal.uploads.some((u) =>
    u.path === ctx.key && (u.version === version || u.version === UNLOOKED)
  ) && await indexedEntry(ctx) === undefined;
}

/** What the gate knows of its create when the key was found taken. */
export interface RefusedCreate {
  /** The create's refusal. */
  readonly exists: AlreadyExistsError;
  /** The version directory of the write's path. */
  readonly dir: string;
  /** This cache's writer id. */
  readonly writer: string;
  /** This write's id, the same across its retries. */
  readonly writeId: string;
  /** The content hash of the local bytes. */
  readonly hash: string;
  /** Drops this write's object when a sibling of its version lost meanwhile. */
  readonly unlessLost: (created?: string) => Promise<void>;
}

/**
 * Reads back the object a create met and settles the write by its kind.
 *
 * @example
 * ```ts
 * import { AlreadyExistsError } from "../sync/errors.ts";
 * import type { WriteContext } from "../sync/context.ts";
 * import { meetObject } from "./create_only_met.ts";
 * declare const ctx: WriteContext;
 * const exists = new AlreadyExistsError(ctx.key);
 * await meetObject(ctx, {
 *   exists,
 *   dir: "data/t/m/d/2",
 *   writer: "w1",
 *   writeId: "id1",
 *   hash: ctx.hash,
 *   unlessLost: async () => {},
 * });
 * ```
 */
export async function meetObject(ctx: WriteContext, met: RefusedCreate): Promise<void> {
  const { exists, dir, writer, writeId, hash, unlessLost } = met;
  const push = ctx.push;
  // This write's own object, written after the refused create: it stands
  // unless a sibling waits meanwhile (true: taken back).
  const took = async (info: ObjectInfo): Promise<boolean> => {
    ctx.result = info;
    ctx.outcome = "written";
    return await unlessSiblingWaits(ctx, dir, info.version);
  };
  const head = await withRetry(
    () => push.store.head(ctx.key, { signal: push.signal }),
    push.config.retry,
    push.signal,
  );
  if (!head) {
    // It vanished between the refused create and this read (a refused
    // run's upload being erased, say): the version is free again, so the
    // create is made once more; refused again, it is left for a later push.
    const info = await replaceOwn(ctx, null);
    if (info) {
      if (await took(info)) return;
      push.note(
        CREATE_ONLY_WRITER,
        `${ctx.key}: the object met at the first create was gone when read back; created`,
        ctx.entry,
      );
      return await unlessLost(info.version);
    }
    throw new SluiceError(
      "push_failed",
      `${ctx.key} was reported present, then was gone when read back. Nothing was overwritten; the local copy stays dirty. Run the push again.`,
      { cause: exists, retryable: true },
    );
  }
  if (head.metadata?.[WRITE_ID_METADATA] === writeId) {
    ctx.result = head;
    ctx.outcome = "written";
    push.note(
      CREATE_ONLY_WRITER,
      `${ctx.key}: an earlier attempt of this write landed`,
      ctx.entry,
    );
    return;
  }
  const remote = await remoteHash(ctx, head);
  if (remote.hash === hash) {
    ctx.result = remote.info;
    ctx.outcome = "identical";
    push.note(CREATE_ONLY_WRITER, `${ctx.key}: the remote already holds these bytes`, ctx.entry);
    return;
  }
  // Another Sluice writer's upload that no index names (a run refused for
  // its lost lock, whose erasure deletes it; a commit on its way): the
  // version is not lost to it yet. Held back whole, dirty, for a later push.
  // (An index that names the path at all names a published version, its
  // object version or not: another client's entry records none.)
  const by = head.metadata?.[WRITER_METADATA];
  if (by !== undefined && by !== writer && await indexedEntry(ctx) === undefined) {
    // Unless told that writer is gone for good (`adoptUncommitted`): its
    // upload is then replaced, only over the very version met, by this
    // cache's. Never published as its: a run that lost its lock never is.
    // Not while that upload is recent: its commit may still be on its way.
    if (push.adoptUncommitted.has(ctx.key) && !versionWaits(push, dir)) {
      const info = await adoptVersionFile(ctx, head, by, dir, writer);
      if (info) {
        if (await took(info)) return;
        sayAdopted(ctx, CREATE_ONLY_WRITER, head, by);
        return await unlessLost(info.version);
      }
    }
    await waitVersion(push, dir, ctx.key, head.version, writer);
    push.note(
      CREATE_ONLY_WRITER,
      `${ctx.key}: another writer's upload, not committed, holds this version; ${dir} waits`,
      ctx.entry,
    );
    return;
  }
  // This cache's own upload that no index names, of a run refused for its
  // lost lock whose erasure could not delete it yet (pending in its
  // journal): never published, so the version is not lost to it. Held back
  // whole, dirty, as another writer's would be: the next push's erasure
  // deletes it, then publishes this copy.
  if (by === writer && await erasurePending(ctx, head.version)) {
    await waitVersion(push, dir, ctx.key, head.version, writer, true);
    push.note(
      CREATE_ONLY_WRITER,
      `${ctx.key}: a refused run's upload from this cache, its erasure pending, holds this version; ${dir} waits`,
      ctx.entry,
    );
    return;
  }
  // The remote copy carries this cache's writer id: the version was
  // published from here, and the local file changed since.
  const ownEarlier = head.metadata?.[WRITER_METADATA] === writer;
  // Another client's object that no index names: said so (a pull does not bring it yet).
  const unindexed = by === undefined && await indexedEntry(ctx) === undefined;
  return await loseVersion(
    ctx,
    CREATE_ONLY_WRITER,
    dir,
    writer,
    ownEarlier,
    unindexed,
    ownEarlier
      ? `${ctx.key}: this version was uploaded from this cache before and changed here since; the datastore's copy was kept and ${dir} was set aside`
      : unindexed
      ? `${ctx.key}: another client's upload, named by no index yet, holds this version; the remote copy was kept and ${dir} was set aside`
      : `${ctx.key}: another writer published this version first; the remote copy was kept and ${dir} was set aside`,
    head.version,
  );
}
