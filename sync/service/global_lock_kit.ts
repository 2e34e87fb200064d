/**
 * What the tests of a push under the global lock beside an old client
 * share: a Sluice cache over an in-memory store on a fake clock, its global
 * lock, the old client's lock on the same key, and whether a waiter met the
 * holder's lock; and a push of the cache started inside an old client's
 * read-modify-write of the index.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { FakeClock, InMemoryStore, peerPush, waitFor } from "../../packages/testing/mod.ts";
import type { DistributedLock } from "../ports.ts";
import type { SyncService } from "./service.ts";
import type { PushOptions } from "./push_options.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";

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

/**
 * A push under the global lock with `options`, started inside an old
 * client's push (of `THEIRS`) made under that lock, between its read of the
 * index and its write of it; the old client writes once this push waits for
 * the lock (or ends; with `mustWait`, asserted to be waiting). Returns the
 * push's result.
 */
export async function pushInsideOldClientPush(
  s: Pick<GlobalLockSetup, "store" | "clock" | "svc" | "lock" | "oldClientLock">,
  options: PushOptions = {},
  how: { readonly mustWait?: boolean } = {},
): Promise<Awaited<ReturnType<typeof pushUnderGlobalLock>>> {
  let done = false;
  let run: Promise<Awaited<ReturnType<typeof pushUnderGlobalLock>>> | undefined;
  s.store.resetLog();
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        run = pushUnderGlobalLock(s.svc, s.lock(), options).finally(() => (done = true));
        await waitFor(() => lockRefused(s.store) || done, { clock: s.clock, stepMs: 50 });
        if (how.mustWait) {
          assert.equal(done, false, "the push waits while the old client holds the lock");
        }
      },
    })
  );
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  return await run!;
}
