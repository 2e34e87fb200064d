/**
 * What one failed attempt of the S3 store is: the request it made, the kinds
 * of failure it can meet, and the store's own per-attempt timeout.
 *
 * @module
 */
import {
  StoreAttemptTimeout,
  type StoreFailure,
  type StoreFailureKind,
  type StoreRequestContext,
} from "../store_kit/failure.ts";

/**
 * What the failed request asked for; decides how a status is read. Its
 * `condition` is `create` (`If-None-Match: *`), `update` (`If-Match` on a
 * put) or `delete` (`If-Match` on a delete).
 */
export type S3RequestContext = StoreRequestContext;

/**
 * The meaning of one failed attempt.
 *
 * - `already_exists`: a create found the key (412 or 304).
 * - `precondition_failed`: an update or conditional delete found another
 *   version, or no object (412, 304, 404 on `If-Match`).
 * - `not_found`: the key (or for `head`, the object) is absent.
 * - `not_implemented`: the endpoint refuses the conditional header (501, or a
 *   400 that names it).
 * - `transient`: worth another attempt: transport errors, timeouts, 5xx, 429,
 *   `SlowDown`, `RequestTimeout`, 409 `ConditionalRequestConflict`.
 * - `aborted`: the caller cancelled.
 * - `bucket_missing`, `access_denied`: configuration problems, never retried.
 * - `credentials_missing`: the SDK's credential chain found no credentials
 *   (nothing was sent); never retried.
 * - `invalid_name`: the endpoint refuses the object name (MinIO's
 *   `XMinioInvalidObjectName` / `XMinioInvalidResourceName`, S3's
 *   `KeyTooLongError`); never retried.
 * - `failed`: anything else, never retried.
 */
export type S3FailureKind = StoreFailureKind;

/**
 * A classified failure with the facts needed for a safe message; its `code`
 * is the S3 error code (`PreconditionFailed`, `NoSuchKey`, …) or a transport
 * code, its `requestId` from `x-amz-request-id` or the body's `RequestId`.
 */
export type S3Failure = StoreFailure<S3FailureKind>;

/** Thrown by the store's own per-attempt timer; recognised by {@link classifyS3Error}. */
export class S3AttemptTimeout extends StoreAttemptTimeout {}
