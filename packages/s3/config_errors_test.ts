/**
 * Configuration problems of an S3 store are reported as such: missing
 * credentials, a refused object name, and a prefix with `.`/`..` segments
 * (checked before any request).
 */
import assert from "node:assert/strict";
import { S3Client } from "@aws-sdk/client-s3";
import { ConfigError, SluiceError } from "../../sync/errors.ts";
import { classifyS3Error, type S3RequestContext, toSluiceError } from "./errors.ts";
import { S3Store } from "./store.ts";

const GET: S3RequestContext = { op: "get", key: "_index/_meta.json", bucket: "bkt" };

/** The error the SDK's default credential chain throws when it finds nothing. */
function noCredentials(): Error {
  const e = new Error("Could not load credentials from any providers");
  e.name = "CredentialsProviderError";
  return Object.assign(e, { tryNextLink: false });
}

Deno.test("S3: no credentials found is a credentials error naming the AWS variables, not internal", () => {
  const f = classifyS3Error(noCredentials(), GET);
  assert.equal(f.kind, "credentials_missing");
  const e = toSluiceError(f, GET, noCredentials(), 1, { endpoint: "s3://bkt/p" });
  assert.ok(e instanceof ConfigError);
  assert.equal(e.field, "credentials");
  assert.equal(e.exitCode, 78);
  assert.match(e.message, /no credentials were found/);
  assert.match(e.message, /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
});

Deno.test("S3Store: a client without credentials fails with the credentials error, never retried", async () => {
  let asked = 0;
  const client = new S3Client({
    region: "us-east-1",
    endpoint: "http://127.0.0.1:9",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: () => {
      asked++;
      return Promise.reject(noCredentials());
    },
  });
  const store = new S3Store({ bucket: "bkt", prefix: "p", client, retryBaseDelayMs: 1 });
  try {
    const err = await store.get("_index/_meta.json").then(() => null, (e) => e);
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.field, "credentials");
    assert.equal(asked, 1);
  } finally {
    client.destroy();
  }
});

Deno.test("S3: MinIO's invalid-name answer is invalid_object_name (65) naming the key and prefix", () => {
  const e = Object.assign(new Error('Resource name contains bad components such as ".." or ".".'), {
    name: "XMinioInvalidResourceName",
    Code: "XMinioInvalidResourceName",
    $metadata: { httpStatusCode: 400, requestId: "R1" },
  });
  const ctx: S3RequestContext = { op: "put", key: "a/../b", bucket: "bkt" };
  const f = classifyS3Error(e, ctx);
  assert.equal(f.kind, "invalid_name");
  const err = toSluiceError(f, ctx, e, 1, { endpoint: "s3://bkt/p", prefix: "p/" });
  assert.ok(err instanceof SluiceError);
  assert.equal(err.code, "invalid_object_name");
  assert.equal(err.exitCode, 65);
  assert.match(err.message, /refused the object name of the put of a\/\.\.\/b/);
  assert.match(err.message, /prefix "p\/"/);
});

Deno.test("S3Store: a prefix with '.', '..' or empty segments is refused before any request", () => {
  for (const prefix of ["safe/../escape", "..", "./a", "a/./b", "a//b", "a\\b"]) {
    assert.throws(
      () => new S3Store({ bucket: "bkt", prefix, endpoint: "http://127.0.0.1:9" }),
      (e: unknown) => e instanceof ConfigError && e.field === "prefix",
      prefix,
    );
  }
  const ok = new S3Store({ bucket: "bkt", prefix: "/team/ds/", endpoint: "http://127.0.0.1:9" });
  assert.equal(ok.prefix, "team/ds/");
  ok.close();
});
