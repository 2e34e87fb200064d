/**
 * GcsStore against fake-gcs-server on loopback: the store contract, the
 * emulator's answers to generation preconditions, outages made with the
 * fault proxy, and conditional writes whose answer was lost.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  AbortedError,
  AlreadyExistsError,
  hasCode,
  PreconditionFailedError,
} from "../sync/errors.ts";
import { PutModes } from "../sync/ports.ts";
import { storeContract } from "../packages/testing/store_contract.ts";
import { GcsStore } from "../packages/gcs/store.ts";
import { createGcsStorage, GCS_WRITE_ID_KEY } from "../packages/gcs/client.ts";
import { type FakeGcsServer, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";
import {
  dec,
  enc,
  faultProxyTests,
  proxyTo,
  realClient,
  type StoreThrough,
} from "./contract_helpers.ts";

// One server for this file, started on first use and stopped by the last test
// (and killed on unload if a filter skipped that test).
const fakeGcs = sharedServer(startFakeGcs);

/** Stores on fresh buckets of `server` whose client talks to another endpoint (the fault proxy). */
function storesThrough(server: FakeGcsServer): StoreThrough {
  return async (apiEndpoint, timing) => ({
    store: new GcsStore({
      bucket: await server.createBucket(),
      prefix: "outage",
      apiEndpoint,
      projectId: server.projectId,
      ...timing,
    }),
  });
}

storeContract(
  "GcsStore on fake-gcs-server",
  async () => {
    const server = await fakeGcs.get();
    return { store: await server.createStore({ prefix: "sluice-test" }) };
  },
  { ignore: ignoreFakeGcs, ...realClient },
);

Deno.test({
  name: "fake-gcs-server: ifGenerationMatch is honoured on multipart uploads (raw SDK)",
  ignore: ignoreFakeGcs,
  ...realClient,
  fn: async () => {
    const server = await fakeGcs.get();
    const bucketName = await server.createBucket();
    const storage = createGcsStorage({
      apiEndpoint: server.apiEndpoint,
      projectId: server.projectId,
    });
    const file = () => storage.bucket(bucketName).file("raw/key");
    const save = async (body: string, ifGenerationMatch: number | string) => {
      const f = file();
      await f.save(Buffer.from(body), {
        resumable: false,
        validation: false,
        preconditionOpts: { ifGenerationMatch },
      });
      return String(f.metadata.generation);
    };
    const status = (e: unknown) => (e as { code?: unknown }).code;

    const g1 = await save("first", 0);
    // A second create must fail with 412.
    const second = await save("second", 0).then(() => null, (e) => e);
    assert.equal(status(second), 412, `second create was not refused: ${String(second)}`);
    // An update naming a wrong generation must fail with 412.
    const wrong = String(BigInt(g1) + 12345n);
    const stale = await save("stale", wrong).then(() => null, (e) => e);
    assert.equal(status(stale), 412, `wrong-generation update was not refused: ${String(stale)}`);
    // The right generation goes through, and the bytes are the latest.
    const g2 = await save("third", g1);
    assert.notEqual(g2, g1);
    const store = await server.createStore({ bucket: bucketName });
    assert.equal(dec((await store.get("raw/key")).body), "third");
    assert.equal((await store.head("raw/key"))?.version, g2);
  },
});

Deno.test({
  name: "fake-gcs-server: refused preconditions map to typed errors with the status and reason",
  ignore: ignoreFakeGcs,
  ...realClient,
  fn: async () => {
    const store = await (await fakeGcs.get()).createStore();
    const v1 = await store.put("v/1/raw", enc("one"), PutModes.create);
    const created = await store.put("v/1/raw", enc("two"), PutModes.create).catch((e) => e);
    assert.ok(created instanceof AlreadyExistsError, String(created));
    assert.match(String(created.cause), /Precondition failed/);
    const v2 = await store.put("v/1/raw", enc("two"), PutModes.update(v1.version));
    const updated = await store.put("v/1/raw", enc("three"), PutModes.update(v1.version))
      .catch((e) => e);
    assert.ok(updated instanceof PreconditionFailedError, String(updated));
    assert.match(updated.message, /HTTP 412, conditionNotMet/);
    // The write id used for lost-answer recovery never shows in metadata.
    const got = await store.get("v/1/raw", {});
    assert.equal(got.version, v2.version);
    assert.equal(got.metadata?.[GCS_WRITE_ID_KEY], undefined);
  },
});

Deno.test({
  name:
    "fake-gcs-server: a delete ignores ifGenerationMatch alone, the pinned generation protects it",
  ignore: ignoreFakeGcs,
  ...realClient,
  fn: async () => {
    const server = await fakeGcs.get();
    // The emulator's own behaviour: without the pinned generation a stale
    // conditional delete goes through. If an upgrade fixes this, this
    // assertion fails and pinDeleteGeneration may be reconsidered.
    const unpinned = await server.createStore({ pinDeleteGeneration: false });
    const a1 = await unpinned.put("k", enc("one"), PutModes.create);
    await unpinned.put("k", enc("two"), PutModes.update(a1.version));
    await unpinned.delete("k", { ifVersion: a1.version });
    assert.equal(
      await unpinned.head("k"),
      null,
      "fake-gcs-server now honours ifGenerationMatch on deletes",
    );

    // The store's default pins the generation: a stale delete is refused.
    const pinned = await server.createStore();
    const b1 = await pinned.put("k", enc("one"), PutModes.create);
    const b2 = await pinned.put("k", enc("two"), PutModes.update(b1.version));
    await assert.rejects(pinned.delete("k", { ifVersion: b1.version }), PreconditionFailedError);
    assert.equal((await pinned.head("k"))?.version, b2.version);
    await pinned.delete("k", { ifVersion: b2.version });
    assert.equal(await pinned.head("k"), null);
  },
});

Deno.test({
  name: "fake-gcs-server: a missing bucket is a clear error, not an absent object on writes",
  ignore: ignoreFakeGcs,
  ...realClient,
  fn: async () => {
    const server = await fakeGcs.get();
    const store = await server.createStore({ bucket: "no-such-bucket-sluice" });
    const err = await store.put("k", enc("x"), PutModes.create).catch((e) => e);
    // A configuration error naming the bucket, never taken for an absent object.
    assert.ok(hasCode(err, "invalid_config"), String(err));
    assert.match(err.message, /the bucket no-such-bucket-sluice does not exist/);
    assert.match(err.message, /sluice bucket create/);
  },
});

Deno.test({
  name:
    "fake-gcs-server through the fault proxy: a reset on a reused keep-alive connection fails the attempt at once",
  ignore: ignoreFakeGcs,
  ...realClient,
  fn: async () => {
    const server = await fakeGcs.get();
    const proxy = await proxyTo(server.apiEndpoint);
    const retried: { attempt: number; detail: string }[] = [];
    try {
      // The per-attempt deadline is far beyond the test's own: only a reset
      // that fails the attempt at once lets the retry finish the put in time.
      const store = await server.createStore({
        apiEndpoint: proxy.url,
        requestTimeoutMs: 60_000,
        retries: 2,
        retryBaseDelayMs: 20,
        onRetry: (e) => retried.push({ attempt: e.attempt, detail: e.detail }),
      });
      // Warm the pool: the next upload goes out on a kept-alive connection.
      const warm = await store.put("warm", enc("w"), PutModes.create);
      await store.put("warm", enc("w2"), PutModes.update(warm.version));
      const deadline = () => ({ signal: AbortSignal.timeout(15_000) });
      const run = <T>(p: Promise<T>): Promise<T> =>
        p.catch((e) => {
          if (e instanceof AbortedError) {
            assert.fail(
              `the attempt stalled after the reset (resets ${proxy.stats.resets}, retries ${retried.length}): ${e}`,
            );
          }
          throw e;
        });

      // At most one retry, never for the deadline: the reset failed the
      // attempt at once (or the HTTP stack resent it on a fresh connection
      // by itself, and the write id showed the 412 to be our own write).
      const noStall = (accepted: number) => {
        assert.ok(retried.length <= 1, JSON.stringify(retried));
        for (const r of retried) {
          assert.doesNotMatch(r.detail, /SLUICE_REQUEST_TIMEOUT|no answer within/);
        }
        assert.ok(proxy.stats.accepted > accepted, "nothing was sent again after the reset");
        retried.length = 0;
      };

      // The server applies the create; its answer is lost to a reset.
      let accepted = proxy.stats.accepted;
      proxy.resetMidRequest({ times: 1 });
      const info = await run(store.put("v/1/raw", enc("mine"), PutModes.create, deadline()));
      assert.equal(proxy.stats.resets, 1);
      noStall(accepted);
      assert.equal(dec((await store.get("v/1/raw")).body), "mine");

      // The same for a compare-and-swap update (a lock heartbeat, a lockfile commit).
      assert.equal((await store.head("v/1/raw"))?.version, info.version);
      accepted = proxy.stats.accepted;
      proxy.resetMidRequest({ times: 1 });
      await run(store.put("v/1/raw", enc("again"), PutModes.update(info.version), deadline()));
      assert.equal(proxy.stats.resets, 2);
      noStall(accepted);
      assert.equal(dec((await store.get("v/1/raw")).body), "again");
    } finally {
      await proxy.close();
    }
  },
});

faultProxyTests("fake-gcs-server", {
  ignore: ignoreFakeGcs,
  server: async () => {
    const server = await fakeGcs.get();
    return { endpoint: server.apiEndpoint, storeThrough: storesThrough(server) };
  },
  messages: { refused: /ECONNREFUSED/, timedOut: /no answer within 800 ms/ },
  lostAnswerTiming: {
    // An upload whose pooled connection is closed under it is only ended by this deadline.
    requestTimeoutMs: 1_500,
    retries: 2,
    retryBaseDelayMs: 20,
  },
});

stopSharedServers("stop the shared fake-gcs-server", fakeGcs);
