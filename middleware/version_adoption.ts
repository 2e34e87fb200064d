/**
 * What the create-only-writer does when told to adopt (`push
 * --adopt-uncommitted`) a data version file another writer uploaded and no
 * index names: that writer is gone for good, so its upload is replaced by
 * this cache's copy, only over the very object met. Never published as that
 * writer's: a data version is never published from a run that did not finish
 * publishing it. Not while any upload of the version by that writer is
 * recent ({@link ADOPT_VERSION_AFTER_MS}): its commit may still be on its
 * way, and replacing the upload then would lose that writer's published
 * version (`adopt_too_soon`, the copy left waiting).
 *
 * @module
 */
import { type PushContext, PushVar, type WriteContext } from "../sync/context.ts";
import type { ObjectInfo } from "../sync/ports.ts";
import { withRetry } from "../sync/retry.ts";
import { ADOPTED_UNCOMMITTED } from "../sync/service/conflicts.ts";
import { replaceOwn, WRITER_METADATA } from "./own_writes.ts";

/**
 * How old another writer's uncommitted upload of a data version file must be
 * (by its last-modified time, against this push's clock) before `push
 * --adopt-uncommitted` replaces it: a writer's commit comes seconds after its
 * uploads, so one still missing after this long is taken as never coming.
 */
export const ADOPT_VERSION_AFTER_MS = 15 * 60_000;

/** Warning: an adoption of a data version file refused, the upload in the way too recent. */
export const ADOPT_TOO_SOON = "adopt_too_soon";

/**
 * The `adopted_uncommitted` warning's message for a data version file: the
 * upload of a writer gone for good, which no index names, replaced by this
 * cache's (a data version is never published from a run that lost its lock).
 */
export function replacedUploadMessage(key: string, version: string, writer: string): string {
  return `${key}: removed another writer's upload of this data version (version ${version}, writer ${writer}), which no index names, as asked (--adopt-uncommitted: its writer is gone for good), and wrote this cache's copy in its place, published with this push's commit. A data version another writer uploaded and never committed is never published as its own: its run never finished publishing it.`;
}

function adoptTooSoonMessage(key: string, version: string, writer: string, ageMs: number): string {
  const minutes = Math.max(0, Math.floor(ageMs / 60_000));
  return `${key}: not adopted: another writer's upload of this data version (version ${version}, writer ${writer}) is only ${minutes} minute(s) old, and its commit may still be on its way (replacing it then would lose that writer's published version). Nothing was changed; this cache's copy stays dirty, waiting. Run the same push again once that upload is ${
    ADOPT_VERSION_AFTER_MS / 60_000
  } minutes old, if its writer is still gone.`;
}

/** Per push: version directory → the age of the youngest object of it another writer uploaded. */
const YOUNGEST = new PushVar(
  "create-only-writer/youngest-other",
  () => new Map<string, Promise<number>>(),
);

/**
 * The age (by this push's clock) of the youngest object at the version
 * directory's files that another writer uploaded (`Infinity` when none),
 * read once per directory per push.
 */
function youngestOther(push: PushContext, dir: string, writer: string): Promise<number> {
  const byDir = push.vars.get(YOUNGEST);
  const earlier = byDir.get(dir);
  if (earlier) return earlier;
  const found = (async () => {
    let youngest = Infinity;
    for (const f of await push.cache.listFiles(dir)) {
      const head = await withRetry(
        () => push.store.head(f, { signal: push.signal }),
        push.config.retry,
        push.signal,
      );
      if (!head || head.metadata?.[WRITER_METADATA] === writer) continue;
      youngest = Math.min(youngest, push.clock.now() - head.lastModified);
    }
    return youngest;
  })();
  byDir.set(dir, found);
  return found;
}

/**
 * Replaces `met` (another writer's upload of the write's key, which no index
 * names; `by` its writer) with this cache's copy, only over that very
 * version, when every upload of the version directory `dir` by another
 * writer is old enough; else says why not (`adopt_too_soon`). The written
 * object, or null when nothing was written (too soon, or the object changed
 * meanwhile: the caller waits as usual).
 */
export async function adoptVersionFile(
  ctx: WriteContext,
  met: ObjectInfo,
  by: string,
  dir: string,
  writer: string,
): Promise<ObjectInfo | null> {
  const push = ctx.push;
  // Judged for the whole version: a file of it that writer uploaded
  // recently says it may still be at work on the rest.
  const age = Math.min(push.clock.now() - met.lastModified, await youngestOther(push, dir, writer));
  if (age >= ADOPT_VERSION_AFTER_MS) return await replaceOwn(ctx, met.version);
  push.events.emit("warning", {
    code: ADOPT_TOO_SOON,
    message: adoptTooSoonMessage(ctx.key, met.version, by, age),
    path: ctx.key,
  });
  return null;
}

/** Says that `met` was replaced by this cache's copy, as asked (once the replacement stands). */
export function sayAdopted(ctx: WriteContext, gate: string, met: ObjectInfo, by: string): void {
  ctx.push.note(
    gate,
    `${ctx.key}: replaced another writer's uncommitted upload (version ${met.version}), as asked`,
    ctx.entry,
  );
  ctx.push.events.emit("warning", {
    code: ADOPTED_UNCOMMITTED,
    message: replacedUploadMessage(ctx.key, met.version, by),
    path: ctx.key,
  });
}
