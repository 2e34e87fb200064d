/**
 * Retries live in one layer: a push to an endpoint that accepts requests and
 * never answers them makes exactly `retries + 1` attempts per operation (its
 * time to fail is then `(retries + 1) × requestTimeoutMs` plus the backoffs,
 * as the README states; no test here asserts a time). The
 * endpoint is a small HTTP server on loopback that answers reads with 404
 * (an empty datastore) and holds every write open, counting each attempt.
 */
import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { createS3Provider } from "../packages/s3/provider.ts";
import { createGcsProvider } from "../packages/gcs/provider.ts";
import { SluiceError } from "../sync/errors.ts";
import type { StoreProvider } from "../packages/provider/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { HeldRequests } from "./held_requests.ts";

/** A loopback endpoint whose writes hang; counts write attempts by method. */
function hangingEndpoint(kind: "s3" | "gcs") {
  const writes: string[] = [];
  const held = new HeldRequests();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    const isWrite = req.method === "PUT" || req.method === "POST";
    if (!isWrite) {
      // Every read finds nothing: the datastore is empty. The connection is
      // closed after a read, so that each write starts on a fresh one: on a
      // reused keep-alive connection the HTTP stack itself may resend an
      // idempotent request once when the attempt is aborted, which is not a
      // retry of ours and would blur the count.
      return kind === "s3"
        ? new Response(
          req.method === "HEAD"
            ? null
            : `<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`,
          { status: 404, headers: { "content-type": "application/xml", connection: "close" } },
        )
        : Response.json({ error: { code: 404, message: "No such object" } }, {
          status: 404,
          headers: { connection: "close" },
        });
    }
    writes.push(`${req.method} ${url.pathname}`);
    return held.hold(req);
  });
  const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return {
    url,
    writes,
    async close() {
      held.releaseAll();
      await server.shutdown();
    },
  };
}

const RETRIES = 2;
const TIMEOUT_MS = 400;
const BACKOFF = { minTimeoutMs: 20, maxTimeoutMs: 40 };

async function pushOneFileThrough(provider: StoreProvider): Promise<unknown> {
  const cache = await Deno.makeTempDir({ prefix: "sluice-retry-" });
  try {
    const svc = await provider.createSyncService("/repo", cache);
    await Deno.mkdir(`${cache}/notes`, { recursive: true });
    await Deno.writeTextFile(`${cache}/notes/a.txt`, "hello");
    await svc.markDirty({ relPath: "notes/a.txt" });
    try {
      await svc.pushChanged();
      return undefined;
    } catch (error) {
      return error;
    }
  } finally {
    provider.close();
    await Deno.remove(cache, { recursive: true });
  }
}

const config = (endpointKey: "endpoint" | "apiEndpoint", url: string) => ({
  bucket: "retry-bucket",
  [endpointKey]: url,
  requestTimeoutMs: TIMEOUT_MS,
  conditionalWrites: "off",
  retry: { retries: RETRIES, ...BACKOFF },
});

for (const kind of ["s3", "gcs"] as const) {
  Deno.test({
    name: `${kind}: a put to an endpoint that never answers makes exactly retries + 1 attempts`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const endpoint = hangingEndpoint(kind);
      try {
        const deps = { conditional: new ConditionalWrites(), createService: createSluice };
        const provider = kind === "s3"
          ? createS3Provider(config("endpoint", endpoint.url), {
            ...deps,
            credentials: { accessKeyId: "test", secretAccessKey: "test-secret" },
          })
          : createGcsProvider(config("apiEndpoint", endpoint.url), deps);
        const error = await pushOneFileThrough(provider);
        assert.ok(error instanceof SluiceError, `the push failed: ${error}`);
        assert.equal(error.code, "unreachable", error.message);
        // One layer: the store's own retries, and none stacked on top.
        assert.equal(
          endpoint.writes.length,
          RETRIES + 1,
          `write attempts: ${endpoint.writes.join(", ")}`,
        );
      } finally {
        await endpoint.close();
      }
    },
  });
}
