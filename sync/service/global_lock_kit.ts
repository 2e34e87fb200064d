/**
 * What the tests of a push under the global lock beside an old client
 * share: a Sluice cache over an in-memory store on a fake clock, its global
 * lock, the old client's lock on the same key, and whether a waiter met the
 * holder's lock.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import type { DistributedLock } from "../ports.ts";
import type { SyncService } from "./service.ts";

/** The old clients' global lock key. */
export const GLOBAL = ".datastore.lock";
/** A file of this cache's, and one of the old client's. */
export const MINE = "config/mine.yaml";
export const THEIRS = "config/theirs.yaml";
/** Retries of a global lock wait: every 50 ms, for up to 10 s of the fake clock. */
export const lockOptions = { retryDelayMs: 50, maxWaitMs: 10_000 };

/** A cache, its store and clock, a new global lock of its, and the old client's. */
export interface GlobalLockSetup {
  store: InMemoryStore;
  clock: FakeClock;
  svc: SyncService;
  lock: () => DistributedLock;
  oldClientLock: DistributedLock;
}

/** A fresh cache (its directory named with `prefix`) with no retries, over a fresh store. */
export async function globalLockSetup(prefix: string): Promise<GlobalLockSetup> {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const identity = { holder: "sluice@host", hostname: "host", pid: 1 };
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix }),
    store,
    identity,
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
  const backend = svc.lockBackend!;
  return {
    store,
    clock,
    svc,
    lock: () => backend.createLock(GLOBAL, identity, lockOptions),
    oldClientLock: backend.createLock(
      GLOBAL,
      { holder: "old-client@other", hostname: "other", pid: 2 },
      lockOptions,
    ),
  };
}

/** True once a write of the global lock was refused (a waiter met the holder's lock). */
export function lockRefused(store: InMemoryStore): boolean {
  return store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error");
}
