/**
 * create-only-writer: a data version file is never overwritten. Each entry of
 * class `data-version` is written with mode `create`; latest markers, indexes
 * and other mutable files keep their own rule.
 *
 * When the key already exists:
 * - the remote carries this write's id (a retried create whose first attempt
 *   landed but whose response was lost): success;
 * - the remote holds the same bytes (compared by content hash, read from the
 *   object's metadata when tagged, else by reading the object): success, so
 *   re-publishing is idempotent;
 * - else another writer published the version first (or this cache did,
 *   and the local file changed since): the local version directory is set aside (kept under `.sluice/set-aside/`, out of the dirty
 *   set, so it is not retried forever) and `VersionConflictError`
 *   (`version_exists`) names the key. The files of that version this cache
 *   created itself and no index names (in this push, in flight beside the
 *   refused one, or in an earlier push whose commit never came) are deleted,
 *   each over the version found: the version is the other writer's, and an
 *   object of this cache's beside it would be named by no commit;
 * - where another writer's object may be gone for a moment only (an
 *   erasure's put-back on its way, `put_back_pending.ts`): nothing is
 *   created, and the version is set aside the same way;
 * - unless it is another Sluice writer's upload that no index names (a run
 *   refused for its lost lock, whose erasure deletes it; a commit on its
 *   way): the whole version then waits, dirty (`lost_version.ts`), or, told
 *   that writer is gone for good, replaces that upload
 *   (`version_adoption.ts`);
 * - or this cache's own such upload, whose erasure is still pending in its
 *   journal (its delete failed): the version waits the same way, until the
 *   next push's erasure deletes it; it was never published from here.
 *
 * @module
 */
import type { WriteContext, WriteGateEntry } from "../sync/context.ts";
import { AlreadyExistsError, SluiceError, VersionConflictError } from "../sync/errors.ts";
import { randomId } from "../sync/hash.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { type ObjectInfo, PutModes } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";
import { hashObject } from "../sync/transfer/object_ops.ts";
import { indexedEntry, replaceOwn, WRITER_METADATA, writerId } from "./own_writes.ts";
import { putBackPending } from "./put_back_pending.ts";
import { adoptVersionFile, sayAdopted } from "./version_adoption.ts";
import { loseVersion, lostVersion, unlessSiblingLost, versionDir } from "./lost_version.ts";
import { unlessSiblingWaits, versionWaits, waitVersion } from "./waiting_version.ts";
import { readErasureJournal } from "./erasure_journal.ts";

/** The gate's registered name. */
export const CREATE_ONLY_WRITER = "create-only-writer";

/** Metadata key: a random id per write, the same across retries of that write. */
export const WRITE_ID_METADATA = "sluice-push-id";

/** Metadata key: hex SHA-256 of the object's bytes. */
export const CONTENT_HASH_METADATA = "sluice-sha256";

/** The remote's content hash: from our metadata tag when present, else by reading the object. */
async function remoteHash(
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
 * `refused_run_eraser.ts`), and no index names the path.
 */
async function erasurePending(ctx: WriteContext, version: string): Promise<boolean> {
  const journal = await readErasureJournal(ctx.push.cache);
  return journal.uploads.some((u) => u.path === ctx.key && u.version === version) &&
    await indexedEntry(ctx) === undefined;
}

/**
 * The gate (write phase `mode`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * import { CREATE_ONLY_WRITER, createOnlyWriter } from "./create_only_writer.ts";
 * const write = new Pipeline<WriteContext>(WRITE_PHASES);
 * write.add({ name: CREATE_ONLY_WRITER, phase: "mode", middleware: createOnlyWriter() });
 * ```
 */
export function createOnlyWriter(): Middleware<WriteContext> {
  return async function createOnlyWriterGate(ctx, next) {
    if (ctx.entry.class !== "data-version") return await next();
    const push = ctx.push;
    const dir = versionDir(ctx.key);
    const earlier = lostVersion(push, dir);
    if (earlier) {
      // A sibling file of this version already lost the race: write nothing more of it.
      await earlier.done;
      throw new VersionConflictError([ctx.key], [], earlier.own);
    }
    const held = versionWaits(push, dir);
    if (held) {
      // A sibling found another writer's upload in the way: nothing of it is written.
      await held;
      return;
    }
    const hash = ctx.hash;
    const writeId = randomId();
    ctx.mode = PutModes.create;
    ctx.metadata[WRITE_ID_METADATA] = writeId;
    ctx.metadata[CONTENT_HASH_METADATA] = hash;
    const writer = await writerId(ctx);
    ctx.metadata[WRITER_METADATA] = writer;
    // Nothing created where another writer's object may be gone for a moment only.
    if (await putBackPending(ctx)) {
      return await loseVersion(
        ctx,
        CREATE_ONLY_WRITER,
        dir,
        writer,
        false,
        false,
        `${ctx.key}: the datastore's index names other bytes at this version, whose object is gone for now (its writer's put-back may be on its way); nothing was written and ${dir} was set aside`,
      );
    }
    let exists: AlreadyExistsError | undefined;
    try {
      await next();
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
      exists = e;
    }
    const unlessLost = (created?: string) => unlessSiblingLost(ctx, dir, created);
    // This write's own object, written after the refused create: it stands
    // unless a sibling waits meanwhile (true: taken back).
    const took = async (info: ObjectInfo): Promise<boolean> => {
      ctx.result = info;
      ctx.outcome = "written";
      return await unlessSiblingWaits(ctx, dir, info.version);
    };
    if (!exists) {
      const created = ctx.outcome === "written" ? ctx.result?.version : undefined;
      if (await unlessSiblingWaits(ctx, dir, created)) return;
      return await unlessLost(created);
    }
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
  };
}

/**
 * The default registration of the gate.
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * import { createOnlyWriterEntry } from "./create_only_writer.ts";
 * new Pipeline<WriteContext>(WRITE_PHASES).add(createOnlyWriterEntry());
 * ```
 */
export function createOnlyWriterEntry(): WriteGateEntry {
  return {
    appliesTo: (entry) => entry.class === "data-version",
    name: CREATE_ONLY_WRITER,
    phase: "mode",
    middleware: createOnlyWriter(),
    description:
      "data version files are written create-only; equal bytes succeed, different bytes fail with version_exists",
  };
}
