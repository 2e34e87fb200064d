/**
 * What the object-store backends share when a request fails: the request
 * context, the kinds of failure, the transport codes and HTTP statuses worth
 * another attempt, the mapping of a kind to a typed {@link SluiceError}, and
 * the removal of credentials from the text that goes into messages.
 *
 * Each backend keeps its own classification (which status, error code or
 * message of its SDK means which kind) and calls {@link storeFailureToError}
 * once it stops retrying; it handles before that only the kinds whose meaning
 * is its own.
 *
 * @module
 */
import {
  AbortedError,
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../../sync/errors.ts";

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

/** Code of a store's own per-attempt deadline error, see {@link StoreAttemptTimeout}. */
export const STORE_TIMEOUT_CODE = "SLUICE_REQUEST_TIMEOUT";

/**
 * The error an attempt fails with when it did not settle within the store's
 * per-attempt timeout. Backends classify it as transient and ambiguous.
 *
 * @example
 * ```ts
 * import { StoreAttemptTimeout } from "./failure.ts";
 * const e = new StoreAttemptTimeout(5000);
 * console.log(e.message, e.code); // "no answer within 5000 ms" "SLUICE_REQUEST_TIMEOUT"
 * ```
 */
export class StoreAttemptTimeout extends Error {
  /** Always {@link STORE_TIMEOUT_CODE}. */
  readonly code: string = STORE_TIMEOUT_CODE;
  /** The deadline that passed. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = new.target.name;
    this.timeoutMs = timeoutMs;
  }
}

/** Transport error codes (Node, Deno, undici, node-fetch) that mean "try again". */
export const TRANSIENT_NET_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "ENOTFOUND",
  "EADDRNOTAVAIL",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_HTTP2_STREAM_ERROR",
  STORE_TIMEOUT_CODE,
]);

/** Transport error codes that are certain the request never reached the server. */
export const NOT_SENT_NET_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);

/**
 * True for the HTTP statuses worth another attempt: 408, 429 and every 5xx
 * but 501 (which says the request will never work).
 *
 * @example
 * ```ts
 * import { isTransientStatus } from "./failure.ts";
 * isTransientStatus(503); // true
 * isTransientStatus(501); // false
 * ```
 */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/**
 * What a failed precondition means for a request that carried `condition`:
 * a create found the key, anything else found another version.
 *
 * @example
 * ```ts
 * import { conditionFailureKind } from "./failure.ts";
 * conditionFailureKind("create"); // "already_exists"
 * ```
 */
export function conditionFailureKind(
  condition: StoreCondition,
): "already_exists" | "precondition_failed" {
  return condition === "create" ? "already_exists" : "precondition_failed";
}

/** The fields of a thrown value, for reading SDK errors of unknown shape. */
export type ErrorFields = Readonly<Record<string, unknown>>;

/**
 * The fields of `value` when it is an object, else an empty record, so that
 * nested fields can be read without checks.
 *
 * @example
 * ```ts
 * import { fieldsOf } from "./failure.ts";
 * fieldsOf(fieldsOf({ $metadata: { httpStatusCode: 404 } }).$metadata).httpStatusCode; // 404
 * fieldsOf("oops").message; // undefined
 * ```
 */
export function fieldsOf(value: unknown): ErrorFields {
  return typeof value === "object" && value !== null ? value as ErrorFields : {};
}

/**
 * `value` when it is a non-empty string, else `undefined`.
 *
 * @example
 * ```ts
 * import { textField } from "./failure.ts";
 * textField("NoSuchKey"); // "NoSuchKey"
 * textField(""); // undefined
 * ```
 */
export function textField(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Options of {@link redactCredentials}. */
export interface RedactOptions {
  /** Literal secrets (static keys) to remove wherever they appear; shorter than 4 characters are ignored. */
  readonly secrets?: readonly string[];
  /** What stands in place of a removed value; default `‹redacted›`. */
  readonly mask?: string;
}

/**
 * Removes what must never reach a message: the given literal secrets,
 * passwords in URLs, whole query strings of URLs (signed URLs carry their
 * signature there), `Authorization` values, bearer and basic tokens, AWS and
 * GCS signature parameters and signing lines, OAuth tokens and keys in JSON,
 * and PEM private keys.
 *
 * @example
 * ```ts
 * import { redactCredentials } from "./failure.ts";
 * redactCredentials("GET https://h/o?X-Amz-Signature=abc failed"); // "GET https://h/o?… failed"
 * redactCredentials("Authorization: Bearer abc", { mask: "…" }); // "Authorization: …"
 * redactCredentials("key AKIA1234 refused", { secrets: ["AKIA1234"] }); // "key ‹redacted› refused"
 * ```
 */
export function redactCredentials(text: string, options: RedactOptions = {}): string {
  const mask = options.mask ?? "‹redacted›";
  let s = text;
  for (const secret of options.secrets ?? []) {
    if (secret && secret.length >= 4) s = s.split(secret).join(mask);
  }
  return s
    .replace(/\b(https?:\/\/)[^/\s:@]+:[^/\s@]+@/gi, `$1${mask}@`)
    .replace(/\b(https?:\/\/[^\s?#"'<>]*)\?[^\s"'<>]*/gi, "$1?…")
    .replace(/("?authorization"?\s*[:=]\s*)("[^"]*"|[^\r\n]*)/gi, `$1${mask}`)
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${mask}`)
    .replace(
      /(X-(?:Amz|Goog)-(?:Signature|Credential|Security-Token)|Signature|AWSAccessKeyId)\s*[=:]\s*[^\s&"'<>,]+/gi,
      `$1=${mask}`,
    )
    .replace(/\b((?:AWS4|GOOG4)-(?:HMAC|RSA)-SHA256)\b[^\n]*/g, `$1 ${mask}`)
    .replace(
      /("?(?:access_token|refresh_token|id_token|private_key|client_secret)"?\s*[:=]\s*)("[^"]*"|[^\s,}&]+)/gi,
      `$1${mask}`,
    )
    .replace(
      /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
      mask,
    );
}

/**
 * The request as messages name it: `put of data/m/1/raw`, followed by
 * ` at <endpoint>` when the endpoint is given.
 *
 * @example
 * ```ts
 * import { describeRequest } from "./failure.ts";
 * describeRequest({ op: "get", key: "a" }, "gs://b/p"); // "get of a at gs://b/p"
 * ```
 */
export function describeRequest(ctx: StoreRequestContext, endpoint?: string): string {
  return `${ctx.op} of ${ctx.key}${endpoint ? ` at ${endpoint}` : ""}`;
}

/** Options of {@link StoreRequestError} and {@link storeFailureToError}. */
export interface StoreErrorOptions {
  /** Where the request went (`gs://bucket/prefix`), named in messages when given. */
  readonly endpoint?: string;
  /** Who refused, as messages name it; default `the endpoint`. */
  readonly service?: string;
  /** Kept as the error's `cause` (pass a redacted copy when the original carries secrets). */
  readonly cause?: unknown;
  /** How many attempts were made, shown for outages; default 1. */
  readonly attempts?: number;
  /**
   * Where credentials come from and how to provide them, for a
   * `credentials_missing` failure (e.g. the AWS variables and profile files).
   */
  readonly credentialsHint?: string;
  /** The store's key prefix, named when the endpoint refuses an object name. */
  readonly prefix?: string;
  /**
   * How to create the bucket, for a `bucket_missing` failure; default
   * `` `sluice bucket create <store-url>` ``.
   */
  readonly createBucketHint?: string;
}

/**
 * A request failed in a way that is neither a failed condition, a missing
 * object, a refusal of conditional writes nor an outage (for example a 400
 * the store did not expect). Never retried.
 *
 * @example
 * ```ts
 * import { StoreRequestError } from "./failure.ts";
 * const e = new StoreRequestError(
 *   { op: "put", key: "k" },
 *   { kind: "failed", status: 400, ambiguous: false, detail: "HTTP 400 InvalidArgument" },
 * );
 * console.log(e.code); // "internal"
 * ```
 */
export class StoreRequestError extends SluiceError {
  /** The classified failure. */
  readonly failure: StoreFailure;
  constructor(ctx: StoreRequestContext, failure: StoreFailure, options: StoreErrorOptions = {}) {
    super(
      "internal",
      `The ${describeRequest(ctx, options.endpoint)} was refused by ${
        options.service ?? "the endpoint"
      } (${failure.detail}). Nothing was changed by this request; check the endpoint's documentation for the error code, then run the command again.`,
      options.cause === undefined ? {} : { cause: options.cause },
    );
    this.failure = failure;
  }
}

/**
 * Turns a classified failure into the typed error a store throws: the same
 * kind gives the same error class on every backend, with the request, the
 * endpoint (when given) and the failure's redacted detail in its message.
 *
 * @example
 * ```ts
 * import { storeFailureToError } from "./failure.ts";
 * const e = storeFailureToError(
 *   { kind: "transient", status: 503, ambiguous: true, detail: "HTTP 503" },
 *   { op: "get", key: "a" },
 *   { endpoint: "s3://b", attempts: 3 },
 * );
 * console.log(e.code); // "unreachable"
 * ```
 */
export function storeFailureToError(
  failure: StoreFailure,
  ctx: StoreRequestContext,
  options: StoreErrorOptions = {},
): SluiceError {
  const opts = options.cause === undefined ? {} : { cause: options.cause };
  const where = describeRequest(ctx, options.endpoint);
  const service = options.service ?? "the endpoint";
  switch (failure.kind) {
    case "already_exists":
      return new AlreadyExistsError(ctx.key, undefined, opts);
    case "precondition_failed":
      return new PreconditionFailedError(
        ctx.key,
        failure.status === 404 ? `it does not exist; ${failure.detail}` : failure.detail,
        opts,
      );
    case "not_found":
      return new NotFoundError(ctx.key, opts);
    case "not_implemented":
      return new NotImplementedError(
        ctx.key,
        options.endpoint ? `${options.endpoint}: ${failure.detail}` : failure.detail,
        opts,
      );
    case "aborted":
      return new AbortedError(`The ${where}`, opts);
    case "transient": {
      const attempts = options.attempts ?? 1;
      return new UnreachableError(
        `the ${where} failed after ${attempts} attempt${
          attempts === 1 ? "" : "s"
        }, last: ${failure.detail}${noServerHint(failure.code)}`,
        opts,
      );
    }
    case "bucket_missing":
      return new ConfigError(
        "bucket",
        `the bucket ${ctx.bucket ?? "(unknown)"} does not exist at ${
          options.endpoint ?? "the endpoint"
        } (${failure.detail}), so nothing was read from it or written to it (a missing bucket is never taken for an empty datastore); correct the bucket name, or create the bucket (${
          options.createBucketHint ?? "`sluice bucket create <store-url>`"
        })`,
        opts,
      );
    case "credentials_missing":
      return new ConfigError(
        "credentials",
        `no credentials were found for the ${where} (${failure.detail}), so no request was sent and nothing was read or written; ${
          options.credentialsHint ?? "provide credentials to the store"
        }`,
        opts,
      );
    case "invalid_name":
      return new SluiceError(
        "invalid_object_name",
        `${service.charAt(0).toUpperCase()}${
          service.slice(1)
        } refused the object name of the ${where}${
          options.prefix !== undefined ? ` (prefix ${JSON.stringify(options.prefix)})` : ""
        } as invalid (${failure.detail}). Nothing was read or written for it. Check the store's prefix and the path; Sluice itself never sends '.', '..' or empty segments.`,
        opts,
      );
    case "access_denied":
      return new ConfigError(
        "credentials",
        `${service} refused the ${where} (${failure.detail}); check the credentials and their permissions on the bucket`,
        opts,
      );
    case "not_the_service":
      return new ConfigError(
        "endpoint",
        `the ${where} was answered with ${failure.detail}, ${
          failure.foreign?.what ?? "a web page"
        } rather than an answer of ${service}: most likely the endpoint URL names another server (check its host, port and path${
          failure.foreign ? `; ${failure.foreign.hint}` : ""
        }). Nothing was read from it or written to it, and nothing was taken for an empty datastore`,
        opts,
      );
    case "failed":
      return new StoreRequestError(ctx, failure, options);
  }
}

/**
 * For a connection refused or a host name that does not resolve, which a
 * server that is down and a mistyped endpoint both give: the endpoint to
 * check, so that a typo in the port is not waited out as an outage.
 */
function noServerHint(code: string | undefined): string {
  if (code === "ECONNREFUSED") {
    return " (nothing accepts connections at that host and port: if the server is up, check the endpoint's host and port in the store URL)";
  }
  if (code === "ENOTFOUND") {
    return " (the host name does not resolve: check the endpoint's host in the store URL)";
  }
  return "";
}

/** Statuses a web server answers for what it has not or does not do, which storage services answer in XML or JSON. */
export const WEB_PAGE_STATUSES: ReadonlySet<number> = new Set([400, 404, 405, 501]);

/**
 * True when a 400, 404, 405 or 501 came back as a web page: served as
 * `text/html`, or with a body that is an HTML document from its first
 * character. No storage service answers so: the endpoint names another
 * server (a wrong port, a proxy's page). A page for 403, 408, 429 or a 5xx
 * keeps that status's meaning (a refusal, or worth another attempt). This
 * is `not_the_service`.
 *
 * @example
 * ```ts
 * import { isWebPageAnswer } from "./failure.ts";
 * console.log(isWebPageAnswer(404, "text/html; charset=utf-8", "")); // true
 * console.log(isWebPageAnswer(404, "application/json", '{"message":"<html>.txt"}')); // false
 * ```
 */
export function isWebPageAnswer(
  status: number,
  contentType: string | undefined,
  bodyStart: string | undefined,
): boolean {
  if (!WEB_PAGE_STATUSES.has(status)) return false;
  if (/^\s*text\/html\b/i.test(contentType ?? "")) return true;
  return /^\s*(<!doctype html|<html)/i.test(bodyStart ?? "");
}
