/**
 * This checkout's pending (unpublished) changes of the managed lockfile,
 * kept in a state file of the cache until a transaction publishes them
 * (`lockfile_txn.ts`), and the queue that keeps one service's lockfile work
 * one at a time (that file is read-modify-write).
 *
 * @module
 */
import type { CacheAccess } from "../context.ts";
import {
  type LockfileChange,
  type LockfileEntries,
  managedLockfilePath,
} from "./lockfile_change.ts";

/** Name of the state file (in the cache's `.sluice/`) holding pending deltas. */
export const PENDING_LOCKFILE_STATE = "lockfile-pending.json";

interface PendingFile {
  format: 1;
  deltas: Record<string, { set: LockfileEntries; remove: string[]; base?: LockfileEntries }>;
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
  service: { readonly cache: Pick<CacheAccess, "readState"> },
  options: { readonly namespace?: string } = {},
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
