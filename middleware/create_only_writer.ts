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
import { AlreadyExistsError, VersionConflictError } from "../sync/errors.ts";
import { randomId } from "../sync/hash.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA, writerId } from "./own_writes.ts";
import { pendingPutBack } from "./put_back_pending.ts";
import { loseVersion, lostVersion, unlessSiblingLost, versionDir } from "./lost_version.ts";
import { unlessSiblingWaits, versionWaits } from "./waiting_version.ts";
import {
  CONTENT_HASH_METADATA,
  CREATE_ONLY_WRITER,
  meetObject,
  WRITE_ID_METADATA,
} from "./create_only_met.ts";

export { CONTENT_HASH_METADATA, CREATE_ONLY_WRITER, WRITE_ID_METADATA };

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
    const pending = await pendingPutBack(ctx);
    if (pending) {
      // The copy names the entry's version as the one it lost to: its
      // set-aside speaks for no later upload of the path (see `setAsideAsLost`).
      return await loseVersion(
        ctx,
        CREATE_ONLY_WRITER,
        dir,
        writer,
        false,
        false,
        `${ctx.key}: the datastore's index names other bytes at this version, whose object is gone for now (its writer's put-back may be on its way); nothing was written and ${dir} was set aside`,
        pending.v,
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
    if (!exists) {
      const created = ctx.outcome === "written" ? ctx.result?.version : undefined;
      if (await unlessSiblingWaits(ctx, dir, created)) return;
      return await unlessLost(created);
    }
    return await meetObject(ctx, { exists, dir, writer, writeId, hash, unlessLost });
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
