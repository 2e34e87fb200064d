/**
 * The lock conformance suite against MinIO: the engine lock
 * (`storeLockBackend`) over an `S3Store` on real time, its client talking to
 * MinIO through a loopback fault proxy, so that a failed read is a real
 * outage (`breakReads` cuts the proxy, `healReads` heals it).
 *
 * Timings: S3's `Last-Modified` has a resolution of one second, so the stale
 * check may see a live lock up to a second older than it is. The TTL must
 * exceed the heartbeat interval plus that second with room to spare: 2 000 ms
 * with a heartbeat every 250 ms.
 */
import { S3Store } from "../packages/s3/store.ts";
import { lockConformance } from "../packages/testing/lock_conformance.ts";
import { systemClock } from "../sync/clock.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { startFaultProxy } from "./proxy.ts";
import { ignoreMinio, type MinioServer, startMinio } from "./servers/minio.ts";

let minio: Promise<MinioServer> | undefined;
const sharedMinio = () => (minio ??= startMinio());

const NAME = "engine lock on MinIO (through the fault proxy)";

lockConformance(NAME, async () => {
  const server = await sharedMinio();
  const bucket = await server.createBucket();
  const target = new URL(server.endpoint);
  const proxy = await startFaultProxy(target.hostname, Number(target.port));
  const store = new S3Store({
    bucket,
    prefix: "locks",
    ...server.clientOptions,
    endpoint: proxy.url,
    requestTimeoutMs: 2_000,
    retries: 1,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 50,
  });
  return {
    backend: storeLockBackend(store, { clock: systemClock, defaults: { heartbeatMs: 250 } }),
    clock: systemClock,
    fake: false,
    store,
    breakReads: () => proxy.cut(),
    healReads: () => proxy.heal(),
    cleanup: async () => {
      store.close();
      await proxy.close();
    },
  };
}, { sanitize: false, ttlMs: 2_000, ignore: ignoreMinio });

Deno.test({
  name: "stop the shared MinIO server (lock conformance)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (minio) await (await minio).stop();
  },
});
