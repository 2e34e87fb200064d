/**
 * How answers of S3 and S3-compatible endpoints map to Sluice's typed errors.
 *
 * The functions here are pure: they look at an error thrown by
 * `@aws-sdk/client-s3` (or by the transport below it) and decide what it
 * means, so that they can be tested without a server. {@link S3Store} uses
 * {@link classifyS3Error} after every attempt and {@link toSluiceError} once
 * it stops retrying.
 *
 * @module
 */
import { ConfigError, preview, SluiceError } from "../../sync/errors.ts";
import {
  conditionFailureKind,
  type ErrorFields,
  fieldsOf,
  isTransientStatus,
  isWebPageAnswer,
  NOT_SENT_NET_CODES,
  redactCredentials,
  StoreAttemptTimeout,
  type StoreFailure,
  type StoreFailureKind,
  storeFailureToError,
  type StoreRequestContext,
  StoreRequestError,
  textField,
  TRANSIENT_NET_CODES,
  WEB_PAGE_STATUSES,
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

/** S3 error codes that mean "try again" whatever the status. */
const TRANSIENT_S3_CODES = new Set([
  "SlowDown",
  "RequestTimeout",
  "RequestTimeTooSkewed",
  "InternalError",
  "ServiceUnavailable",
  "ConditionalRequestConflict",
  "OperationAborted",
  "XMinioServerNotInitialized",
  "XMinioStorageFull",
]);

/** S3 error codes that refuse the object name itself (MinIO answers `..` segments so). */
const INVALID_NAME_CODES = new Set([
  "XMinioInvalidObjectName",
  "XMinioInvalidResourceName",
  "InvalidObjectName",
  "KeyTooLongError",
]);

/** Where {@link toSluiceError} says credentials come from when none were found. */
export const S3_CREDENTIALS_HINT =
  "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary keys) in the environment, or AWS_PROFILE naming a profile in ~/.aws/credentials or ~/.aws/config";

/** Error-body fields that may carry signatures or canonical requests: never shown. */
const SECRET_FIELDS = new Set([
  "StringToSign",
  "StringToSignBytes",
  "CanonicalRequest",
  "CanonicalRequestBytes",
  "SignatureProvided",
  "AWSAccessKeyId",
  "Authorization",
]);

/** Error-body fields worth a place in the preview, in this order. */
const PREVIEW_FIELDS = [
  "Condition",
  "Header",
  "ArgumentName",
  "ArgumentValue",
  "Key",
  "BucketName",
  "Resource",
  "body",
] as const;

/** Thrown by the store's own per-attempt timer; recognised by {@link classifyS3Error}. */
export class S3AttemptTimeout extends StoreAttemptTimeout {}

/**
 * An S3 request failed in a way that is neither a failed condition, a missing
 * object, a refusal of conditional writes nor an outage (for example a 400
 * the store did not expect). Never retried.
 */
export class S3RequestError extends StoreRequestError {
  constructor(ctx: S3RequestContext, failure: S3Failure, options: { cause?: unknown } = {}) {
    super(ctx, failure, { ...options, service: "the S3 endpoint" });
  }
}

/**
 * Strips the quotes (and a weak `W/` prefix) from an ETag.
 *
 * @example
 * ```ts
 * import { normaliseEtag } from "./errors.ts";
 * normaliseEtag('"9b2cf535f27731c974343645a3985328"'); // "9b2cf535f27731c974343645a3985328"
 * ```
 */
export function normaliseEtag(etag: string | undefined): string {
  if (!etag) return "";
  let e = etag.trim();
  if (e.startsWith("W/")) e = e.slice(2);
  if (e.length >= 2 && e.startsWith('"') && e.endsWith('"')) e = e.slice(1, -1);
  return e;
}

/**
 * Removes anything that could be a credential or a signed URL from a string
 * (query strings of URLs, `X-Amz-Signature`/`X-Amz-Credential`/security-token
 * parameters, `Authorization` values, the given literal secrets, and the rest
 * {@link redactCredentials} knows), leaving `‹redacted›` in their place.
 *
 * @example
 * ```ts
 * import { redact } from "./errors.ts";
 * redact("GET http://h/b/k?X-Amz-Signature=abc", ["AKIA1"]); // "GET http://h/b/k?…"
 * ```
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  return redactCredentials(text, { secrets });
}

function statusOf(e: ErrorFields): number | undefined {
  const meta = fieldsOf(e.$metadata);
  if (typeof meta.httpStatusCode === "number") return meta.httpStatusCode;
  const resp = fieldsOf(e.$response);
  return typeof resp.statusCode === "number" ? resp.statusCode : undefined;
}

function requestIdOf(e: ErrorFields): string | undefined {
  const meta = fieldsOf(e.$metadata);
  return textField(meta.requestId) ?? textField(e.RequestId) ??
    textField(fieldsOf(fieldsOf(e.$response).headers)["x-amz-request-id"]);
}

function hostIdOf(e: ErrorFields): string | undefined {
  const meta = fieldsOf(e.$metadata);
  return textField(meta.extendedRequestId) ?? textField(e.HostId);
}

/** The S3 code of an SDK error, ignoring the SDK's placeholders for empty bodies. */
function s3CodeOf(e: ErrorFields): string | undefined {
  const code = textField(e.Code) ?? textField(e.name);
  if (!code || code === "Unknown" || code === "UnknownError" || code === "Error") return undefined;
  return code;
}

/** A transport code found on the error or its causes. */
function netCodeOf(e: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const b = fieldsOf(e);
  const code = textField(b.code);
  if (code && (TRANSIENT_NET_CODES.has(code) || code.startsWith("E") || code.startsWith("UND_"))) {
    return code;
  }
  const msg = textField(b.message) ?? "";
  if (/socket hang up/i.test(msg)) return "ECONNRESET";
  if (/connection (reset|refused|closed)|broken pipe|network|ECONN|EPIPE/i.test(msg)) {
    const m = /\b(E[A-Z_]{3,})\b/.exec(msg);
    return m ? m[1] : "ECONNRESET";
  }
  return b.cause !== undefined ? netCodeOf(b.cause, depth + 1) : undefined;
}

/**
 * True for a 400, 404, 405 or 501 served as a web page (see
 * `isWebPageAnswer`), or as plain text to anything but a HEAD (a web
 * server's bare "404 page not found", as another kind of storage server
 * answers an S3 path): S3 answers those in XML, or for HEAD with no body.
 */
export function isWebPageRefusal(e: ErrorFields, status: number, op?: string): boolean {
  if (isPlainTextRefusal(e, status, op)) return true;
  return isWebPageAnswer(status, contentTypeOf(e), undefined);
}

/**
 * True for a 400, 404, 405 or 501 served as plain text to anything but a
 * HEAD: a web server's bare "404 page not found", or fake-gcs-server's
 * "Not Found" for an S3 path (which it answers so, where it answers its own
 * JSON API's paths in JSON).
 */
function isPlainTextRefusal(e: ErrorFields, status: number, op?: string): boolean {
  if (op === "head") return false;
  if (!/^\s*text\/plain\b/i.test(contentTypeOf(e) ?? "")) return false;
  return isWebPageAnswer(status, "text/html", undefined);
}

/** What a plain-text refusal is, for the message: a web server, or a GCS emulator named in an s3:// URL. */
const PLAIN_TEXT = {
  what: "a plain-text answer (a web server's, or fake-gcs-server's to an S3 path)",
  hint: "for GCS or fake-gcs-server, use a gs:// store URL",
};

/** What a JSON refusal is, for the message: most often a GCS endpoint named in an s3:// URL. */
const GCS_LIKE = {
  what: "a JSON error, as the Google Cloud Storage JSON API answers",
  hint: "for GCS or fake-gcs-server, use a gs:// store URL",
};

/**
 * True for a 400, 404, 405 or 501 served as JSON to anything but a HEAD
 * (which has no body to judge): S3 answers those in XML.
 */
function isJsonRefusal(e: ErrorFields, status: number, op?: string): boolean {
  if (op === "head" || !WEB_PAGE_STATUSES.has(status)) return false;
  return /^\s*application\/json\b/i.test(contentTypeOf(e) ?? "");
}

/** The answer's content type, as the SDK kept its headers. */
function contentTypeOf(e: ErrorFields): string | undefined {
  const headers = fieldsOf(fieldsOf(e.$response).headers);
  return textField(headers["content-type"]) ?? textField(headers["Content-Type"]);
}

function mentionsConditionalHeader(e: ErrorFields): boolean {
  const hay = [e.Header, e.ArgumentName, e.ArgumentValue, e.message, e.Message, e.Code, e.body]
    .map((v) => typeof v === "string" ? v.toLowerCase() : "")
    .join(" ");
  return hay.includes("if-none-match") || hay.includes("if-match") ||
    hay.includes("ifnonematch") || hay.includes("ifmatch") || hay.includes("conditional");
}

/**
 * One safe line describing an SDK or transport error: HTTP status, code,
 * message, request and host ids, and a short preview of the response body
 * fields. Signed URLs, signatures, canonical requests and the given secrets
 * are removed.
 *
 * @example
 * ```ts
 * import { describeS3Error } from "./errors.ts";
 * const e = Object.assign(new Error("At least one of the pre-conditions you specified did not hold"), {
 *   name: "PreconditionFailed",
 *   $metadata: { httpStatusCode: 412, requestId: "R1" },
 * });
 * describeS3Error(e); // "HTTP 412 PreconditionFailed: At least one of … (request id R1)"
 * ```
 */
export function describeS3Error(err: unknown, secrets: readonly string[] = []): string {
  if (err instanceof S3AttemptTimeout) return `timed out: ${err.message}`;
  const e = fieldsOf(err);
  const parts: string[] = [];
  const status = statusOf(e);
  const code = s3CodeOf(e);
  const net = status === undefined ? netCodeOf(err) : undefined;
  if (status !== undefined) parts.push(`HTTP ${status}`);
  if (code && code !== net) parts.push(code);
  else if (net) parts.push(net);
  let head = parts.join(" ");
  // The SDK's advice to its own callers (a hidden field to inspect) says nothing to a user.
  const message = (textField(e.message) ?? textField(e.Message))
    ?.replace(
      /\s*Deserialization error: to see the raw response, inspect the hidden field \{error\}\.\$response on this object\.?/,
      "",
    )
    .trim();
  if (message && message !== "UnknownError" && message !== code) {
    head += `${head ? ": " : ""}${preview(message, 160)}`;
  }
  const extras: string[] = [];
  for (const field of PREVIEW_FIELDS) {
    const v = textField(e[field]);
    if (v) {
      extras.push(
        field === "body" ? `body ${JSON.stringify(preview(v, 120))}` : `${field} ${preview(v, 60)}`,
      );
    }
  }
  for (const [k, v] of Object.entries(e)) {
    if (SECRET_FIELDS.has(k)) continue;
    if (
      /^[A-Z]/.test(k) && !["Code", "Message", "RequestId", "HostId"].includes(k) &&
      !(PREVIEW_FIELDS as readonly string[]).includes(k) && typeof v === "string" &&
      extras.length < 6
    ) {
      extras.push(`${k} ${preview(v, 60)}`);
    }
  }
  const ids: string[] = [];
  const rid = requestIdOf(e);
  if (rid) ids.push(`request id ${rid}`);
  const hid = hostIdOf(e);
  if (hid) ids.push(`host id ${preview(hid, 40)}`);
  let line = head || (err instanceof Error ? err.name : "unknown error");
  if (extras.length) line += `; ${extras.join(", ")}`;
  if (ids.length) line += ` (${ids.join(", ")})`;
  return redact(line, secrets);
}

/**
 * Decides what one failed attempt means. Pure: looks only at the error and
 * at what the request asked for.
 *
 * @param err what `S3Client.send` (or the store's timer) threw
 * @param ctx the request: operation, key and condition
 * @param callerSignal the caller's signal; when it is aborted the failure is `aborted`
 * @param secrets literal strings to remove from the detail (static credentials)
 *
 * @example
 * ```ts
 * import { classifyS3Error } from "./errors.ts";
 * const e = Object.assign(new Error("UnknownError"), { name: "Unknown", $metadata: { httpStatusCode: 304 } });
 * classifyS3Error(e, { op: "put", key: "k", condition: "create" }).kind; // "already_exists"
 * ```
 */
export function classifyS3Error(
  err: unknown,
  ctx: S3RequestContext,
  callerSignal?: AbortSignal,
  secrets: readonly string[] = [],
): S3Failure {
  const e = fieldsOf(err);
  const status = statusOf(e);
  const code = s3CodeOf(e) ?? (status === undefined ? netCodeOf(err) : undefined);
  const requestId = requestIdOf(e);
  const detail = describeS3Error(err, secrets);
  const make = (kind: S3FailureKind, ambiguous = false): S3Failure => ({
    kind,
    status,
    code,
    requestId,
    ambiguous,
    detail,
  });

  if (callerSignal?.aborted) return make("aborted", true);
  if (err instanceof S3AttemptTimeout) return make("transient", true);
  if (err instanceof SluiceError) {
    // Already mapped (for example by an injected client); keep its meaning.
    return make(err.code === "unreachable" ? "transient" : "failed", err.code === "unreachable");
  }

  if (status === undefined) {
    const name = textField(e.name);
    // The SDK's credential chain found nothing: no request was signed or sent.
    if (name === "CredentialsProviderError") return make("credentials_missing");
    if (name === "AbortError" || name === "TimeoutError") return make("transient", true);
    const net = netCodeOf(err);
    if (net) return make("transient", !NOT_SENT_NET_CODES.has(net));
    return make("failed");
  }

  // A web page for a refusal: another kind of server (a wrong port, a
  // proxy's page). Read as a missing object, it would pass for an empty datastore.
  if (isPlainTextRefusal(e, status, ctx.op)) {
    return { ...make("not_the_service"), foreign: PLAIN_TEXT };
  }
  // Its detail is the status alone: the SDK's own words are a failed parse of the page's HTML.
  if (isWebPageRefusal(e, status, ctx.op)) {
    return { ...make("not_the_service"), detail: `HTTP ${status}` };
  }
  // A JSON error: the GCS JSON API's answer (fake-gcs-server's too); S3 answers in XML.
  if (isJsonRefusal(e, status, ctx.op)) return { ...make("not_the_service"), foreign: GCS_LIKE };
  // MinIO's console port answers S3 requests so: the endpoint names the wrong port.
  if (status === 400 && /must be made to API port/i.test(textField(e.message) ?? "")) {
    return { ...make("not_the_service"), detail: `HTTP 400: ${textField(e.message)}` };
  }

  const conditional = ctx.condition !== undefined;
  if (conditional) {
    if (status === 412 || status === 304 || code === "PreconditionFailed") {
      return make(conditionFailureKind(ctx.condition));
    }
    if (status === 409 && (code === undefined || code === "ConditionalRequestConflict")) {
      return make("transient", false);
    }
    if (status === 501 || code === "NotImplemented") return make("not_implemented");
    if (status === 400 && mentionsConditionalHeader(e)) return make("not_implemented");
    if (
      status === 404 && code !== "NoSuchBucket" &&
      (ctx.condition === "update" || ctx.condition === "delete")
    ) {
      return make("precondition_failed");
    }
  }

  if (code === "NoSuchBucket") return make("bucket_missing");
  if (code !== undefined && INVALID_NAME_CODES.has(code)) return make("invalid_name");
  if (status === 404 || code === "NoSuchKey" || code === "NotFound") return make("not_found");
  if (
    status === 403 &&
    (code === undefined || code === "AccessDenied" || code === "InvalidAccessKeyId" ||
      code === "SignatureDoesNotMatch" || code === "InvalidToken" || code === "ExpiredToken")
  ) {
    return make("access_denied");
  }
  if (status === 501 || code === "NotImplemented") return make("failed");
  if (code !== undefined && TRANSIENT_S3_CODES.has(code)) return make("transient", status >= 500);
  if (isTransientStatus(status)) return make("transient", status >= 500);
  return make("failed");
}

/**
 * Turns a classified failure into the typed error the store throws: a
 * refusal S3 gave no other meaning is an {@link S3RequestError}; every other
 * kind maps as on every backend, see {@link storeFailureToError}.
 *
 * @param attempts how many attempts were made (shown for outages)
 * @param where the store's endpoint description and prefix, named in messages
 *
 * @example
 * ```ts
 * import { classifyS3Error, toSluiceError } from "./errors.ts";
 * const err = Object.assign(new Error("x"), { name: "PreconditionFailed", $metadata: { httpStatusCode: 412 } });
 * const ctx = { op: "put", key: "k", condition: "update" } as const;
 * toSluiceError(classifyS3Error(err, ctx), ctx, err, 1); // PreconditionFailedError
 * ```
 */
export function toSluiceError(
  failure: S3Failure,
  ctx: S3RequestContext,
  cause: unknown,
  attempts: number,
  where: { readonly endpoint?: string; readonly prefix?: string } = {},
): SluiceError {
  if (failure.kind === "failed") {
    // Signed for another region than the bucket's: the same refusal at every
    // attempt, whose way out is the configured region.
    const region = bucketRegionOf(failure, cause);
    if (region !== undefined) {
      return new ConfigError(
        "region",
        `the bucket ${
          ctx.bucket ?? "(unknown)"
        } is in region ${region}, not the one this store signs its requests for: ${
          where.endpoint ?? "the S3 endpoint"
        } refused the ${ctx.op} of ${ctx.key} (${failure.detail}), so nothing was read or written; set the region to "${region}" (the datastore configuration's "region", or the store URL's region=)`,
        { cause },
      );
    }
    return new S3RequestError(ctx, failure, { cause });
  }
  return storeFailureToError(failure, ctx, {
    cause,
    attempts,
    service: "the S3 endpoint",
    credentialsHint: S3_CREDENTIALS_HINT,
    ...where,
  });
}

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
function bucketRegionOf(failure: S3Failure, cause: unknown): string | undefined {
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
