/** A refusal naming the bucket's region is a configuration error naming that region. */
import assert from "node:assert/strict";
import { sdkError } from "./sdk_error_fakes.ts";
import { ConfigError } from "../../sync/errors.ts";
import { classifyS3Error, type S3RequestContext, toSluiceError } from "./errors.ts";

const PLAIN_PUT: S3RequestContext = { op: "put", key: "a", bucket: "bkt" };

function mapped(err: unknown, ctx: S3RequestContext, signal?: AbortSignal) {
  return toSluiceError(classifyS3Error(err, ctx, signal), ctx, err, 4);
}

Deno.test("errors: a bucket in another region than the one configured is a configuration error naming its region", () => {
  // A read with a body: the endpoint names the bucket's region in its error.
  const get = mapped(
    sdkError(
      400,
      "AuthorizationHeaderMalformed",
      { Region: "eu-central-1" },
      "The authorization header is malformed; the region is wrong; expecting 'eu-central-1'.",
    ),
    { op: "get", key: "a", bucket: "bkt" },
  );
  assert.ok(get instanceof ConfigError, String(get));
  assert.equal(get.field, "region");
  assert.match(get.message, /bkt is in region eu-central-1/);
  // A HEAD has no body: only the response's x-amz-bucket-region header tells.
  const head = mapped(
    Object.assign(sdkError(400, undefined), {
      $response: { statusCode: 400, headers: { "x-amz-bucket-region": "eu-central-1" } },
    }),
    { op: "head", key: "a", bucket: "bkt" },
  );
  assert.ok(head instanceof ConfigError, String(head));
  assert.equal(head.field, "region");
  assert.match(head.message, /eu-central-1/);
  // AWS's redirect to the bucket's region (a 301 on a virtual-hosted request).
  const moved = mapped(
    Object.assign(sdkError(301, "PermanentRedirect"), {
      $response: { statusCode: 301, headers: { "x-amz-bucket-region": "ap-south-1" } },
    }),
    PLAIN_PUT,
  );
  assert.ok(moved instanceof ConfigError, String(moved));
  assert.equal(moved.field, "region");
  assert.match(moved.message, /ap-south-1/);
});
