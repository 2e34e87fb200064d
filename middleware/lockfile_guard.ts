/**
 * lockfile-guard: no push ever rolls back the managed lockfile or a config
 * file a peer changed.
 *
 * - The managed lockfile (`config/upstream_extensions.json`, also under a
 *   namespace) is left out of every push, walk or not: it is published only
 *   by the lockfile transaction (`updateManagedLockfile` in
 *   `sync/locks/lockfile_txn.ts`), which applies this checkout's own change to a
 *   fresh remote copy under the global lock. A local copy that differs from
 *   the synced one may be stale: uploading it would erase the entries other
 *   checkouts added, and turning it into a delta would re-add entries peers
 *   removed, so the guard does neither. Its dirty mark is cleared (a kept
 *   mark would only stop the next pull from refreshing the copy) and a
 *   `lockfile_guarded` warning points to the transaction; a change whose
 *   publish failed is already kept as a pending delta by the transaction.
 *   A copy this cache never synced (its sync state lost, a copy of a cache)
 *   that holds the datastore's very bytes is nothing stale: it is recorded
 *   as synced at the version the datastore's index names, with no warning
 *   (one index read); an object no index names is not the datastore's.
 * - A config file (class `config`) is uploaded only with a compare-and-swap
 *   on the version this cache last synced (create-only when it never synced
 *   one). The config-cas-writer write gate turns a failed swap into a skip
 *   that stays dirty, with a `config_changed_remotely` warning.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import { sha256Hex } from "../sync/hash.ts";
import { isManagedLockfilePath, readPendingLockfileDeltas } from "../sync/locks/lockfile_txn.ts";
import { describeLockfileChange, type LockfileChange } from "../sync/locks/lockfile_change.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { readIndexAround } from "../sync/transfer/remote_index.ts";

/** The gate's registered name. */
export const LOCKFILE_GUARD = "lockfile-guard";

/** Warning code emitted when a changed local lockfile was left out of a push. */
export const LOCKFILE_GUARDED = "lockfile_guarded";

/** True when the entry is the managed lockfile (by class, or by path when unclassified). */
function isLockfile(entry: PlanEntry): boolean {
  return entry.class === "managed-lockfile" ||
    (entry.class === undefined && isManagedLockfilePath(entry.path));
}

/** Whether the local copy differs from the one this cache last synced. */
async function changedLocally(ctx: PushContext, entry: PlanEntry): Promise<boolean> {
  if (entry.action === "delete") return true;
  if (entry.action !== "put") return false;
  let hash = entry.hash;
  if (hash === undefined) {
    const body = await ctx.cache.read(entry.path).catch(() => null);
    if (!body) return false;
    hash = await sha256Hex(body);
  }
  return hash !== entry.syncedHash;
}

/**
 * True for the managed lockfile's entry another client dropped from the
 * index (a pull marked it to be published again: see `dropped_entries.ts`)
 * while the copy here is the one synced and the store still holds that very
 * version: the push then names it again, uploading nothing (see `runPush`),
 * as for any dropped entry. Anything else stays the transaction's.
 */
async function namedAgain(ctx: PushContext, entry: PlanEntry): Promise<boolean> {
  if (entry.action !== "put" || entry.syncedVersion === undefined) return false;
  if (!ctx.state.synced(entry.path)?.republish) return false;
  if (await changedLocally(ctx, entry)) return false;
  const now = await ctx.store.head(entry.path, { signal: ctx.signal }).catch(() => null);
  return now?.version === entry.syncedVersion;
}

/**
 * The datastore's lockfile as its index names it, when a copy this cache
 * never synced holds its very bytes (one index read, as a pull that finds
 * the same bytes here records them as synced); null otherwise, and when the
 * index cannot be read (the copy is then guarded as any other). An object
 * no index names (a transaction's copy whose index update failed, its
 * change still pending here) is not the datastore's lockfile: the copy is
 * guarded, and its pending change told.
 */
async function sameOnDatastore(
  ctx: PushContext,
  entry: PlanEntry,
): Promise<{ hash: string; version: string; size: number } | null> {
  if (entry.action !== "put" || entry.syncedHash !== undefined) return null;
  const local = entry.hash ?? await ctx.cache.read(entry.path).then(
    (b) => b ? sha256Hex(b) : undefined,
    () => undefined,
  );
  if (local === undefined) return null;
  const dir = entry.path.includes("/") ? entry.path.slice(0, entry.path.lastIndexOf("/")) : "";
  const named = await readIndexAround(
    ctx.store,
    dir,
    ctx.config.retry,
    ctx.signal,
    ctx.config.concurrency,
  ).then(
    (entries) => Object.hasOwn(entries, entry.path) ? entries[entry.path] : undefined,
    () => undefined,
  );
  if (!named || named.h !== local) return null;
  return { hash: local, version: named.v, size: named.s };
}

async function pendingDeltas(ctx: PushContext): Promise<Record<string, LockfileChange>> {
  try {
    return await readPendingLockfileDeltas(ctx.cache);
  } catch {
    return {}; // an unreadable pending file must not fail the push; the transaction reports it
  }
}

function guardedMessage(
  entry: PlanEntry,
  deleted: boolean,
  pending: LockfileChange | undefined,
): string {
  const what = deleted ? "The local deletion of" : "The local copy of";
  const next = pending
    ? ` This checkout has a pending lockfile change (${
      describeLockfileChange(pending)
    }) that was not published yet: run \`sluice lockfile retry\` to replay it on the current remote copy.`
    : " To add or remove extensions, use the lockfile transaction, which applies only the named entries to the current remote copy: on the command line \`sluice lockfile add <name> '<entry JSON>'\` or \`sluice lockfile remove <name>\`; from code updateManagedLockfile.";
  return `${what} ${entry.path} was not pushed: the managed lockfile is published only by its transaction, because this copy may be stale and uploading it would erase entries other checkouts added. Nothing was uploaded; the local file was left as is and its dirty mark cleared, and a push or status lists it as left out (exit 2) while it differs from the datastore's.${next} To take the datastore's copy back instead, delete it here and run \`sluice pull --restore-deleted\`.`;
}

/**
 * The gate. Leaves the managed lockfile out of the push (never uploaded,
 * dirty mark cleared, a warning when the local copy changed) and gives config
 * files a compare-and-swap write mode.
 *
 * @example
 * ```ts
 * import { lockfileGuard } from "./lockfile_guard.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * const push = new Pipeline<PushContext>(PUSH_PHASES);
 * push.add({ name: "lockfile-guard", phase: "guard", middleware: lockfileGuard() });
 * ```
 */
export function lockfileGuard(): Middleware<PushContext> {
  return async function lockfileGuardGate(ctx, next) {
    let pending: Record<string, LockfileChange> | undefined;
    let guarded = 0;
    let swapped = 0;
    for (const entry of ctx.plan) {
      if (isLockfile(entry) && await namedAgain(ctx, entry)) {
        // Never written, should a transaction land before the push names it.
        entry.nameOnly = true;
        ctx.note(LOCKFILE_GUARD, `${entry.path}: named again as synced, nothing uploaded`, entry);
      } else if (isLockfile(entry)) {
        const there = await sameOnDatastore(ctx, entry);
        const changed = there ? false : await changedLocally(ctx, entry);
        if (there && !ctx.dryRun) ctx.state.setSynced(entry.path, there);
        const deleted = entry.action === "delete";
        entry.action = "skip";
        entry.keepDirty = false;
        entry.mode = undefined;
        entry.commit = undefined;
        entry.reason = "managed lockfile: published only by the lockfile transaction";
        guarded++;
        ctx.note(LOCKFILE_GUARD, `left ${entry.path} out of the push`, entry);
        // A copy here that differs from the datastore's stays unpublished:
        // left out, as a push or `status` says (exit 2), not pushed.
        if (changed) entry.unpublished = true;
        if (changed && !ctx.dryRun) {
          pending ??= await pendingDeltas(ctx);
          ctx.events.emit("warning", {
            code: LOCKFILE_GUARDED,
            message: guardedMessage(entry, deleted, pending[entry.path]),
            path: entry.path,
          });
        }
      } else if (entry.class === "config" && entry.action === "put") {
        entry.mode = entry.syncedVersion !== undefined
          ? PutModes.update(entry.syncedVersion)
          : PutModes.create;
        swapped++;
        ctx.note(
          LOCKFILE_GUARD,
          entry.syncedVersion !== undefined
            ? `${entry.path}: upload only over remote version ${entry.syncedVersion}`
            : `${entry.path}: upload only if absent remotely`,
          entry,
        );
      }
    }
    if (guarded + swapped > 0) {
      ctx.note(
        LOCKFILE_GUARD,
        `${guarded} managed lockfile(s) left out, ${swapped} config file(s) compare-and-swap`,
      );
    }
    await next();
  };
}

/**
 * The gate's default registration: push phase `guard`.
 *
 * @example
 * ```ts
 * import { lockfileGuardEntry } from "./lockfile_guard.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(lockfileGuardEntry());
 * ```
 */
export function lockfileGuardEntry(): MiddlewareEntry<PushContext> {
  return {
    name: LOCKFILE_GUARD,
    phase: "guard",
    middleware: lockfileGuard(),
    description:
      "the managed lockfile is published only by its transaction; config files upload only over the version last synced",
  };
}
