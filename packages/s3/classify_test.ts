/**
 * What failed attempts mean (pure, no server): failed conditions, missing
 * objects, refused conditional writes, outages, cancellations and
 * configuration problems, as {@link classifyS3Error} reads them and
 * `toSluiceError` then throws them.
 */
import assert from "node:assert/strict";
import { netError, sdkError } from "./sdk_error_fakes.ts";
import {
  AbortedError,
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  UnreachableError,
} from "../../sync/errors.ts";
import { classifyS3Error } from "./classify.ts";
import { describeS3Error } from "./error_detail.ts";
import {
  S3AttemptTimeout,
  type S3RequestContext,
  S3RequestError,
  toSluiceError,
} from "./errors.ts";

const CREATE: S3RequestContext = { op: "put", key: "data/m/1/raw", condition: "create" };
const UPDATE: S3RequestContext = { op: "put", key: "data/m/latest", condition: "update" };
const DELETE_IF: S3RequestContext = { op: "delete", key: ".lock", condition: "delete" };
const GET: S3RequestContext = { op: "get", key: "a" };
const HEAD: S3RequestContext = { op: "head", key: "a" };
const PLAIN_PUT: S3RequestContext = { op: "put", key: "a", bucket: "bkt" };

function mapped(err: unknown, ctx: S3RequestContext, signal?: AbortSignal) {
  return toSluiceError(classifyS3Error(err, ctx, signal), ctx, err, 4);
}

Deno.test("errors: 412 maps to AlreadyExists for create and PreconditionFailed for update", () => {
  const e412 = sdkError(412, "PreconditionFailed", { Condition: "If-None-Match" });
  assert.ok(mapped(e412, CREATE) instanceof AlreadyExistsError);
  assert.ok(mapped(e412, UPDATE) instanceof PreconditionFailedError);
  assert.ok(mapped(e412, DELETE_IF) instanceof PreconditionFailedError);
});

Deno.test("errors: 304 (older MinIO) maps to the failed-condition errors", () => {
  const e304 = sdkError(304, undefined);
  assert.ok(mapped(e304, CREATE) instanceof AlreadyExistsError);
  assert.ok(mapped(e304, UPDATE) instanceof PreconditionFailedError);
});

Deno.test("errors: 409 ConditionalRequestConflict is transient, other 409s are not", () => {
  const f = classifyS3Error(sdkError(409, "ConditionalRequestConflict"), CREATE);
  assert.equal(f.kind, "transient");
  assert.equal(f.ambiguous, false);
  assert.equal(
    classifyS3Error(sdkError(409, "ConditionalRequestConflict"), PLAIN_PUT).kind,
    "transient",
  );
  assert.equal(classifyS3Error(sdkError(409, "BucketNotEmpty"), PLAIN_PUT).kind, "failed");
});

Deno.test("errors: 404 on If-Match maps to PreconditionFailed, elsewhere to NotFound", () => {
  const e404 = sdkError(404, "NoSuchKey", {}, "The specified key does not exist.");
  const upd = mapped(e404, UPDATE);
  assert.ok(upd instanceof PreconditionFailedError);
  assert.match(upd.message, /does not exist/);
  assert.ok(mapped(e404, DELETE_IF) instanceof PreconditionFailedError);
  assert.ok(mapped(e404, GET) instanceof NotFoundError);
  assert.equal(classifyS3Error(sdkError(404, "NotFound"), HEAD).kind, "not_found");
  assert.equal(classifyS3Error(sdkError(404, undefined), HEAD).kind, "not_found");
});

Deno.test("errors: 501, or a 400 naming the conditional header, maps to NotImplemented", () => {
  const e501 = sdkError(501, "NotImplemented", { Header: "If-None-Match" });
  assert.ok(mapped(e501, CREATE) instanceof NotImplementedError);
  const e400 = sdkError(400, "InvalidArgument", { ArgumentName: "If-Match" }, "Unsupported header");
  assert.ok(mapped(e400, UPDATE) instanceof NotImplementedError);
  const e400msg = sdkError(
    400,
    "InvalidRequest",
    {},
    "Unsupported header 'If-None-Match' received for this API call.",
  );
  assert.ok(mapped(e400msg, CREATE) instanceof NotImplementedError);
  // A 400 that names nothing conditional is a plain refusal, never retried.
  const other = mapped(sdkError(400, "InvalidArgument", {}, "Bad part"), CREATE);
  assert.ok(other instanceof S3RequestError);
  // Without a condition on the request a 501 is not about conditional writes.
  assert.ok(mapped(sdkError(501, "NotImplemented"), PLAIN_PUT) instanceof S3RequestError);
});

Deno.test("errors: transport errors, timeouts, 5xx, 429 and SlowDown are transient, then Unreachable", () => {
  for (
    const e of [
      netError("ECONNRESET"),
      netError("ECONNREFUSED"),
      netError("EPIPE"),
      Object.assign(new Error("socket hang up"), { $metadata: {} }),
      Object.assign(new Error("Request aborted"), { name: "AbortError", $metadata: {} }),
      new S3AttemptTimeout(50),
      sdkError(500, "InternalError"),
      sdkError(502, undefined),
      sdkError(503, "SlowDown"),
      sdkError(429, undefined),
      sdkError(400, "RequestTimeout"),
    ]
  ) {
    const f = classifyS3Error(e, PLAIN_PUT);
    assert.equal(f.kind, "transient", describeS3Error(e));
    const err = toSluiceError(f, PLAIN_PUT, e, 4);
    assert.ok(err instanceof UnreachableError);
    assert.match(err.message, /after 4 attempts/);
  }
  assert.equal(classifyS3Error(netError("ECONNREFUSED"), PLAIN_PUT).ambiguous, false);
  assert.equal(classifyS3Error(netError("ECONNRESET"), PLAIN_PUT).ambiguous, true);
});

Deno.test("errors: a cancelled caller maps to Aborted whatever the transport said", () => {
  const c = new AbortController();
  c.abort();
  const e = Object.assign(new Error("Request aborted"), { name: "AbortError" });
  assert.ok(mapped(e, CREATE, c.signal) instanceof AbortedError);
});

Deno.test("errors: a missing bucket and refused credentials are configuration errors", () => {
  const nb = mapped(sdkError(404, "NoSuchBucket", { BucketName: "bkt" }), PLAIN_PUT);
  assert.ok(nb instanceof ConfigError);
  assert.equal(nb.field, "bucket");
  assert.match(nb.message, /bkt/);
  const ad = mapped(sdkError(403, "AccessDenied"), PLAIN_PUT);
  assert.ok(ad instanceof ConfigError);
  assert.equal(ad.field, "credentials");
  assert.ok(mapped(sdkError(403, undefined), HEAD) instanceof ConfigError);
});
