/**
 * The lock conformance suite against fake-gcs-server: the engine lock
 * (`storeLockBackend`) over a `GcsStore` on real time, its client talking to
 * the emulator through a loopback fault proxy, so that a failed read is a
 * real outage (`breakReads` cuts the proxy, `healReads` heals it).
 *
 * The emulator stamps objects with millisecond precision, so a TTL of
 * 1 000 ms (heartbeat every 333 ms) keeps the real-time cases short.
 */
import { lockConformance } from "../packages/testing/lock_conformance.ts";
import { systemClock } from "../sync/clock.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { startFaultProxy } from "./proxy.ts";
import { type FakeGcsServer, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";

let fakeGcs: Promise<FakeGcsServer> | undefined;
const sharedFakeGcs = () => (fakeGcs ??= startFakeGcs());

const NAME = "engine lock on fake-gcs-server (through the fault proxy)";

lockConformance(NAME, async () => {
  const server = await sharedFakeGcs();
  const target = new URL(server.apiEndpoint);
  const proxy = await startFaultProxy(target.hostname, Number(target.port));
  const store = await server.createStore({
    prefix: "locks",
    apiEndpoint: proxy.url,
    requestTimeoutMs: 2_000,
    retries: 1,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 50,
  });
  return {
    backend: storeLockBackend(store, { clock: systemClock }),
    clock: systemClock,
    fake: false,
    store,
    breakReads: () => proxy.cut(),
    healReads: () => proxy.heal(),
    cleanup: () => proxy.close(),
  };
}, { sanitize: false, ttlMs: 1_000, ignore: ignoreFakeGcs });

Deno.test({
  name: "stop the shared fake-gcs-server (lock conformance)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (fakeGcs) await (await fakeGcs).stop();
  },
});
