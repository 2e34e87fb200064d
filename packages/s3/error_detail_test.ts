/** The safe line describing an SDK error: its ids and a body preview, never secrets or signatures. */
import assert from "node:assert/strict";
import { sdkError } from "./sdk_error_fakes.ts";
import { describeS3Error, redact } from "./error_detail.ts";

Deno.test("errors: details carry the request id and a body preview, never secrets or signatures", () => {
  const e = sdkError(403, "SignatureDoesNotMatch", {
    StringToSign: "AWS4-HMAC-SHA256\n20260101T000000Z\nscope\nhash",
    CanonicalRequest: "PUT /b/k\nX-Amz-Credential=AKIASECRETID%2F2026",
    SignatureProvided: "deadbeef",
    AWSAccessKeyId: "AKIASECRETID",
  }, "The request signature we calculated does not match the signature you provided.");
  const detail = describeS3Error(e, ["topsecretkey", "AKIASECRETID"]);
  assert.match(detail, /HTTP 403 SignatureDoesNotMatch/);
  assert.match(detail, /request id REQ-123/);
  for (const bad of ["AKIASECRETID", "deadbeef", "AWS4-HMAC", "X-Amz-Credential"]) {
    assert.ok(!detail.includes(bad), `${bad} leaked into: ${detail}`);
  }

  // The SDK's note to its own callers about a body it could not parse is left out.
  const unparsed = sdkError(
    404,
    undefined,
    {},
    "@aws-sdk XML parse error: unexpected content. Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.",
  );
  const d1 = describeS3Error(unparsed);
  assert.match(
    d1,
    /^HTTP 404: @aws-sdk XML parse error: unexpected content\. \(request id REQ-123/,
  );
  assert.doesNotMatch(d1, /hidden field/);

  const html = sdkError(500, undefined, { body: "<html>oops: topsecretkey</html>" });
  const d2 = describeS3Error(html, ["topsecretkey"]);
  assert.match(d2, /body "<html>oops: ‹redacted›<\/html>"/);

  const signedUrl = Object.assign(
    new Error(
      "request to http://127.0.0.1:9000/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abcd failed",
    ),
    { code: "ECONNRESET" },
  );
  const d3 = describeS3Error(signedUrl);
  assert.ok(!d3.includes("abcd"), d3);
  assert.match(d3, /http:\/\/127\.0\.0\.1:9000\/b\/k\?…/);
  assert.equal(
    redact("Authorization: AWS4-HMAC-SHA256 Credential=AK/x, Signature=ff"),
    "Authorization: ‹redacted›",
  );
});
