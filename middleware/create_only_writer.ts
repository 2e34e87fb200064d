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
 *   object of this cache's beside it would be named by no commit.
 *
 * @module
 */
import {
  type PushContext,
  PushVar,
  type WriteContext,
  type WriteGateEntry,
} from "../sync/context.ts";
import {
  AlreadyExistsError,
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
  VersionConflictError,
} from "../sync/errors.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { ensureWriterId } from "../sync/transfer/writer_id.ts";
import { createHash } from "node:crypto";
import { openObject } from "../sync/transfer/body.ts";
import { randomId } from "../sync/hash.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { type ObjectInfo, PutModes } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";
import { WRITER_METADATA, writerId } from "./own_writes.ts";

/** The gate's registered name. */
export const CREATE_ONLY_WRITER = "create-only-writer";

/** Metadata key: a random id per write, the same across retries of that write. */
export const WRITE_ID_METADATA = "sluice-push-id";

/** Metadata key: hex SHA-256 of the object's bytes. */
export const CONTENT_HASH_METADATA = "sluice-sha256";

/** Per push: version directory → where its files were set aside (one set-aside per directory). */
const SET_ASIDES = new PushVar(
  "create-only-writer/set-asides",
  () => new Map<string, { readonly done: Promise<string[]>; readonly own: boolean }>(),
);

/** The version directory (`data/…/<N>`) of a version file key. */
function versionDir(key: string): string {
  return key.slice(0, key.lastIndexOf("/"));
}

/**
 * Moves every file of the version directory aside and out of the dirty set,
 * once per directory per push. Only the first caller gets the targets (the
 * push aggregates conflicts, so siblings report none to avoid duplicates).
 */
async function setAsideVersion(
  push: PushContext,
  dir: string,
  key: string,
  ownEarlier: boolean,
): Promise<string[]> {
  const byDir = push.vars.get(SET_ASIDES);
  const earlier = byDir.get(dir);
  if (earlier) return await earlier.done.then(() => []);
  const done = (async () => {
    const files = await push.cache.listFiles(dir);
    await dropOwnSiblings(push, files.filter((f) => f !== key));
    const reason = ownEarlier
      ? `${key} was uploaded from this cache before and changed here since; a data version on the datastore is never rewritten, so this local copy of ${dir} was not pushed.`
      : `Another writer published ${key} first with different bytes; this local copy of ${dir} was not pushed.`;
    const targets: string[] = [];
    for (const f of files) targets.push(await push.cache.setAside(f, reason, "version_exists"));
    await push.state.clean([...files, `${dir}/`]);
    // The local copies are gone: no manifest entry may claim them synced (a
    // resolution rebases one on theirs), or the next pull would skip theirs.
    await push.state.forget(files);
    return targets;
  })();
  byDir.set(dir, { done, own: ownEarlier });
  return await done;
}

/**
 * The files of a version this cache lost that it had created itself and
 * that no index names (uploaded by this push, or by an earlier one whose
 * commit never came): deleted, each only over the version found, so that
 * the version another writer published is not left with an object of this
 * cache's beside it that no reader sees and no commit will ever name.
 */
async function dropOwnSiblings(push: PushContext, paths: readonly string[]): Promise<void> {
  const writer = await ensureWriterId(push.cache, push.dryRun);
  let named: Record<string, { v: string }> | undefined;
  for (const path of paths) {
    const head = await withRetry(
      () => push.store.head(path, { signal: push.signal }),
      push.config.retry,
      push.signal,
    );
    if (!head || head.metadata?.[WRITER_METADATA] !== writer) continue;
    named ??= (await readIndex(push.store, push.config.retry, push.signal, push.config.concurrency))
      ?.entries ?? {};
    if (named[path]?.v === head.version) continue;
    await dropOwn(push, path, head.version);
  }
}

/** Deletes `version` of `path`; nothing when the store holds another one by then. */
async function dropOwn(push: PushContext, path: string, version: string): Promise<void> {
  try {
    await withRetry(
      () => push.store.delete(path, { signal: push.signal, ifVersion: version }),
      push.config.retry,
      push.signal,
    );
  } catch (e) {
    if (!(e instanceof PreconditionFailedError || e instanceof NotFoundError)) throw e;
  }
}

/** The remote's content hash: from our metadata tag when present, else by reading the object. */
async function remoteHash(
  ctx: WriteContext,
  head: ObjectInfo,
): Promise<{ hash: string; info: ObjectInfo }> {
  const tagged = head.metadata?.[CONTENT_HASH_METADATA];
  if (tagged) return { hash: tagged, info: head };
  const push = ctx.push;
  // Streamed and hashed in chunks: the remote may be a large file.
  return await withRetry(
    async () => {
      const { body, ...info } = await openObject(push.store, ctx.key, { signal: push.signal });
      const h = createHash("sha256");
      for await (const chunk of body) h.update(chunk);
      return { hash: h.digest("hex"), info };
    },
    push.config.retry,
    push.signal,
  );
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
    const earlier = push.vars.get(SET_ASIDES).get(dir);
    if (earlier) {
      // A sibling file of this version already lost the race: write nothing more of it.
      await earlier.done;
      throw new VersionConflictError([ctx.key], [], earlier.own);
    }
    const hash = ctx.hash;
    const writeId = randomId();
    ctx.mode = PutModes.create;
    ctx.metadata[WRITE_ID_METADATA] = writeId;
    ctx.metadata[CONTENT_HASH_METADATA] = hash;
    const writer = await writerId(ctx);
    ctx.metadata[WRITER_METADATA] = writer;
    let exists: AlreadyExistsError | undefined;
    try {
      await next();
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
      exists = e;
    }
    if (!exists) {
      // A sibling lost the version while this create was in flight: what it
      // created goes too, and it reports the same conflict.
      const lost = push.vars.get(SET_ASIDES).get(dir);
      if (!lost) return;
      await lost.done;
      if (ctx.outcome === "written" && ctx.result) {
        await dropOwn(push, ctx.key, ctx.result.version);
      }
      throw new VersionConflictError([ctx.key], [], lost.own);
    }
    const head = await withRetry(
      () => push.store.head(ctx.key, { signal: push.signal }),
      push.config.retry,
      push.signal,
    );
    if (!head) {
      // It vanished between the refused create and this read (a refused run's
      // upload being erased, say): nothing to compare with; try again later.
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
    // The remote copy carries this cache's writer id: the version was
    // published from here, and the local file changed since.
    const ownEarlier = head.metadata?.[WRITER_METADATA] === writer;
    const aside = await setAsideVersion(push, dir, ctx.key, ownEarlier);
    push.note(
      CREATE_ONLY_WRITER,
      ownEarlier
        ? `${ctx.key}: this version was uploaded from this cache before and changed here since; the datastore's copy was kept and ${dir} was set aside`
        : `${ctx.key}: another writer published this version first; the remote copy was kept and ${dir} was set aside`,
      ctx.entry,
    );
    throw new VersionConflictError([ctx.key], aside, ownEarlier);
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
