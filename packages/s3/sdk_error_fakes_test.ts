import assert from "node:assert/strict";
import { netError, sdkError } from "./sdk_error_fakes.ts";

Deno.test("sdk error fakes: a service error carries the SDK's fault, status, ids and code; a transport error its code and no status", () => {
  const e = sdkError(503, "SlowDown", { BucketRegion: "eu-west-1" }) as
    & Error
    & Record<string, unknown>;
  assert.equal(e.name, "SlowDown");
  assert.equal(e.$fault, "server");
  assert.deepEqual(e.$metadata, {
    httpStatusCode: 503,
    requestId: "REQ-123",
    extendedRequestId: "HOST-9",
  });
  assert.equal(e.Code, "SlowDown");
  assert.equal(e.BucketRegion, "eu-west-1");
  assert.equal((sdkError(404, undefined) as Error & { $fault: string }).$fault, "client");
  const n = netError("ECONNREFUSED") as Error & { code: string; $metadata: unknown };
  assert.equal(n.code, "ECONNREFUSED");
  assert.deepEqual(n.$metadata, { attempts: 1 });
});
