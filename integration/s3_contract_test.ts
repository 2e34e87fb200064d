/**
 * S3Store against real servers on loopback: the store contract on MinIO,
 * MinIO's own answers, outages made with the fault proxy, and s3rver's
 * silent ignore of conditional headers.
 */
import assert from "node:assert/strict";
import {
  AlreadyExistsError,
  ConfigError,
  PreconditionFailedError,
  UnreachableError,
} from "../sync/errors.ts";
import { PutModes } from "../sync/ports.ts";
import { storeContract } from "../packages/testing/store_contract.ts";
import { S3Store, type S3StoreOptions } from "../packages/s3/store.ts";
import { ignoreMinio, type MinioServer, startMinio } from "./servers/minio.ts";
import { ignoreS3rver, type S3rverServer, startS3rver } from "./servers/s3rver.ts";
import { startFaultProxy } from "./proxy.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

// One server per kind for this file, started on first use and stopped by the
// last test (and killed on unload if a filter skipped that test).
let minio: Promise<MinioServer> | undefined;
let s3rver: Promise<S3rverServer> | undefined;
const sharedMinio = () => (minio ??= startMinio());
const sharedS3rver = () => (s3rver ??= startS3rver());

/** A store on a fresh bucket of `server`, with overrides. */
async function storeOn(
  server: MinioServer | S3rverServer,
  overrides: Partial<S3StoreOptions> = {},
): Promise<S3Store> {
  const bucket = await server.createBucket();
  return new S3Store({
    bucket,
    prefix: "sluice-test",
    ...server.clientOptions,
    requestTimeoutMs: 10_000,
    retries: 2,
    retryBaseDelayMs: 50,
    ...overrides,
  });
}

const realClient = { sanitizeResources: false, sanitizeOps: false } as const;

storeContract(
  "S3Store on MinIO",
  async () => {
    const store = await storeOn(await sharedMinio());
    return { store, cleanup: () => Promise.resolve(store.close()) };
  },
  { ignore: ignoreMinio, ...realClient },
);

Deno.test({
  name: "MinIO: If-Match on a missing key is refused (404, mapped to PreconditionFailed)",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const store = await storeOn(await sharedMinio());
    try {
      const err = await store.put("never", enc("x"), PutModes.update("0".repeat(32))).catch((e) =>
        e
      );
      assert.ok(err instanceof PreconditionFailedError, String(err));
      assert.match(err.message, /does not exist/);
      assert.match(err.message, /HTTP 404 NoSuchKey/);
      assert.match(err.message, /request id [0-9A-F]+/);
      assert.equal(await store.head("never"), null, "the refused update created the object");
    } finally {
      store.close();
    }
  },
});

Deno.test({
  name: "MinIO: DeleteObject ignores If-Match, so the store checks the version first",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const native = await storeOn(server, { conditionalDelete: "native" });
    const verify = await storeOn(server);
    try {
      // What the endpoint does on its own: a delete with a wrong If-Match goes through.
      await native.put("k", enc("a"), PutModes.overwrite);
      await native.delete("k", { ifVersion: "0".repeat(32) });
      assert.equal(
        await native.head("k"),
        null,
        "this MinIO build now honours If-Match on DeleteObject: `native` may become the default",
      );
      // The default strategy refuses it.
      const v = await verify.put("k", enc("a"), PutModes.overwrite);
      await assert.rejects(
        verify.delete("k", { ifVersion: "0".repeat(32) }),
        PreconditionFailedError,
      );
      assert.equal((await verify.head("k"))?.version, v.version);
    } finally {
      native.close();
      verify.close();
    }
  },
});

Deno.test({
  name: "MinIO: a missing bucket is a configuration error naming it, with the request id",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const store = new S3Store({
      bucket: "no-such-bucket-here",
      ...server.clientOptions,
      retries: 0,
    });
    try {
      const err = await store.put("k", enc("x"), PutModes.create).catch((e) => e);
      assert.ok(err instanceof ConfigError, String(err));
      assert.equal(err.field, "bucket");
      assert.match(err.message, /no-such-bucket-here/);
      assert.match(err.message, /request id/);
      assert.ok(!err.message.includes(server.secretKey), "the secret key leaked");
    } finally {
      store.close();
    }
  },
});

Deno.test({
  name:
    "MinIO through the fault proxy: an outage is Unreachable within the timeout, and heal restores",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const target = new URL(server.endpoint);
    const proxy = await startFaultProxy(target.hostname, Number(target.port));
    const requestTimeoutMs = 800;
    const retries = 1;
    const bucket = await server.createBucket();
    const store = new S3Store({
      bucket,
      prefix: "outage",
      ...server.clientOptions,
      endpoint: proxy.url,
      requestTimeoutMs,
      retries,
      retryBaseDelayMs: 50,
      retryMaxDelayMs: 100,
    });
    // Longest a failing call may take: every attempt times out, plus backoff, plus slack.
    const budgetMs = (retries + 1) * requestTimeoutMs + 200 + 1_500;
    const timed = async (p: Promise<unknown>) => {
      const t0 = performance.now();
      const err = await p.then(() => null, (e) => e);
      return { err, ms: performance.now() - t0 };
    };
    try {
      const v1 = await store.put("lock", enc("one"), PutModes.create);

      // Connections closed.
      await proxy.cut();
      let r = await timed(store.put("lock", enc("two"), PutModes.update(v1.version)));
      assert.ok(r.err instanceof UnreachableError, String(r.err));
      assert.ok(r.ms < budgetMs, `took ${r.ms.toFixed(0)} ms`);
      assert.match(r.err.message, /after 2 attempts/);
      r = await timed(store.head("lock"));
      assert.ok(r.err instanceof UnreachableError, String(r.err));

      // Connections refused.
      await proxy.cut("refuse");
      r = await timed(store.get("lock"));
      assert.ok(r.err instanceof UnreachableError, String(r.err));
      assert.match(r.err.message, /ECONNREFUSED|refused/i);

      // A server that stops answering: the per-attempt timeout ends it.
      await proxy.heal();
      proxy.delay(5_000);
      r = await timed(store.head("lock"));
      assert.ok(r.err instanceof UnreachableError, String(r.err));
      assert.match(r.err.message, /timed out/);
      assert.ok(r.ms < budgetMs, `took ${r.ms.toFixed(0)} ms`);

      // Healed: service is back and nothing was changed by the failed calls.
      await proxy.heal();
      const got = await store.get("lock");
      assert.equal(dec(got.body), "one");
      const v2 = await store.put("lock", enc("two"), PutModes.update(v1.version));
      assert.notEqual(v2.version, v1.version);
    } finally {
      store.close();
      await proxy.close();
    }
  },
});

Deno.test({
  name:
    "MinIO through the fault proxy: a conditional write whose answer was lost is not reported as a conflict",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const target = new URL(server.endpoint);
    const proxy = await startFaultProxy(target.hostname, Number(target.port));
    const bucket = await server.createBucket();
    const store = new S3Store({
      bucket,
      ...server.clientOptions,
      endpoint: proxy.url,
      requestTimeoutMs: 5_000,
      retries: 2,
      retryBaseDelayMs: 20,
    });
    try {
      // The server applies the create, the client never hears; the retry meets 412.
      proxy.resetMidRequest({ times: 1 });
      const info = await store.put("v/1/raw", enc("mine"), PutModes.create);
      assert.equal(proxy.stats.resets, 1);
      assert.equal(dec((await store.get("v/1/raw")).body), "mine");
      assert.equal((await store.head("v/1/raw"))?.version, info.version);

      // Same for a compare-and-swap update (a lock heartbeat, say).
      proxy.resetMidRequest({ times: 1 });
      const next = await store.put("v/1/raw", enc("mine, again"), PutModes.update(info.version));
      assert.equal(proxy.stats.resets, 2);
      assert.equal((await store.head("v/1/raw"))?.version, next.version);

      // Another writer's bytes still fail the condition.
      proxy.resetMidRequest({ times: 1 });
      await assert.rejects(store.put("v/1/raw", enc("other"), PutModes.create), AlreadyExistsError);
    } finally {
      store.close();
      await proxy.close();
    }
  },
});

Deno.test({
  name: "s3rver: conditional headers are silently ignored (what the probe must detect)",
  ignore: ignoreS3rver,
  ...realClient,
  fn: async () => {
    const store = await storeOn(await sharedS3rver());
    try {
      const first = await store.put("v/1/raw", enc("first"), PutModes.create);
      // A second create "succeeds" and overwrites: the header was ignored.
      const second = await store.put("v/1/raw", enc("second"), PutModes.create);
      assert.notEqual(second.version, first.version);
      assert.equal(dec((await store.get("v/1/raw")).body), "second");
      // A stale If-Match "succeeds" too.
      const third = await store.put("v/1/raw", enc("third"), PutModes.update(first.version));
      assert.equal((await store.head("v/1/raw"))?.version, third.version);
      // And If-Match on a missing key creates it.
      await store.put("missing", enc("x"), PutModes.update("0".repeat(32)));
      assert.ok(await store.head("missing"));
      // The store's version check before a conditional delete still protects deletes.
      await assert.rejects(
        store.delete("v/1/raw", { ifVersion: first.version }),
        PreconditionFailedError,
      );
      assert.ok(await store.head("v/1/raw"));
    } finally {
      store.close();
    }
  },
});

Deno.test({
  name: "stop the shared test servers",
  ...realClient,
  fn: async () => {
    const running = await Promise.allSettled([minio, s3rver].filter((p) => p !== undefined));
    for (const r of running) if (r.status === "fulfilled") await r.value.stop();
  },
});
