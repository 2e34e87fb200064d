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
import { droppedEntriesWarning, LOCKFILE_TXN_METADATA } from "../service/pull_lockfile.ts";
import { shellWord } from "../shell_word.ts";
import {
  AlreadyExistsError,
  ConditionalWritesUnsupportedError,
  ConfigError,
  isRetryable,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../errors.ts";
import { LockfileRemoteMalformedError } from "../lock_errors.ts";
import { sha256Hex } from "../hash.ts";
import { assertSafeRelPath } from "../paths.ts";
import { type LockOptions, type ObjectInfo, type PutMode, PutModes } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { updateIndex } from "../transfer/remote_index.ts";
import { statePath } from "../transfer/cache_paths.ts";
import type { CacheAccess } from "../context.ts";
import type { SyncService } from "../service/service.ts";
import { indexDiscovery } from "../service/index_discovered.ts";
import { sayGlobalLockWait } from "./global_lock_wait.ts";
import { globalLockKey } from "./model_locks.ts";
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
import { isManagedLockfilePath, MANAGED_LOCKFILE_PATH } from "./lockfile_change.ts";

export { isManagedLockfilePath, MANAGED_LOCKFILE_PATH };

/** Name of the state file (in the cache's `.sluice/`) holding pending deltas. */
export const PENDING_LOCKFILE_STATE = "lockfile-pending.json";

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

interface PendingFile {
  format: 1;
  deltas: Record<string, { set: LockfileEntries; remove: string[]; base?: LockfileEntries }>;
}

/**
 * The lockfile path for a namespace.
 *
 * @example
 * ```ts
 * import { managedLockfilePath } from "./lockfile_txn.ts";
 * managedLockfilePath("prod"); // "prod/config/upstream_extensions.json"
 * ```
 */
export function managedLockfilePath(namespace?: string): string {
  if (namespace === undefined || namespace === "") return MANAGED_LOCKFILE_PATH;
  assertSafeRelPath(namespace);
  if (namespace.includes("/")) throw new ConfigError("namespace", "a single path segment");
  return `${namespace}/${MANAGED_LOCKFILE_PATH}`;
}

/** Every pending delta recorded in a cache, by lockfile path. */
export async function readPendingLockfileDeltas(
  cache: Pick<CacheAccess, "readState">,
): Promise<Record<string, LockfileChange>> {
  const file = await cache.readState<PendingFile>(PENDING_LOCKFILE_STATE);
  return file?.format === 1 && typeof file.deltas === "object" && file.deltas ? file.deltas : {};
}

/** This checkout's pending (unpublished) change of the lockfile, or null (for `status`). */
export async function pendingLockfileDelta(
  service: Pick<LockfileService, "cache">,
  options: Pick<LockfileTxnOptions, "namespace"> = {},
): Promise<LockfileChange | null> {
  const deltas = await readPendingLockfileDeltas(service.cache);
  return deltas[managedLockfilePath(options.namespace)] ?? null;
}

/** Records (or, with null, clears) the pending delta of one lockfile path. */
export async function writePendingLockfileDelta(
  cache: CacheAccess,
  path: string,
  delta: LockfileChange | null,
) {
  const deltas = { ...(await readPendingLockfileDeltas(cache)) };
  if (delta) {
    deltas[path] = {
      set: { ...(delta.set ?? {}) },
      remove: [...(delta.remove ?? [])],
      ...(delta.base ? { base: { ...delta.base } } : {}),
    };
  } else delete deltas[path];
  await cache.writeState(PENDING_LOCKFILE_STATE, { format: 1, deltas });
}

const inFlight = new WeakMap<object, Promise<unknown>>();

/** Runs lockfile work of one service one at a time (the pending file is read-modify-write). */
export function serialiseLockfileWork<T>(service: object, fn: () => Promise<T>): Promise<T> {
  const run = (inFlight.get(service) ?? Promise.resolve()).then(fn, fn);
  inFlight.set(service, run.catch(() => {}));
  return run;
}

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
        }) is kept as a pending delta in the cache; no local copy of the lockfile was uploaded. Run \`sluice lockfile retry\` once the datastore is reachable (the next lockfile change also replays it); if the datastore's copy itself is damaged, \`sluice lockfile repair\` republishes it.`,
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
  await sayGlobalLockWait(
    lock,
    service.events,
    "the lockfile change waits for it, and is published once it is free",
    signal,
    service.identity,
  );
  await lock.acquire({ signal });
  try {
    const max = Math.max(1, options.maxAttempts ?? DEFAULT_LOCKFILE_ATTEMPTS);
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
      if (attempt === 1 && current) await warnDroppedOutside(service, path, current, remote, delta);
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
    await lock.release();
  }
}

/**
 * After a publish (or a remote copy found to hold the result already): the
 * remote index names it, the cache copy and the synced manifest match it,
 * and the pending delta of `path` is cleared. `base`: the version the
 * publish was conditional on (null: created), or the version found to hold
 * the result; when a peer's later publish has replaced it by the time the
 * index is updated (this writer lost the global lock meanwhile), the index
 * keeps the peer's entry.
 */
export async function recordPublishedLockfile(
  service: LockfileService,
  path: string,
  body: Uint8Array,
  version: string,
  signal: AbortSignal | undefined,
  base: string | null,
): Promise<void> {
  const { store, config } = service;
  const hash = await sha256Hex(body);
  await updateIndex(
    store,
    {
      set: { [path]: { v: version, h: hash, s: body.length } },
      remove: [],
      base: { [path]: base },
    },
    config.retry,
    signal,
    undefined,
    config.concurrency,
    () => service.clock.now(),
    undefined,
    // The bucket's first commit may be this one: it names what is there.
    indexDiscovery(store, config.retry, service.events, signal, config.concurrency),
  );
  await service.cache.write(path, body);
  const st = await service.cache.stat(path);
  const entry = { hash, version, size: body.length, mtimeMs: st?.mtimeMs, ctimeMs: st?.ctimeMs };
  await service.state.recordSynced(path, entry);
  await service.state.clean([path]);
  await writePendingLockfileDelta(service.cache, path, null);
}

/** A conditional put of the lockfile; null when the remote changed since it was fetched. */
export async function putLockfileConditional(
  service: LockfileService,
  path: string,
  body: Uint8Array,
  mode: PutMode,
  signal: AbortSignal | undefined,
): Promise<ObjectInfo | null> {
  const { store, config, events } = service;
  // Marked as the transaction's copy: a pull tells a plain write by another client from it.
  const o = { signal, metadata: { [LOCKFILE_TXN_METADATA]: "txn" } };
  try {
    return await withRetry(() => store.put(path, body, mode, o), config.retry, signal);
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    if (!(e instanceof NotImplementedError)) throw e;
    if (config.conditionalWrites === "required") {
      throw new ConditionalWritesUnsupportedError(store.endpoint, "refused");
    }
  }
  // The endpoint refuses conditional writes: compare, then write, under the global lock.
  const head = await withRetry(() => store.head(path, { signal }), config.retry, signal);
  const expected = mode.kind === "update" ? mode.version : undefined;
  if ((head?.version ?? undefined) !== expected) return null;
  events.emit("warning", {
    code: "conditional_writes_fallback",
    message:
      `${store.endpoint} refuses conditional writes; the managed lockfile ${path} was published with a check-then-write under the datastore's global lock.`,
    path,
  });
  return await withRetry(
    () => store.put(path, body, PutModes.overwrite, o),
    config.retry,
    signal,
  );
}

/**
 * A datastore copy of the lockfile written outside the transaction (no
 * {@link LOCKFILE_TXN_METADATA}: an existing client's write of its own
 * copy), other than the copy this cache last synced, which this cache's
 * copy still is: the entries it drops or sets back against that copy (but
 * those this change sets or removes) are told of (`lockfile_entries_dropped`),
 * as a pull that takes such a copy tells of them; the transaction then
 * applies this change to the datastore's copy, as always.
 */
async function warnDroppedOutside(
  service: LockfileService,
  path: string,
  current: { body: Uint8Array; version: string; metadata?: Readonly<Record<string, string>> },
  remote: LockfileEntries,
  delta: LockfileChange,
): Promise<void> {
  if (current.metadata?.[LOCKFILE_TXN_METADATA] !== undefined) return;
  const synced = service.state.synced(path);
  if (!synced || synced.version === current.version) return;
  const body = await service.cache.read(path).catch(() => null);
  if (!body || (await sha256Hex(body)) !== synced.hash) return;
  let was: LockfileEntries;
  try {
    was = parseLockfile(body);
  } catch {
    return;
  }
  const keep = new Set([...Object.keys(delta.set ?? {}), ...(delta.remove ?? [])]);
  const warning = droppedEntriesWarning(path, was, remote, keep);
  if (warning) service.events.emit("warning", warning);
}

/** The warning code of an entry change left out because another checkout changed that entry meanwhile. */
export const LOCKFILE_ENTRY_CONFLICT = "lockfile_entry_conflict";

/** Says what became of an entry change left out for another checkout's (see `LockfileChange.base`). */
function entryConflictWarning(
  path: string,
  c: { name: string; mine: unknown; base: unknown; theirs: unknown },
): { code: string; message: string; path: string } {
  const shown = (v: unknown) => v === null ? "no entry" : JSON.stringify(v);
  const again = c.mine === null
    ? `\`sluice lockfile remove ${shellWord(c.name)}\``
    : `\`sluice lockfile add ${shellWord(c.name)} ${shellWord(JSON.stringify(c.mine))}\``;
  return {
    code: LOCKFILE_ENTRY_CONFLICT,
    message: `The entry ${c.name} of ${path} was changed by another checkout meanwhile (from ${
      shown(c.base)
    } to ${shown(c.theirs)}), so this checkout's change of it (to ${
      shown(c.mine)
    }) was not applied over theirs; the datastore's copy keeps theirs, and the rest of the change was published. To make your change anyway, run ${again}.`,
    path,
  };
}
