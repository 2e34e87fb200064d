/**
 * What the object-store backends share when a request fails: the request
 * context, the kinds of failure and the classified failure itself. The
 * transport codes and HTTP statuses worth another attempt live in
 * `failure_classify.ts`, the mapping of a kind to a typed
 * `SluiceError` in `failure_errors.ts`, and the removal of credentials
 * from the text that goes into messages in `redact.ts`; this module
 * re-exports them all.
 *
 * Each backend keeps its own classification (which status, error code or
 * message of its SDK means which kind) and calls `storeFailureToError`
 * once it stops retrying; it handles before that only the kinds whose meaning
 * is its own.
 *
 * @module
 */
export * from "./failure_classify.ts";
export * from "./failure_errors.ts";
export * from "./redact.ts";

/** The store operation that failed, as named in messages. */
export type StoreOperation = "get" | "head" | "put" | "delete" | "list";

/**
 * The precondition a request carried: `create` (S3 `If-None-Match: *`, GCS
 * `ifGenerationMatch=0`), `update` (S3 `If-Match`, GCS
 * `ifGenerationMatch=<generation>` on an upload) or `delete` (the same on a
 * delete).
 */
export type StoreCondition = "create" | "update" | "delete";

/** What the failed request asked for; decides how a status is read. */
export interface StoreRequestContext {
  /** The operation. */
  readonly op: StoreOperation;
  /** Store-relative key (or list prefix). */
  readonly key: string;
  /** The precondition the request carried, if any; see {@link StoreCondition}. */
  readonly condition?: StoreCondition;
  /** The bucket, for messages about a missing bucket. */
  readonly bucket?: string;
  /** One attempt only (the caller's `noRetry`): a transient failure is not retried. */
  readonly noRetry?: boolean;
}

/**
 * The meaning of one failed attempt.
 *
 * - `already_exists`: a create found the key.
 * - `precondition_failed`: an update or conditional delete found another
 *   version, or no object.
 * - `not_found`: the object is absent.
 * - `not_implemented`: the endpoint refuses the precondition itself.
 * - `transient`: worth another attempt (transport errors, timeouts, 408,
 *   429, 5xx other than 501, and what the backend knows to be passing).
 * - `aborted`: the caller cancelled.
 * - `bucket_missing`: the bucket does not exist; never retried.
 * - `access_denied`: a credentials or permissions problem; never retried.
 * - `credentials_missing`: no credentials were found, so no request was
 *   signed (or sent); never retried.
 * - `invalid_name`: the endpoint refuses the object name itself; never
 *   retried.
 * - `not_the_service`: a web page (`text/html`) came back for a 400, 404,
 *   405 or 501, as no storage service answers: the endpoint names another
 *   server. (A proxy's page for 403, 408, 429 or a 5xx keeps that status's
 *   meaning: a refusal, or worth another attempt.)
 *   Never retried, and never read as a missing object.
 * - `failed`: anything else, never retried.
 */
export type StoreFailureKind =
  | "already_exists"
  | "precondition_failed"
  | "not_found"
  | "not_implemented"
  | "transient"
  | "aborted"
  | "bucket_missing"
  | "access_denied"
  | "credentials_missing"
  | "invalid_name"
  | "not_the_service"
  | "failed";

/** A classified failure with the facts needed for a safe message. */
export interface StoreFailure<K extends StoreFailureKind = StoreFailureKind> {
  /** What it means; see {@link StoreFailureKind}. */
  readonly kind: K;
  /** HTTP status, when there was a response. */
  readonly status?: number;
  /**
   * The endpoint's error code (S3 `NoSuchKey`, GCS reason `conditionNotMet`)
   * or a transport code (`ECONNRESET`).
   */
  readonly code?: string;
  /** A request id the endpoint gave, if any. */
  readonly requestId?: string;
  /**
   * True when the request may have taken effect although it failed (the
   * response was lost: transport error after sending, timeout, 5xx).
   */
  readonly ambiguous: boolean;
  /** One line for messages: status, code, request id and a short body preview, redacted. */
  readonly detail: string;
  /**
   * For `not_the_service`: what the answer looked like when it is another
   * kind of storage service's, and what to do (a web page when absent).
   */
  readonly foreign?: { readonly what: string; readonly hint: string };
}

/**
 * Carries the error of a put's own body source (or a length it got wrong,
 * see `sourceSizeError`) through a store's retry loop, which rethrows the
 * original unchanged and never retries it.
 */
export class SourceFailure extends Error {
  /** The source's own error. */
  readonly error: unknown;
  constructor(error: unknown) {
    super("the body source failed");
    this.name = "SourceFailure";
    this.error = error;
  }
}
