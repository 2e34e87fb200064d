/**
 * S3Store against real servers on loopback: the store contract on MinIO,
 * MinIO's own answers, outages made with the fault proxy, and s3rver's
 * silent ignore of conditional headers.
 */
import assert from "node:assert/strict";
import { ConfigError, PreconditionFailedError } from "../sync/errors.ts";
import { PutModes } from "../sync/ports.ts";
import { storeContract } from "../packages/testing/store_contract.ts";
import { S3Store } from "../packages/s3/store.ts";
import type { S3StoreOptions } from "../packages/s3/client.ts";
import { ignoreMinio, startMinio } from "./servers/minio.ts";
import { ignoreS3rver, startS3rver } from "./servers/s3rver.ts";
import { type S3TestServer, sharedServer, stopSharedServers } from "./servers/common.ts";
import { dec, enc, faultProxyTests, realClient, type StoreThrough } from "./contract_helpers.ts";
import { seedPeerBucket } from "../packages/testing/mod.ts";
import { MONOLITH_KEY } from "../sync/transfer/bucket_layout.ts";
import { migrateToShards } from "../sync/transfer/migrate_index.ts";

// One server per kind for this file, started on first use and stopped by the
// last test (and killed on unload if a filter skipped that test).
const minio = sharedServer(startMinio);
const s3rver = sharedServer(startS3rver);

/** A store on a fresh bucket of `server`, with overrides. */
async function storeOn(
  server: S3TestServer,
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

/** Stores on fresh buckets of `server` whose client talks to another endpoint (the fault proxy). */
function storesThrough(server: S3TestServer): StoreThrough {
  return async (endpoint, timing) => {
    const store = await storeOn(server, { prefix: "outage", endpoint, ...timing });
    return { store, cleanup: () => Promise.resolve(store.close()) };
  };
}

storeContract(
  "S3Store on MinIO",
  async () => {
    const store = await storeOn(await minio.get());
    return { store, cleanup: () => Promise.resolve(store.close()) };
  },
  { ignore: ignoreMinio, ...realClient },
);

Deno.test({
  name: "MinIO: If-Match on a missing key is refused (404, mapped to PreconditionFailed)",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const store = await storeOn(await minio.get());
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
    const server = await minio.get();
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
    const server = await minio.get();
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

faultProxyTests("MinIO", {
  ignore: ignoreMinio,
  server: async () => {
    const server = await minio.get();
    return { endpoint: server.endpoint, storeThrough: storesThrough(server) };
  },
  messages: { refused: /ECONNREFUSED|refused/i, timedOut: /timed out/ },
  lostAnswerTiming: { requestTimeoutMs: 5_000, retries: 2, retryBaseDelayMs: 20 },
});

Deno.test({
  name: "s3rver: conditional headers are silently ignored (what the probe must detect)",
  ignore: ignoreS3rver,
  ...realClient,
  fn: async () => {
    const store = await storeOn(await s3rver.get());
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

stopSharedServers("stop the shared test servers", minio, s3rver);

Deno.test({
  name:
    "MinIO: the move to v2 changes the v1 index object's ETag, which an existing client's clone last synced on v1 compares",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const store = await storeOn(await minio.get());
    try {
      await seedPeerBucket(store, { "data/t/m/d/1/raw": "one", "notes/a.md": "a" }, { v2: false });
      const before = (await store.head(MONOLITH_KEY))!.version;
      await migrateToShards(store, { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
      const after = (await store.head(MONOLITH_KEY))!.version;
      assert.notEqual(after, before);
      assert.doesNotMatch(after, /-\d+$/, "a single-part ETag: the fast path compares it");
    } finally {
      store.close();
    }
  },
});
