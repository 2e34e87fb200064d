/**
 * The bucket's own region, read from a refusal of a request signed for (or
 * sent to) another one: its `x-amz-bucket-region` header, the error body's
 * `Region`, or the region its message expects.
 *
 * @module
 */
import { fieldsOf, textField } from "../store_kit/failure.ts";
import type { S3Failure } from "./failure.ts";

/** S3 error codes of a request signed for, or sent to, another region than the bucket's. */
const WRONG_REGION_CODES = new Set([
  "AuthorizationHeaderMalformed",
  "PermanentRedirect",
  "IllegalLocationConstraintException",
]);

/**
 * The bucket's region when a refusal says the request went to (or was signed
 * for) another one: the `x-amz-bucket-region` header S3 and MinIO send with
 * such a 301 or 400 (a HEAD has no body), else the `Region` of the error
 * body, else the region its message expects. Undefined for any other failure.
 */
export function bucketRegionOf(failure: S3Failure, cause: unknown): string | undefined {
  if (failure.status !== 301 && failure.status !== 400) return undefined;
  // Another refusal (a bad argument, say) may carry the header too: only one
  // with no code (a HEAD) or a code of the wrong region counts.
  if (failure.code !== undefined && !WRONG_REGION_CODES.has(failure.code)) return undefined;
  const e = fieldsOf(cause);
  const headers = fieldsOf(fieldsOf(e.$response).headers);
  const header = textField(headers["x-amz-bucket-region"]) ??
    textField(headers["X-Amz-Bucket-Region"]);
  if (header !== undefined && /^[a-z0-9-]+$/.test(header)) return header;
  const body = textField(e.Region);
  if (body !== undefined && /^[a-z0-9-]+$/.test(body)) return body;
  return /expecting '([a-z0-9-]+)'/.exec(textField(e.message) ?? "")?.[1];
}
