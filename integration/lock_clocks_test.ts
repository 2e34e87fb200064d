/**
 * The lock engine's stale check on real servers, with the waiter's clock far
 * from the server's (an injected clock on real time, 60 s off): a clock
 * ahead breaks no live lock, a clock behind still takes over an abandoned
 * one once its TTL has passed by the server's clock, and the clock probe
 * leaves no object but its own. MinIO stamps to the second, fake-gcs-server to
 * the millisecond.
 */
import assert from "node:assert/strict";
import { S3Store } from "../packages/s3/store.ts";
import { systemClock } from "../sync/clock.ts";
import { LockTimeoutError } from "../sync/lock_errors.ts";
import { CLOCK_PROBE_KEY, storeLockBackend } from "../sync/locks/lock_engine.ts";
import type { Identity, ObjectStore } from "../sync/ports.ts";
import { shiftedClock } from "../packages/testing/mod.ts";
import { ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";
import { ignoreMinio, startMinio } from "./servers/minio.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";

const KEY = ".datastore.lock";
const HOLDER: Identity = { holder: "holder@h1", hostname: "h1", pid: 1 };
const WAITER: Identity = { holder: "waiter@h2", hostname: "h2", pid: 2 };
const TIMINGS = { ttlMs: 2_000, heartbeatMs: 250, retryDelayMs: 100 };

async function keys(store: ObjectStore): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.list("")) out.push(...page.map((o) => o.key));
  return out.sort();
}

/** A holder on the system clock and a waiter `waiterAheadMs` off it, over one store. */
function pair(store: ObjectStore, waiterAheadMs: number, maxWaitMs: number) {
  return {
    holder: storeLockBackend(store, { clock: systemClock }).createLock(KEY, HOLDER, TIMINGS),
    waiter: storeLockBackend(store, { clock: shiftedClock(systemClock, waiterAheadMs) })
      .createLock(KEY, WAITER, { ...TIMINGS, maxWaitMs }),
  };
}

function clockCases(name: string, open: () => Promise<ObjectStore>, ignore: boolean): void {
  Deno.test({
    name: `${name}: a waiter whose clock runs 60 s ahead of the server's breaks no live lock`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const store = await open();
      const { holder, waiter } = pair(store, 60_000, 3_000);
      await holder.acquire();
      try {
        await assert.rejects(waiter.acquire(), LockTimeoutError);
        assert.ok(holder.held && !holder.lost, "the holder keeps its lock");
        assert.equal((await holder.inspect())?.nonce, holder.nonce);
        assert.deepEqual(await keys(store), [KEY, CLOCK_PROBE_KEY].sort());
      } finally {
        await holder.release();
      }
    },
  });

  Deno.test({
    name:
      `${name}: a waiter whose clock runs 60 s behind the server's takes over an abandoned lock`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const store = await open();
      const { holder, waiter } = pair(store, -60_000, 10_000);
      await holder.acquire();
      holder.abandon();
      await waiter.acquire();
      try {
        assert.equal((await waiter.inspect())?.nonce, waiter.nonce);
        assert.deepEqual(await keys(store), [KEY, CLOCK_PROBE_KEY].sort());
      } finally {
        await waiter.release();
      }
    },
  });
}

const minio = sharedServer(() => startMinio());
const fakeGcs = sharedServer(() => startFakeGcs());

clockCases("engine lock on MinIO", async () => {
  const server = await minio.get();
  return new S3Store({ bucket: await server.createBucket(), ...server.clientOptions });
}, ignoreMinio);

clockCases("engine lock on fake-gcs-server", async () => {
  const server = await fakeGcs.get();
  return await server.createStore({});
}, ignoreFakeGcs);

stopSharedServers("stop the shared servers (lock clocks)", minio, fakeGcs);
