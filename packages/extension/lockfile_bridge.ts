/**
 * The managed lockfile (`config/upstream_extensions.json`) when the tool
 * writes it into the cache and marks it dirty: the change is published
 * through Sluice's lockfile transaction, as a delta merged into the remote
 * copy, never by uploading the local file.
 *
 * The tool marks a path dirty before writing it, so `markDirty` keeps the
 * file's content at that moment (the base) in the service's state. At push
 * time the delta is the difference between that base and the file now:
 * entries added or changed are set, entries gone are removed. Entries peers
 * added meanwhile are untouched. With a base of "no file" (the file was
 * written before it was marked), a local copy that differs from the one last
 * synced is published as "set every entry it holds" (nothing removed).
 * Without any base (the tool marked the whole cache, not the file), the
 * change is the difference between the copy last synced and the local copy,
 * published only while the datastore still holds the copy last synced (see
 * `publishUnmarkedChange`); otherwise it is warned, not guessed. A change whose
 * publish fails stays as the transaction's pending delta and is replayed by
 * the next push.
 *
 * The transaction takes the datastore's global lock. When this process
 * holds it as the transaction takes it (the tool's commit step runs under
 * it), that hold is shared instead of waiting for ourselves, and its release
 * waits for the transaction's end (`shared_global.ts`).
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import { NotFoundError, SluiceError } from "../../sync/errors.ts";
import { withRetry } from "../../sync/retry.ts";
import {
  type LockfileService,
  type LockfileTxnResult,
  MANAGED_LOCKFILE_PATH,
  pendingLockfileDelta,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../../sync/locks/lockfile_txn.ts";
import {
  type LockfileChange,
  type LockfileEntries,
  parseLockfile,
  sameLockfileValue,
} from "../../sync/locks/lockfile_change.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import type { DistributedLock, Identity, LockBackend, LockOptions } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { HeldLocks } from "./held_locks.ts";
import { SharedGlobalLock } from "./shared_global.ts";

/** State file (in the service's `.sluice/`) holding the lockfile's base. */
export const LOCKFILE_BASE_STATE = "swamp-lockfile-base.json";

interface BaseFile {
  readonly format: 1;
  /** The entries when first marked; null when the file did not exist. */
  readonly entries: LockfileEntries | null;
}

/** True when `rel` (relative to the namespace root) is the managed lockfile. */
export function isLockfile(rel: string): boolean {
  return rel === MANAGED_LOCKFILE_PATH;
}

function readEntries(body: Uint8Array | null): LockfileEntries | null {
  if (!body) return null;
  return parseLockfile(body);
}

/**
 * Keeps the lockfile's current content as the base of this checkout's
 * change, unless a base is already kept. An unreadable local file is kept as
 * "no base".
 */
export async function rememberLockfileBase(svc: SyncService): Promise<void> {
  const kept = await svc.cache.readState<BaseFile>(LOCKFILE_BASE_STATE);
  if (kept?.format === 1) return;
  let entries: LockfileEntries | null = null;
  try {
    entries = readEntries(await svc.cache.read(MANAGED_LOCKFILE_PATH));
  } catch {
    entries = null;
  }
  await svc.cache.writeState(LOCKFILE_BASE_STATE, { format: 1, entries } satisfies BaseFile);
}

/**
 * The change from `base` to `now`: entries added or changed are set, entries
 * gone are removed.
 *
 * @example
 * ```ts
 * import { lockfileDelta } from "./lockfile_bridge.ts";
 * lockfileDelta({ a: 1, b: 2 }, { a: 1, c: 3 }); // { set: { c: 3 }, remove: ["b"] }
 * ```
 */
export function lockfileDelta(base: LockfileEntries, now: LockfileEntries): LockfileChange {
  const set: LockfileEntries = {};
  for (const [name, value] of Object.entries(now)) {
    if (!Object.hasOwn(base, name) || !sameLockfileValue(base[name], value)) {
      set[name] = value;
    }
  }
  const remove = Object.keys(base).filter((n) => !Object.hasOwn(now, n)).sort();
  return { set, remove };
}

/**
 * `change` with the value each of its entries had in `base` (null: none),
 * so that the transaction leaves an entry another checkout changed
 * meanwhile as theirs and says so, instead of writing this change over it
 * (see `LockfileChange.base`).
 */
function withBase(change: LockfileChange, base: LockfileEntries): LockfileChange {
  const values: Record<string, unknown> = {};
  for (const name of [...Object.keys(change.set ?? {}), ...(change.remove ?? [])]) {
    values[name] = Object.hasOwn(base, name) ? base[name] : null;
  }
  return { ...change, base: values };
}

const isEmpty = (c: LockfileChange) =>
  Object.keys(c.set ?? {}).length === 0 && (c.remove ?? []).length === 0;

/**
 * The lock backend the transaction of namespace `ns` uses: its global lock is
 * `globalLockKey(ns)` on the datastore's own store; a hold of it by this
 * process (`held`) when the transaction takes it is shared, that hold's
 * release waiting for the transaction's end (another step's commit may hold
 * it, and be released during the transaction: see `shared_global.ts`).
 */
export function transactionLocks(
  backend: LockBackend,
  namespace: string,
  held: HeldLocks,
): LockBackend {
  return {
    name: backend.name,
    createLock(key: string, identity: Identity, options?: LockOptions): DistributedLock {
      const full = key === globalLockKey() ? globalLockKey(namespace) : key;
      return new SharedGlobalLock(held, backend.createLock(full, identity, options));
    },
  };
}

/**
 * Publishes this checkout's lockfile change, if any, and replays a pending
 * one. Rejects with the transaction's error (`lockfile_publish_failed`,
 * `lockfile_conflict`); the change then stays pending.
 */
export async function publishLockfileChange(
  svc: SyncService,
  locks: LockBackend,
  signal?: AbortSignal,
): Promise<number> {
  const service = {
    store: svc.store,
    cache: svc.cache,
    state: svc.state,
    lockBackend: locks,
    identity: svc.identity,
    config: svc.config,
    events: svc.events,
    clock: svc.clock,
  };
  const base = await svc.cache.readState<BaseFile>(LOCKFILE_BASE_STATE);
  const count = (r: { published: boolean } | null | undefined) => r?.published ? 1 : 0;
  if (base?.format !== 1) {
    if (await pendingLockfileDelta(service)) {
      return count(await retryPendingLockfile(service, { signal }));
    }
    return count(await publishUnmarkedChange(svc, service, signal));
  }
  const body = await svc.cache.read(MANAGED_LOCKFILE_PATH);
  const now = localEntries(svc, body);
  if (!now) return 0;
  let delta = withBase(lockfileDelta(base.entries ?? {}, now), base.entries ?? {});
  if (isEmpty(delta) && body) {
    const synced = svc.state.synced(MANAGED_LOCKFILE_PATH)?.hash;
    if (synced !== undefined && synced !== await sha256Hex(body)) delta = { set: now };
  }
  try {
    if (!isEmpty(delta)) return count(await updateManagedLockfile(service, delta, { signal }));
    if (await pendingLockfileDelta(service)) {
      return count(await retryPendingLockfile(service, { signal }));
    }
    return 0;
  } finally {
    // The change is published, or kept by the transaction as its pending delta.
    await svc.cache.writeState(LOCKFILE_BASE_STATE, null);
  }
}

/** The local copy's entries (`{}` when absent); null, with a warning, when it is not a JSON object. */
function localEntries(svc: SyncService, body: Uint8Array | null): LockfileEntries | null {
  try {
    return readEntries(body) ?? {};
  } catch (e) {
    svc.events.emit("warning", {
      code: "lockfile_local_unreadable",
      message: `The local ${MANAGED_LOCKFILE_PATH} is not a JSON object (${
        e instanceof Error ? e.message : String(e)
      }); nothing of it was published. Fix or remove the file; its change is published by the next push.`,
      path: MANAGED_LOCKFILE_PATH,
    });
    return null;
  }
}

/**
 * A local copy changed without a mark on the file (the tool's bulk
 * `markDirty()`), so no base was kept: this checkout's change is the
 * difference between the copy this cache last synced and the local copy,
 * published through the transaction. The last-synced copy is known only
 * while the datastore still holds it (same hash), or when neither this cache
 * nor the datastore ever had a lockfile; otherwise the change cannot be told
 * apart from a stale copy and nothing is published (a warning says so). A
 * local deletion is never published (it would remove peers' entries).
 */
async function publishUnmarkedChange(
  svc: SyncService,
  service: LockfileService,
  signal?: AbortSignal,
): Promise<LockfileTxnResult | null> {
  const body = await svc.cache.read(MANAGED_LOCKFILE_PATH);
  if (!body) return null;
  const synced = svc.state.synced(MANAGED_LOCKFILE_PATH);
  const hash = await sha256Hex(body);
  if (synced?.hash === hash) return null;
  const now = localEntries(svc, body);
  if (!now) return null;
  let remote: Uint8Array | null;
  try {
    remote = (await withRetry(
      () => svc.store.get(MANAGED_LOCKFILE_PATH, { signal }),
      svc.config.retry,
      signal,
    )).body;
  } catch (e) {
    if (!(e instanceof NotFoundError)) {
      throw new SluiceError(
        "lockfile_publish_failed",
        `Could not read the datastore's ${MANAGED_LOCKFILE_PATH} to find this checkout's change to it (${
          e instanceof Error ? e.message : String(e)
        }). Nothing of the lockfile was published; the local copy was left as it is. Run the push again.`,
        { cause: e },
      );
    }
    remote = null;
  }
  let lastSynced: LockfileEntries | undefined;
  let why: string;
  if (synced === undefined) {
    if (remote === null) lastSynced = {};
    why = "this cache never synced one and the datastore holds one";
  } else if (remote === null) {
    why = "the datastore's copy is gone since this cache last synced it";
  } else if (await sha256Hex(remote) !== synced.hash) {
    why = "the datastore's copy changed since this cache last synced it";
  } else {
    try {
      lastSynced = readEntries(remote) ?? {};
    } catch {
      lastSynced = undefined;
    }
    why = "the copy this cache last synced is not a JSON object";
  }
  if (lastSynced === undefined) {
    svc.events.emit("warning", {
      code: "lockfile_change_unpublished",
      message:
        `The local ${MANAGED_LOCKFILE_PATH} differs from the copy this cache last synced, but it was written under a mark of the whole cache (no base of it was kept) and ${why}, so this checkout's change cannot be told apart from a stale copy: nothing of it was published and the datastore's copy was kept. The local copy was left as it is; ${
          synced === undefined
            ? "the next pull sets it aside and takes the datastore's copy"
            : `the next pull holds it as a conflict: take the datastore's copy (\`sluice resolve ${MANAGED_LOCKFILE_PATH} --theirs\` sets yours aside)`
        }. Then apply this checkout's extension changes again (pull the extension again, or \`sluice lockfile add <name> '<entry JSON>'\`).`,
      path: MANAGED_LOCKFILE_PATH,
    });
    return null;
  }
  const delta = withBase(lockfileDelta(lastSynced, now), lastSynced);
  return isEmpty(delta) ? null : await updateManagedLockfile(service, delta, { signal });
}
