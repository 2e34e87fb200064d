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

/** An error as the S3 SDK throws it for an answer of `status` with the error `code`. */
function s3Answer(status: number, code: string, message: string): Error {
  return Object.assign(new Error(message), {
    name: code,
    Code: code,
    $metadata: { httpStatusCode: status, requestId: "R1" },
  });
}

Deno.test("S3: MinIO's invalid-name answer is invalid_object_name (65) naming the key and prefix", () => {
  const e = s3Answer(
    400,
    "XMinioInvalidResourceName",
    'Resource name contains bad components such as ".." or ".".',
  );
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

Deno.test("S3: MinIO's console port (its 'API port' answer) is a wrong endpoint: invalid_config (78), not internal", () => {
  const e = s3Answer(400, "InvalidArgument", "S3 API Requests must be made to API port.");
  const ctx: S3RequestContext = { op: "get", key: "_index/_meta.json", bucket: "bkt" };
  const f = classifyS3Error(e, ctx);
  assert.equal(f.kind, "not_the_service");
  const err = toSluiceError(f, ctx, e, 1, { endpoint: "s3://bkt/p", prefix: "p/" });
  assert.equal(err.code, "invalid_config");
  assert.equal(err.exitCode, 78);
  assert.match(err.message, /must be made to API port/);
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

/** What the SDK throws for a refusal whose body is not S3's: a generic error with the raw response. */
function webPage(status: number, name = "Error"): Error {
  const e = new Error("UnknownError");
  e.name = name;
  return Object.assign(e, {
    $metadata: { httpStatusCode: status },
    $response: {
      statusCode: status,
      headers: { "content-type": "text/html;charset=utf-8", server: "SimpleHTTP/0.6" },
    },
  });
}

Deno.test("S3: a web page for a refusal is the wrong endpoint, never a missing object or bucket", () => {
  for (
    const [err, ctx] of [
      [webPage(404), GET],
      [webPage(404, "NotFound"), { ...GET, op: "head" }],
      [webPage(501), { op: "put", key: "k", bucket: "bkt", condition: "create" }],
    ] as const
  ) {
    const f = classifyS3Error(err, ctx as S3RequestContext);
    assert.equal(f.kind, "not_the_service", `${err.name} ${ctx.op}`);
    const e = toSluiceError(f, ctx as S3RequestContext, err, 1, {
      endpoint: "s3://bkt/p at http://127.0.0.1:9050",
    });
    assert.ok(e instanceof ConfigError);
    assert.equal(e.field, "endpoint");
    assert.match(
      e.message,
      /answered with HTTP \d{3}, a web page rather than an answer of the S3 endpoint/,
    );
    assert.match(e.message, /nothing was taken for an empty datastore/);
  }
  // Plain text, as a web server's bare "404 page not found" (another kind of
  // storage server on the port): not S3 either, but for a HEAD.
  const plain = (status: number) =>
    Object.assign(webPage(status), {
      $response: { statusCode: status, headers: { "content-type": "text/plain; charset=utf-8" } },
    });
  assert.equal(classifyS3Error(plain(404), GET).kind, "not_the_service");
  assert.equal(classifyS3Error(plain(404), { ...GET, op: "list" }).kind, "not_the_service");
  assert.equal(classifyS3Error(plain(404), { ...GET, op: "head" }).kind, "not_found");
  // S3's own answers keep their meaning: NoSuchKey, a body-less HEAD 404, a proxy's 502 page.
  const noSuchKey = Object.assign(new Error("The specified key does not exist."), {
    name: "NoSuchKey",
    $metadata: { httpStatusCode: 404 },
    $response: { statusCode: 404, headers: { "content-type": "application/xml" } },
  });
  assert.equal(classifyS3Error(noSuchKey, GET).kind, "not_found");
  const head404 = Object.assign(new Error("NotFound"), {
    name: "NotFound",
    $metadata: { httpStatusCode: 404 },
    $response: { statusCode: 404, headers: { "content-length": "0" } },
  });
  assert.equal(classifyS3Error(head404, { ...GET, op: "head" }).kind, "not_found");
  assert.equal(classifyS3Error(webPage(502), GET).kind, "transient");
  // A proxy's rate-limit or timeout page is retried as without one; its 403 page is a refusal.
  assert.equal(classifyS3Error(webPage(429), GET).kind, "transient");
  assert.equal(classifyS3Error(webPage(408), GET).kind, "transient");
  assert.equal(classifyS3Error(webPage(403), GET).kind, "access_denied");
});

Deno.test("S3: a JSON refusal is a GCS endpoint named in an s3:// URL, never a missing object or bucket; a HEAD keeps its meaning", () => {
  const json = (status: number) =>
    Object.assign(new Error("@aws-sdk XML parse error: unexpected content."), {
      $metadata: { httpStatusCode: status },
      $response: { statusCode: status, headers: { "content-type": "application/json" } },
    });
  const put: S3RequestContext = { op: "put", key: "k", bucket: "bkt", condition: "create" };
  for (const [err, ctx] of [[json(404), put], [json(404), GET], [json(400), put]] as const) {
    const f = classifyS3Error(err, ctx);
    assert.equal(f.kind, "not_the_service", `${ctx.op} ${f.status}`);
    const e = toSluiceError(f, ctx, err, 1, { endpoint: "s3://bkt/p at http://127.0.0.1:4443" });
    assert.ok(e instanceof ConfigError);
    assert.equal(e.field, "endpoint");
    assert.match(
      e.message,
      /a JSON error, as the Google Cloud Storage JSON API answers rather than/,
    );
    assert.match(e.message, /use a gs:\/\/ store URL/);
  }
  assert.equal(classifyS3Error(json(404), { ...GET, op: "head" }).kind, "not_found");
  assert.equal(classifyS3Error(json(503), GET).kind, "transient");
});

Deno.test("S3: a plain-text refusal (fake-gcs-server's to an S3 path) names the gs:// scheme as well as the endpoint", () => {
  // fake-gcs-server answers a GET of an S3 path with 404 "Not Found" as text/plain.
  const plain = Object.assign(new Error("@aws-sdk XML parse error: unexpected content."), {
    $metadata: { httpStatusCode: 404 },
    $response: { statusCode: 404, headers: { "content-type": "text/plain; charset=utf-8" } },
  });
  const f = classifyS3Error(plain, GET);
  assert.equal(f.kind, "not_the_service");
  const e = toSluiceError(f, GET, plain, 1, { endpoint: "s3://bkt/p at http://127.0.0.1:4443" });
  assert.ok(e instanceof ConfigError);
  assert.equal(e.field, "endpoint");
  assert.match(
    e.message,
    /a plain-text answer \(a web server's, or fake-gcs-server's to an S3 path\)/,
  );
  assert.match(
    e.message,
    /check its host, port and path; for GCS or fake-gcs-server, use a gs:\/\/ store URL/,
  );
  assert.match(e.message, /nothing was taken for an empty datastore/);
  // An HTML page keeps the plain wording: a web server, not a storage service of another kind.
  const html = toSluiceError(classifyS3Error(webPage(404), GET), GET, webPage(404), 1, {});
  assert.match(html.message, /a web page rather than an answer/);
  assert.doesNotMatch(html.message, /gs:\/\//);
});

Deno.test("S3: a missing bucket other than the store's (an endpoint path named it) is the endpoint's fault, not the bucket's", () => {
  const ctx: S3RequestContext = { op: "get", key: "_index/_meta.json", bucket: "bkt" };
  const other = Object.assign(
    s3Answer(404, "NoSuchBucket", "The specified bucket does not exist"),
    {
      BucketName: "proxy",
    },
  );
  const e = toSluiceError(classifyS3Error(other, ctx), ctx, other, 1, {
    endpoint: "s3://bkt/p at http://127.0.0.1:9000/proxy",
  });
  assert.ok(e instanceof ConfigError);
  assert.equal(e.field, "endpoint");
  assert.match(
    e.message,
    /answered that the bucket proxy does not exist, not bkt: the endpoint's path most likely put "proxy" where the bucket goes/,
  );
  // The store's own bucket missing is still the bucket's.
  const own = Object.assign(s3Answer(404, "NoSuchBucket", "The specified bucket does not exist"), {
    BucketName: "bkt",
  });
  const b = toSluiceError(classifyS3Error(own, ctx), ctx, own, 1, { endpoint: "s3://bkt/p" });
  assert.ok(b instanceof ConfigError);
  assert.equal(b.field, "bucket");
});
