/**
 * Synthetic errors, shaped as @aws-sdk/client-s3 3.x throws them, for the
 * tests of how S3Store reads a failed call.
 *
 * @module
 */

/** A service error: an HTTP `status` and an S3 error `code` (plus body `fields`). */
export function sdkError(
  status: number,
  code: string | undefined,
  fields: Record<string, string> = {},
  message = "UnknownError",
): Error {
  const e = new Error(message);
  e.name = code ?? "Unknown";
  return Object.assign(e, {
    $fault: status >= 500 ? "server" : "client",
    $metadata: { httpStatusCode: status, requestId: "REQ-123", extendedRequestId: "HOST-9" },
    ...(code ? { Code: code } : {}),
    ...fields,
  });
}

/** A transport error with Node's `code` (`ECONNREFUSED`, …), no answer. */
export function netError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:9`), {
    code,
    $metadata: { attempts: 1 },
  });
}
