import assert from "node:assert/strict";
import {
  AbortedError,
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  UnreachableError,
} from "../../sync/errors.ts";
import {
  conditionFailureKind,
  describeRequest,
  fieldsOf,
  isTransientStatus,
  isWebPageAnswer,
  NOT_SENT_NET_CODES,
  redactCredentials,
  STORE_TIMEOUT_CODE,
  StoreAttemptTimeout,
  type StoreFailure,
  type StoreFailureKind,
  storeFailureToError,
  type StoreRequestContext,
  StoreRequestError,
  textField,
  TRANSIENT_NET_CODES,
} from "./failure.ts";

const PUT: StoreRequestContext = {
  op: "put",
  key: "data/m/1/raw",
  condition: "create",
  bucket: "b",
};

const failure = (kind: StoreFailureKind, extra: Partial<StoreFailure> = {}): StoreFailure => ({
  kind,
  ambiguous: false,
  detail: "HTTP 400 Something",
  ...extra,
});

Deno.test("each kind maps to the same typed error on every backend", () => {
  const cases: [StoreFailureKind, new (...args: never[]) => Error, string][] = [
    ["already_exists", AlreadyExistsError, "already_exists"],
    ["precondition_failed", PreconditionFailedError, "precondition_failed"],
    ["not_found", NotFoundError, "not_found"],
    ["not_implemented", NotImplementedError, "not_implemented"],
    ["transient", UnreachableError, "unreachable"],
    ["aborted", AbortedError, "aborted"],
    ["bucket_missing", ConfigError, "invalid_config"],
    ["access_denied", ConfigError, "invalid_config"],
    ["failed", StoreRequestError, "internal"],
  ];
  for (const [kind, type, code] of cases) {
    const e = storeFailureToError(failure(kind), PUT);
    assert.ok(e instanceof type, `${kind} gave ${e.name}`);
    assert.equal(e.code, code, kind);
  }
});

Deno.test("messages name the request, the endpoint and the failure's detail", () => {
  const where = { endpoint: "gs://b/p" };
  const missing = storeFailureToError(failure("precondition_failed", { status: 404 }), PUT, where);
  assert.match(missing.message, /it does not exist; HTTP 400 Something/);
  const refused = storeFailureToError(failure("not_implemented"), PUT, where);
  assert.match(refused.message, /gs:\/\/b\/p: HTTP 400 Something/);
  const bucket = storeFailureToError(failure("bucket_missing"), PUT, where);
  assert.ok(bucket instanceof ConfigError && bucket.field === "bucket");
  assert.match(bucket.message, /the bucket b does not exist at gs:\/\/b\/p/);
  const denied = storeFailureToError(failure("access_denied"), PUT, { service: "GCS" });
  assert.ok(denied instanceof ConfigError && denied.field === "credentials");
  assert.match(denied.message, /GCS refused the put of data\/m\/1\/raw \(HTTP 400 Something\)/);
  const cancelled = storeFailureToError(failure("aborted"), PUT, where);
  assert.match(cancelled.message, /^The put of data\/m\/1\/raw at gs:\/\/b\/p was cancelled/);
  const odd = storeFailureToError(failure("failed"), PUT, { service: "the S3 endpoint" });
  assert.match(odd.message, /The put of data\/m\/1\/raw was refused by the S3 endpoint/);
  assert.equal((odd as StoreRequestError).failure.detail, "HTTP 400 Something");
});

Deno.test("an outage counts its attempts and keeps the last detail", () => {
  const once = storeFailureToError(failure("transient"), PUT);
  assert.match(once.message, /the put of data\/m\/1\/raw failed after 1 attempt, last: HTTP 400/);
  assert.equal(once.retryable, true);
  const four = storeFailureToError(failure("transient"), PUT, { endpoint: "s3://b", attempts: 4 });
  assert.match(four.message, /put of data\/m\/1\/raw at s3:\/\/b failed after 4 attempts, last:/);
});

Deno.test("a refused connection or an unknown host points at the endpoint's host and port; other outages do not", () => {
  const refused = storeFailureToError(
    failure("transient", {
      code: "ECONNREFUSED",
      detail: "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9399",
    }),
    PUT,
    { endpoint: "s3://b at http://127.0.0.1:9399", attempts: 4 },
  );
  assert.equal(refused.code, "unreachable");
  assert.match(
    refused.message,
    /ECONNREFUSED 127\.0\.0\.1:9399 \(nothing accepts connections at that host and port: if the server is up, check the endpoint's host and port: the store URL's endpoint=, or the datastore configuration's "endpoint"\)\. Nothing was lost/,
  );
  const plain = storeFailureToError(
    failure("transient", { code: "ERR_SSL_WRONG_VERSION_NUMBER" }),
    PUT,
  );
  assert.match(
    plain.message,
    /does not answer TLS: if it serves plain HTTP, write the endpoint with http:\/\//,
  );
  const unknown = storeFailureToError(failure("transient", { code: "ENOTFOUND" }), PUT);
  assert.match(
    unknown.message,
    /the host name does not resolve: check the endpoint's host: the store URL's endpoint=, or the datastore configuration's "endpoint"\)/,
  );
  for (const code of ["ECONNRESET", "ETIMEDOUT", STORE_TIMEOUT_CODE, undefined]) {
    const e = storeFailureToError(failure("transient", { code }), PUT);
    assert.doesNotMatch(e.message, /check the endpoint/, String(code));
  }
});

Deno.test("the cause is kept when given and absent otherwise", () => {
  const cause = new Error("sdk");
  assert.equal(storeFailureToError(failure("not_found"), PUT, { cause }).cause, cause);
  assert.ok(!("cause" in storeFailureToError(failure("not_found"), PUT)));
  assert.ok(!("cause" in new StoreRequestError(PUT, failure("failed"))));
});

Deno.test("describeRequest names the endpoint only when given", () => {
  assert.equal(describeRequest({ op: "get", key: "a" }), "get of a");
  assert.equal(describeRequest({ op: "list", key: "p/" }, "s3://b"), "list of p/ at s3://b");
});

Deno.test("retry helpers: statuses, transport codes and failed conditions", () => {
  for (const s of [408, 429, 500, 502, 503, 504]) assert.ok(isTransientStatus(s), String(s));
  for (const s of [200, 304, 400, 403, 404, 409, 412, 501]) {
    assert.ok(!isTransientStatus(s), String(s));
  }
  assert.ok(TRANSIENT_NET_CODES.has("ECONNRESET"));
  assert.ok(TRANSIENT_NET_CODES.has(STORE_TIMEOUT_CODE));
  for (const code of NOT_SENT_NET_CODES) assert.ok(TRANSIENT_NET_CODES.has(code), code);
  assert.ok(!NOT_SENT_NET_CODES.has("ECONNRESET"));
  assert.equal(conditionFailureKind("create"), "already_exists");
  assert.equal(conditionFailureKind("update"), "precondition_failed");
  assert.equal(conditionFailureKind("delete"), "precondition_failed");
});

Deno.test("StoreAttemptTimeout carries its deadline and code; subclasses keep their names", () => {
  class BackendTimeout extends StoreAttemptTimeout {}
  const e = new BackendTimeout(800);
  assert.equal(e.message, "no answer within 800 ms");
  assert.equal(e.code, STORE_TIMEOUT_CODE);
  assert.equal(e.timeoutMs, 800);
  assert.equal(e.name, "BackendTimeout");
  assert.ok(e instanceof StoreAttemptTimeout);
});

Deno.test("fieldsOf and textField read values of unknown shape", () => {
  assert.equal(fieldsOf(fieldsOf({ a: { b: 1 } }).a).b, 1);
  assert.deepEqual(fieldsOf(undefined), {});
  assert.deepEqual(fieldsOf("text"), {});
  assert.equal(textField("x"), "x");
  assert.equal(textField(""), undefined);
  assert.equal(textField(3), undefined);
});

Deno.test("redactCredentials removes URL secrets, headers, tokens, signatures and keys", () => {
  const cases: [input: string, redacted: string][] = [
    ["GET https://h/o?sig=1 failed", "GET https://h/o?… failed"],
    ["http://user:pw@host/p", "http://‹redacted›@host/p"],
    ["Authorization: Bearer abc.def", "Authorization: ‹redacted›"],
    ['{"authorization":"Basic x","n":1}', '{"authorization":‹redacted›,"n":1}'],
    ["token Bearer abc.def here", "token Bearer ‹redacted› here"],
    ['{"access_token":"ya29.x","n":1}', '{"access_token":‹redacted›,"n":1}'],
    ["key -----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY----- end", "key ‹redacted› end"],
    ["Authorization: AWS4-HMAC-SHA256 Credential=AK/x, Signature=ff", "Authorization: ‹redacted›"],
    [
      "X-Amz-Credential=AK%2Fx&X-Goog-Signature=ab",
      "X-Amz-Credential=‹redacted›&X-Goog-Signature=‹redacted›",
    ],
    ["AWS4-HMAC-SHA256 20260101T000000Z scope", "AWS4-HMAC-SHA256 ‹redacted›"],
    ["nothing to hide here", "nothing to hide here"],
  ];
  for (const [input, redacted] of cases) assert.equal(redactCredentials(input), redacted, input);
});

Deno.test("redactCredentials removes literal secrets and takes the mask to leave", () => {
  assert.equal(
    redactCredentials("<html>key AKIASECRET and abc</html>", { secrets: ["AKIASECRET", "abc"] }),
    "<html>key ‹redacted› and abc</html>",
    "secrets shorter than 4 characters are not removed (they would mangle the text)",
  );
  assert.equal(
    redactCredentials("Authorization: Bearer x, key AKIASECRET", {
      secrets: ["AKIASECRET"],
      mask: "…",
    }),
    "Authorization: …",
  );
  assert.equal(redactCredentials("token Bearer abc here", { mask: "…" }), "token Bearer … here");
});

Deno.test("a web page for 400/404/405/501 is another server's answer; by type or by a body that starts as HTML only", () => {
  assert.equal(isWebPageAnswer(404, "text/html;charset=utf-8", undefined), true);
  assert.equal(isWebPageAnswer(501, undefined, "<!DOCTYPE HTML><html>"), true);
  assert.equal(isWebPageAnswer(404, "application/json", "No such object: b/x;<html>.txt"), false);
  for (const status of [403, 408, 429, 502]) {
    assert.equal(isWebPageAnswer(status, "text/html", "<html>"), false, `${status}`);
  }
});
