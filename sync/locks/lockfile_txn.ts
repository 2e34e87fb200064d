/**
 * The managed lockfile transaction. `config/upstream_extensions.json` (or
 * `<ns>/config/upstream_extensions.json`) is a JSON object mapping extension
 * names to entries, shared by every checkout of a datastore. It is published
 * only here, never by a plain or walk push (the lockfile-guard gate leaves it
 * out), because a checkout's cache copy may be stale and uploading it would
 * erase the entries other checkouts added since.
 *
 * A transaction records this checkout's change as a durable pending delta in
 * the cache, takes the datastore's global lock, fetches the remote lockfile
 * with its version, applies the pending delta (which already holds this
 * change) to that fresh copy, and publishes it with a compare-and-swap on the
 * fetched version, fetching and re-applying after a conflict a bounded number
 * of times. On success it updates the remote index, the cache copy and the
 * synced manifest, clears the pending delta and releases the lock. On failure
 * the delta stays: {@link retryPendingLockfile}, or the next transaction,
 * replays only that delta on a fresh remote copy, never the whole local file.
 *
 * @module
 */
import {
  ConfigError,
  isRetryable,
  NotFoundError,
  SluiceError,
  UnreachableError,
} from "../errors.ts";
import { LockfileRemoteMalformedError } from "../lock_errors.ts";
import { type LockOptions, type ObjectInfo, PutModes } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { statePath } from "../transfer/cache_paths.ts";
import type { SyncService } from "../service/service.ts";
import { sayingGlobalLockWait } from "./global_lock_wait.ts";
import { globalLockKey } from "./model_locks.ts";
import { releaseOrWarn } from "./lock_release.ts";
import {
  applyLockfileChange,
  describeLockfileChange,
  isEmptyLockfileChange,
  type LockfileChange,
  type LockfileEntries,
  mergeLockfileChanges,
  parseLockfile,
  sameLockfileEntries,
  serializeLockfile,
  splitConflictingEntries,
  validateLockfileChange,
} from "./lockfile_change.ts";
import {
  isManagedLockfilePath,
  MANAGED_LOCKFILE_PATH,
  managedLockfilePath,
} from "./lockfile_change.ts";
import {
  pendingLockfileDelta,
  readPendingLockfileDeltas,
  serialiseLockfileWork,
  writePendingLockfileDelta,
} from "./lockfile_pending.ts";
import {
  entryConflictWarning,
  putLockfileConditional,
  recordPublishedLockfile,
  warnDroppedOutside,
} from "./lockfile_publish.ts";

export { isManagedLockfilePath, MANAGED_LOCKFILE_PATH, managedLockfilePath };
export {
  PENDING_LOCKFILE_STATE,
  pendingLockfileDelta,
  readPendingLockfileDeltas,
  serialiseLockfileWork,
  writePendingLockfileDelta,
} from "./lockfile_pending.ts";
export {
  LOCKFILE_ENTRY_CONFLICT,
  putLockfileConditional,
  recordPublishedLockfile,
} from "./lockfile_publish.ts";

/** Publish attempts before a transaction gives up with `lockfile_conflict`. */
export const DEFAULT_LOCKFILE_ATTEMPTS = 5;

/** Options of {@link updateManagedLockfile} and {@link retryPendingLockfile}. */
export interface LockfileTxnOptions {
  /** Datastore namespace (one path segment); default none. */
  readonly namespace?: string;
  /** Publish attempts before `lockfile_conflict`; default {@link DEFAULT_LOCKFILE_ATTEMPTS}. */
  readonly maxAttempts?: number;
  /** Cancels the transaction (the change stays pending). */
  readonly signal?: AbortSignal;
  /** Options of the global lock. */
  readonly lockOptions?: LockOptions;
}

/** What a transaction did. */
export interface LockfileTxnResult {
  /** Cache-relative path (and store key) of the lockfile. */
  readonly path: string;
  /** The lockfile's entries as published (or as found, when nothing changed). */
  readonly entries: LockfileEntries;
  /**
   * The remote object's version afterwards; null when the datastore has no
   * lockfile and the change only removed names (nothing to remove, so no
   * empty lockfile is created).
   */
  readonly version: string | null;
  /** False when the remote already held the result, so nothing was written. */
  readonly published: boolean;
  /** Fetch-apply-publish rounds used. */
  readonly attempts: number;
}

/** Warning code emitted when a malformed local copy of the lockfile is set aside. */
export const LOCKFILE_LOCAL_MALFORMED = "lockfile_local_malformed";

/** The parts of a {@link SyncService} the transaction uses. */
export type LockfileService = Pick<
  SyncService,
  "store" | "cache" | "state" | "lockBackend" | "identity" | "config" | "events" | "clock"
>;

/**
 * Changes named entries of the managed lockfile, safely against every other
 * checkout: see the module documentation for the protocol.
 *
 * Throws `lockfile_conflict` when the remote changed under every attempt,
 * `lockfile_remote_malformed` when the remote copy is not a JSON object (see
 * `repairManagedLockfile`), and `lockfile_publish_failed` for anything else
 * (unreachable store, lock timeout); the change is always kept as a pending
 * delta for {@link retryPendingLockfile} or the next transaction.
 *
 * @example
 * ```ts
 * import { updateManagedLockfile } from "./lockfile_txn.ts";
 * import type { SyncService } from "../service/service.ts";
 * async function addExtension(service: SyncService) {
 *   await updateManagedLockfile(service, { set: { "@acme/ssh": { version: "1.2.0" } } });
 * }
 * ```
 */
export async function updateManagedLockfile(
  service: LockfileService,
  change: LockfileChange,
  options: LockfileTxnOptions = {},
): Promise<LockfileTxnResult> {
  validateLockfileChange(change);
  const path = managedLockfilePath(options.namespace);
  if (!service.lockBackend) {
    throw new ConfigError(
      "lockBackend",
      "a lock backend: the managed lockfile transaction takes the datastore's global lock",
    );
  }
  return await serialiseLockfileWork(service, async () => {
    await setAsideMalformedLocal(service, path);
    const pending = (await readPendingLockfileDeltas(service.cache))[path] ?? {};
    const delta = mergeLockfileChanges(pending, change);
    await writePendingLockfileDelta(service.cache, path, delta);
    const seen: { remote?: LockfileEntries } = {};
    try {
      return await publish(service, path, delta, options, seen);
    } catch (e) {
      if (!isEmptyLockfileChange(delta)) {
        await writeLocalView(service, path, delta, seen.remote).catch(() => {});
      }
      if (e instanceof SluiceError && e.code === "lockfile_conflict") throw e;
      if (e instanceof LockfileRemoteMalformedError) throw e;
      throw new SluiceError(
        "lockfile_publish_failed",
        `Could not publish the managed lockfile ${path}: ${
          e instanceof UnreachableError
            ? `the datastore could not be reached: ${e.detail}.`
            : e instanceof Error
            ? e.message
            : String(e)
        } This checkout's change (${
          describeLockfileChange(delta)
        }) is kept as a pending delta in the cache; the cache's own copy of the lockfile was not uploaded over the datastore's (a merged copy the transaction wrote before the failure, if it landed, is named by no index until the retry names it). Run \`sluice lockfile retry\` once the datastore is reachable (the next lockfile change also replays it); if the datastore's copy itself is damaged, \`sluice lockfile repair\` republishes it.`,
        { cause: e, retryable: isRetryable(e) },
      );
    }
  });
}

/**
 * Replays this checkout's pending delta on a fresh remote copy; null when
 * nothing is pending.
 *
 * @example
 * ```ts
 * import { retryPendingLockfile } from "./lockfile_txn.ts";
 * import type { SyncService } from "../service/service.ts";
 * async function retry(service: SyncService) {
 *   const done = await retryPendingLockfile(service);
 *   return done?.entries;
 * }
 * ```
 */
export async function retryPendingLockfile(
  service: LockfileService,
  options: LockfileTxnOptions = {},
): Promise<LockfileTxnResult | null> {
  const pending = await pendingLockfileDelta(service, options);
  if (!pending || isEmptyLockfileChange(pending)) return null;
  return await updateManagedLockfile(service, {}, options);
}

/**
 * A local copy that is not a JSON object was never publishable (the
 * lockfile-guard gate leaves it out of pushes) and would be replaced by the
 * transaction: it is moved to the set-aside area first, with a warning
 * naming where, so that nothing in it is lost without a word.
 */
export async function setAsideMalformedLocal(service: LockfileService, path: string) {
  const local = await service.cache.read(path).catch(() => null);
  if (!local) return;
  let problem: string;
  try {
    parseLockfile(local);
    return;
  } catch (e) {
    problem = e instanceof Error ? e.message : String(e);
  }
  const reason = `the local copy of the managed lockfile was malformed (${problem})`;
  const where = await service.cache.setAside(path, reason);
  service.events.emit("warning", {
    code: LOCKFILE_LOCAL_MALFORMED,
    message:
      `The local copy of the managed lockfile ${path} is not a JSON object (${problem}), so it was never published. It was moved to ${
        statePath(service.cache.stateDir, where)
      }, and this transaction writes the datastore's copy with this change in its place. If the bad copy held entries you need, add each with \`sluice lockfile add <name> '{"version":"1.2.0"}'\`; then delete the moved copy.`,
    path,
  });
}

/** After a failure: the cache copy shows the pending change on the best known base (never synced). */
async function writeLocalView(
  service: LockfileService,
  path: string,
  delta: LockfileChange,
  remote: LockfileEntries | undefined,
): Promise<void> {
  let base = remote;
  if (!base) {
    const local = await service.cache.read(path);
    try {
      base = local ? parseLockfile(local) : {};
    } catch {
      base = {};
    }
  }
  await service.cache.write(path, serializeLockfile(applyLockfileChange(base, delta)));
}

async function publish(
  service: LockfileService,
  path: string,
  delta: LockfileChange,
  options: LockfileTxnOptions,
  seen: { remote?: LockfileEntries },
): Promise<LockfileTxnResult> {
  const { store, config } = service;
  const signal = options.signal;
  const lockKey = globalLockKey(options.namespace);
  const lock = service.lockBackend!.createLock(lockKey, service.identity, options.lockOptions);
  await lock.acquire(
    await sayingGlobalLockWait(
      lock,
      service.events,
      "the lockfile change waits for it, and is published once it is free",
      signal,
      service.identity,
    ),
  );
  try {
    const max = Math.max(1, options.maxAttempts ?? DEFAULT_LOCKFILE_ATTEMPTS);
    // Each datastore copy met is checked once (a retry may meet a plain copy written meanwhile).
    const met = new Set<string>();
    for (let attempt = 1; attempt <= max; attempt++) {
      if (lock.lost) throw new Error(`the global lock ${lockKey} was lost during the transaction.`);
      let current: { body: Uint8Array; version: string } | undefined;
      try {
        current = await withRetry(() => store.get(path, { signal }), config.retry, signal);
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
      }
      let remote: LockfileEntries = {};
      if (current) {
        try {
          remote = parseLockfile(current.body);
        } catch (e) {
          const why = (e as Error).message;
          const what = describeLockfileChange(delta);
          throw new LockfileRemoteMalformedError(path, current.version, why, current.body, what);
        }
      }
      seen.remote = remote;
      if (current && !met.has(current.version)) {
        met.add(current.version);
        await warnDroppedOutside(service, path, current, remote, delta);
      }
      // An entry another checkout changed since this change was made is left as theirs, and told of.
      const { change: applied, conflicts } = splitConflictingEntries(remote, delta);
      const entries = applyLockfileChange(remote, applied);
      if (!current && Object.keys(entries).length === 0) {
        // Removing from a lockfile that does not exist: there is nothing to
        // write, and an empty lockfile would be a change nobody asked for.
        await writePendingLockfileDelta(service.cache, path, null);
        for (const c of conflicts) service.events.emit("warning", entryConflictWarning(path, c));
        return { path, entries, version: null, published: false, attempts: attempt };
      }
      let body: Uint8Array;
      let info: Pick<ObjectInfo, "version">;
      let published = false;
      if (current && sameLockfileEntries(entries, remote)) {
        body = current.body;
        info = current;
      } else {
        body = serializeLockfile(entries);
        const mode = current ? PutModes.update(current.version) : PutModes.create;
        const put = await putLockfileConditional(service, path, body, mode, signal);
        if (!put) continue; // changed since fetched: fetch again and re-apply
        info = put;
        published = true;
      }
      await recordPublishedLockfile(
        service,
        path,
        body,
        info.version,
        signal,
        published ? current?.version ?? null : info.version,
      );
      for (const c of conflicts) service.events.emit("warning", entryConflictWarning(path, c));
      return { path, entries, version: info.version, published, attempts: attempt };
    }
    throw new SluiceError(
      "lockfile_conflict",
      `The managed lockfile ${path} changed between fetch and publish on each of ${max} attempts (another writer kept replacing it, or does not honour the global lock ${lockKey}). Nothing was published; this checkout's change (${
        describeLockfileChange(delta)
      }) is kept as a pending delta in the cache. Run \`sluice lockfile retry\` later.`,
      { retryable: true },
    );
  } finally {
    // A release that fails is a warning: what the transaction published stands.
    await releaseOrWarn(lock, service.events);
  }
}
