/**
 * What one failed attempt of the S3 store means: {@link classifyS3Error}
 * reads the status, S3 code and transport code of what the SDK threw, against
 * what the request asked for, and tells a failed condition, a missing object,
 * a refusal of conditional writes, an outage, a configuration problem, or an
 * answer of another kind of server apart. Pure, so testable without a server.
 *
 * @module
 */
import { SluiceError } from "../../sync/errors.ts";
import {
  conditionFailureKind,
  type ErrorFields,
  fieldsOf,
  isTransientStatus,
  isWebPageAnswer,
  NOT_SENT_NET_CODES,
  textField,
  WEB_PAGE_STATUSES,
} from "../store_kit/failure.ts";
import { GCS_LIKE, PLAIN_TEXT } from "./config_hints.ts";
import {
  contentTypeOf,
  describeS3Error,
  netCodeOf,
  requestIdOf,
  s3CodeOf,
  statusOf,
} from "./error_detail.ts";
import {
  S3AttemptTimeout,
  type S3Failure,
  type S3FailureKind,
  type S3RequestContext,
} from "./failure.ts";

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

/**
 * True for a 400, 404, 405 or 501 served as JSON to anything but a HEAD
 * (which has no body to judge): S3 answers those in XML.
 */
function isJsonRefusal(e: ErrorFields, status: number, op?: string): boolean {
  if (op === "head" || !WEB_PAGE_STATUSES.has(status)) return false;
  return /^\s*application\/json\b/i.test(contentTypeOf(e) ?? "");
}

function mentionsConditionalHeader(e: ErrorFields): boolean {
  const hay = [e.Header, e.ArgumentName, e.ArgumentValue, e.message, e.Message, e.Code, e.body]
    .map((v) => typeof v === "string" ? v.toLowerCase() : "")
    .join(" ");
  return hay.includes("if-none-match") || hay.includes("if-match") ||
    hay.includes("ifnonematch") || hay.includes("ifmatch") || hay.includes("conditional");
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
