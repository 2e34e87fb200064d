/**
 * How answers of Google Cloud Storage (and of GCS emulators) map to Sluice's
 * typed errors.
 *
 * The functions here are pure: they look at an error thrown by
 * `@google-cloud/storage` (an `ApiError` with an HTTP status, a transport
 * error with a code such as `ECONNREFUSED`, or the store's own per-attempt
 * timeout) and decide what it means, so that they can be tested without a
 * server. {@link GcsStore} calls {@link classifyGcsError} after every attempt
 * and {@link toSluiceError} once it stops retrying.
 *
 * @module
 */
import { AbortedError, ConfigError, preview, SluiceError } from "../../sync/errors.ts";
import {
  conditionFailureKind,
  describeRequest,
  type ErrorFields,
  fieldsOf,
  isTransientStatus,
  isWebPageAnswer,
  NOT_SENT_NET_CODES,
  redactCredentials,
  STORE_TIMEOUT_CODE,
  StoreAttemptTimeout,
  type StoreFailure,
  type StoreFailureKind,
  storeFailureToError,
  type StoreRequestContext,
  textField,
  TRANSIENT_NET_CODES,
  WEB_PAGE_STATUSES,
} from "../store_kit/failure.ts";
import { GCS_CREDENTIALS_HINT } from "./credentials.ts";

/**
 * What the failed request asked for; decides how a status is read. Its
 * `condition` is `create` (`ifGenerationMatch=0`), `update`
 * (`ifGenerationMatch=<generation>` on an upload) or `delete`
 * (`ifGenerationMatch=<generation>` on a delete).
 */
export type GcsRequestContext = StoreRequestContext;

/**
 * The meaning of one failed attempt.
 *
 * - `already_exists`: a create found the key (412).
 * - `precondition_failed`: an update or conditional delete found another
 *   generation or no object (412; 404 on a delete that names a generation).
 * - `not_found`: the object (or, on a read, possibly the bucket) is absent
 *   (404; the store tells a missing bucket apart with a bucket read).
 * - `bucket_missing`: a 404 on an upload or a listing: only the bucket can
 *   be missing there.
 * - `credentials_missing`: the auth library found no Application Default
 *   Credentials (nothing was sent).
 * - `invalid_name`: a 400 that refuses the object name.
 * - `not_implemented`: the endpoint refuses generation preconditions (501, or
 *   a 400 that names the precondition).
 * - `transient`: worth another attempt: transport errors, timeouts, 408, 429,
 *   5xx other than 501, a download whose checksum did not match.
 * - `aborted`: the caller cancelled.
 * - `access_denied`: 401 or 403, a credentials or permissions problem; never retried.
 * - `failed`: anything else, never retried.
 */
export type GcsFailureKind = StoreFailureKind;

/**
 * A classified failure with the facts needed for a safe message; its `code`
 * is the GCS error reason (`conditionNotMet`, `notFound`, …) or a transport
 * code, its `requestId` from `x-guploader-uploadid` or `x-goog-request-id`.
 */
export type GcsFailure = StoreFailure<GcsFailureKind>;

/**
 * The error an attempt fails with when it did not settle within the store's
 * `requestTimeoutMs`. Classified as transient and ambiguous.
 *
 * @example
 * ```ts
 * import { classifyGcsError, GcsRequestTimeout } from "./errors.ts";
 * const f = classifyGcsError(new GcsRequestTimeout(5000), { op: "get", key: "k" });
 * console.log(f.kind); // "transient"
 * ```
 */
export class GcsRequestTimeout extends StoreAttemptTimeout {}

/** The SDK's code for a download whose CRC32C / MD5 did not match the server's hash. */
const DOWNLOAD_MISMATCH_CODE = "CONTENT_DOWNLOAD_MISMATCH";

/** Headers that carry a request id on GCS answers. */
const REQUEST_ID_HEADERS = ["x-goog-request-id", "x-guploader-uploadid", "x-request-id"];

/** What a 400 says when it refuses an object name. */
const INVALID_NAME_WORDS =
  /(invalid|not valid|illegal)[^.;]{0,40}\bname\b|\bname\b[^.;]{0,40}(invalid|not valid|illegal)/i;

/** The auth library's message when it found no Application Default Credentials. */
const NO_ADC_WORDS = /could not load the default credentials/i;

/** Words a 400 uses when it refuses the precondition parameter itself. */
const PRECONDITION_WORDS = /ifGenerationMatch|if-generation-match|precondition|generation/i;

/**
 * Removes what must never reach a message (bearer tokens, OAuth tokens and
 * keys in JSON, passwords in URLs, whole query strings of URLs: signed URLs
 * carry their signature there), leaving `…` in their place.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./errors.ts";
 * redactSecrets("GET https://h/o?X-Goog-Signature=abc failed"); // "GET https://h/o?… failed"
 * ```
 */
export function redactSecrets(text: string): string {
  return redactCredentials(text, { mask: "…" });
}

/** The HTTP status of an SDK error, if the server answered. */
function statusOf(err: ErrorFields): number | undefined {
  if (typeof err.code === "number" && err.code >= 100 && err.code < 600) return err.code;
  const response = fieldsOf(err.response);
  const fromResponse = response.statusCode ?? response.status;
  if (typeof fromResponse === "number" && fromResponse >= 100 && fromResponse < 600) {
    return fromResponse;
  }
  if (typeof err.status === "number" && err.status >= 100 && err.status < 600) return err.status;
  return undefined;
}

/** A header value from a plain object or a `Headers`-like object. */
function header(headers: unknown, name: string): string | undefined {
  if (headers && typeof (headers as { get?: unknown }).get === "function") {
    const v = (headers as { get(n: string): unknown }).get(name);
    return textField(v);
  }
  for (const [k, v] of Object.entries(fieldsOf(headers))) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? textField(v[0]) : textField(v);
  }
  return undefined;
}

function requestIdOf(err: ErrorFields): string | undefined {
  const headers = fieldsOf(err.response).headers;
  for (const name of REQUEST_ID_HEADERS) {
    const v = header(headers, name);
    if (v) return preview(v, 120);
  }
  return undefined;
}

/**
 * True for a 400, 404, 405 or 501 that is a web page (see
 * `isWebPageAnswer`): by its type, or by its body (or message) starting as
 * HTML. GCS answers in JSON, whose message may name an object with any
 * characters in it, so only the start counts.
 */
function isWebPage(err: ErrorFields, status: number): boolean {
  const headers = fieldsOf(err.response).headers;
  return isWebPageAnswer(status, header(headers, "content-type"), answerStart(err));
}

/** The start of the answer's body, or of the error's message when the body is not kept. */
function answerStart(err: ErrorFields): string | undefined {
  const body = fieldsOf(err.response).body;
  return typeof body === "string"
    ? body
    : body instanceof Uint8Array
    ? new TextDecoder().decode(body.subarray(0, 64))
    : textField(err.message);
}

/** What an XML refusal is, for the message: most often an S3 endpoint named in a gs:// URL. */
const S3_LIKE = {
  what: "an XML error, as S3-compatible servers answer",
  hint:
    "for an S3 endpoint such as MinIO, use an s3:// store URL (through swamp, the @sluice/s3-datastore type)",
};

/**
 * True for a 400, 401, 403, 404, 405 or 501 in XML (by its type, or a body
 * or message starting `<?xml` or `<Error>`): S3-compatible servers answer
 * so (a 403 to a request they cannot read as signed); the GCS JSON API,
 * which the client speaks, never does.
 */
function isXmlRefusal(err: ErrorFields, status: number): boolean {
  if (!WEB_PAGE_STATUSES.has(status) && status !== 401 && status !== 403) return false;
  const type = header(fieldsOf(err.response).headers, "content-type") ?? "";
  return /^\s*(application|text)\/xml\b/i.test(type) ||
    /^\s*(<\?xml\b|<Error>)/i.test(answerStart(err) ?? "");
}

/** The GCS error reason (`conditionNotMet`, …) from an ApiError's `errors`. */
function reasonOf(err: ErrorFields): string | undefined {
  if (Array.isArray(err.errors)) {
    for (const e of err.errors) {
      const reason = textField(fieldsOf(e).reason);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** The most useful text an error carries: inner messages, the body, or the message. */
function textOf(err: ErrorFields): string {
  const parts: string[] = [];
  if (Array.isArray(err.errors)) {
    for (const e of err.errors) {
      const m = textField(fieldsOf(e).message);
      if (m && !parts.includes(m)) parts.push(m);
    }
  }
  const message = textField(err.message);
  if (message && !parts.includes(message.trim())) parts.push(message.trim());
  if (parts.length === 0) {
    const body = fieldsOf(err.response).body;
    if (typeof body === "string") parts.push(body);
    else if (body instanceof Uint8Array) parts.push(new TextDecoder().decode(body));
  }
  return parts.join("; ");
}

/** A transport code (`ECONNRESET`, …) from the error or its cause chain. */
function netCodeOf(err: ErrorFields): string | undefined {
  let cur: ErrorFields | undefined = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = textField(cur.code) ?? textField(cur.errno);
    if (code && (TRANSIENT_NET_CODES.has(code) || code === DOWNLOAD_MISMATCH_CODE)) return code;
    if (cur.type === "request-timeout") return "ETIMEDOUT";
    cur = cur.cause === undefined ? undefined : fieldsOf(cur.cause);
  }
  const name = textField(err.name) ?? "";
  const message = textField(err.message) ?? "";
  if (name === "AbortError" && /timeout/i.test(message)) return "ETIMEDOUT";
  if (/socket hang up|network timeout|premature close|other side closed/i.test(message)) {
    return "ECONNRESET";
  }
  return undefined;
}

function detailOf(
  parts: { status?: number; code?: string; requestId?: string; text: string },
): string {
  const head = [
    parts.status !== undefined ? `HTTP ${parts.status}` : undefined,
    parts.code,
    parts.requestId ? `request id ${parts.requestId}` : undefined,
  ].filter((x) => x !== undefined).join(", ");
  const body = preview(redactSecrets(parts.text), 200);
  return [head, body].filter((x) => x.length > 0).join(": ") || "no details";
}

/**
 * Classifies one failed attempt of a GCS request.
 *
 * @example
 * ```ts
 * import { classifyGcsError } from "./errors.ts";
 * const f = classifyGcsError({ code: 412, message: "Precondition failed" }, {
 *   op: "put",
 *   key: "a",
 *   condition: "create",
 * });
 * console.log(f.kind); // "already_exists"
 * ```
 */
export function classifyGcsError(err: unknown, ctx: GcsRequestContext): GcsFailure {
  if (err instanceof AbortedError) {
    return { kind: "aborted", ambiguous: true, detail: "cancelled" };
  }
  const bag = typeof err === "object" && err !== null ? fieldsOf(err) : { message: String(err) };
  const status = statusOf(bag);
  const requestId = requestIdOf(bag);
  const text = textOf(bag);
  if (status !== undefined) {
    const code = reasonOf(bag);
    const detail = detailOf({ status, code, requestId, text });
    const base = { status, code, requestId, detail };
    // A web page for what GCS answers in JSON: another kind of server (a
    // wrong port, a proxy's page). Read as a missing object or bucket, it
    // would send the user to create a bucket on the wrong server.
    if (isWebPage(bag, status)) {
      return { ...base, kind: "not_the_service", ambiguous: false };
    }
    // An XML error: an S3 server's answer (GCS's JSON API answers in JSON).
    if (isXmlRefusal(bag, status)) {
      return { ...base, kind: "not_the_service", ambiguous: false, foreign: S3_LIKE };
    }
    if (status === 412 || (status === 304 && ctx.condition !== undefined)) {
      // A 412 on a request without a precondition is not a conflict.
      const kind = ctx.condition === undefined ? "failed" : conditionFailureKind(ctx.condition);
      return { ...base, kind, ambiguous: false };
    }
    if (status === 404) {
      if (ctx.condition === "delete") {
        return { ...base, kind: "precondition_failed", ambiguous: false };
      }
      // An upload or a listing names no object that could be missing: the bucket is.
      if (ctx.op === "put" || ctx.op === "list") {
        return { ...base, kind: "bucket_missing", ambiguous: false };
      }
      return { ...base, kind: "not_found", ambiguous: false };
    }
    if (status === 400 && INVALID_NAME_WORDS.test(text) && !PRECONDITION_WORDS.test(text)) {
      return { ...base, kind: "invalid_name", ambiguous: false };
    }
    if (ctx.condition !== undefined) {
      if (status === 501) return { ...base, kind: "not_implemented", ambiguous: false };
      if (status === 400 && PRECONDITION_WORDS.test(text)) {
        return { ...base, kind: "not_implemented", ambiguous: false };
      }
    }
    if (status === 401 || status === 403) {
      return { ...base, kind: "access_denied", ambiguous: false };
    }
    if (isTransientStatus(status)) return { ...base, kind: "transient", ambiguous: true };
    return { ...base, kind: "failed", ambiguous: false };
  }
  const code = netCodeOf(bag);
  if (code !== undefined) {
    // The store's own deadline reads as S3's does, never by its internal code.
    const detail = code === STORE_TIMEOUT_CODE
      ? `timed out: ${redactSecrets(text)}`
      : detailOf({ code, requestId, text });
    return {
      kind: "transient",
      code,
      requestId,
      // A mismatched download changed nothing; a refused connection never arrived.
      ambiguous: code !== DOWNLOAD_MISMATCH_CODE && !NOT_SENT_NET_CODES.has(code),
      detail,
    };
  }
  if (NO_ADC_WORDS.test(text)) {
    return { kind: "credentials_missing", ambiguous: false, detail: detailOf({ text }) };
  }
  const name = textField(bag.name);
  return {
    kind: "failed",
    ambiguous: false,
    detail: detailOf({ code: name && name !== "Error" ? name : undefined, text }),
  };
}

/**
 * A plain error that keeps the safe facts of an SDK error (class name and a
 * redacted message), used as `cause` so that no request object, header or
 * token travels with a Sluice error.
 */
function safeCause(err: unknown): Error {
  const fields = fieldsOf(err);
  const e = new Error(preview(redactSecrets(textField(fields.message) ?? String(err)), 300));
  e.name = textField(fields.name) ?? "Error";
  return e;
}

/** How to create a missing GCS bucket: the command needs the project to create it in. */
const GCS_CREATE_BUCKET_HINT =
  "`sluice bucket create <store-url>`, with `project=<id>` in the URL's query (or GOOGLE_CLOUD_PROJECT set): the project it is created in";

/**
 * Turns a classified failure into the typed error the store throws, with the
 * request id and a short redacted body preview in its message. GCS's own
 * cases come first (a download
 * that kept failing its checksum is corrupt; refused credentials are an
 * outage not worth retrying); every other kind maps as on every backend, see
 * {@link storeFailureToError}.
 *
 * @example
 * ```ts
 * import { classifyGcsError, toSluiceError } from "./errors.ts";
 * const ctx = { op: "get" as const, key: "a", bucket: "b" };
 * const e = toSluiceError(classifyGcsError({ code: 503 }, ctx), ctx, "gs://b", { code: 503 });
 * console.log(e.code); // "unreachable"
 * ```
 */
export function toSluiceError(
  failure: GcsFailure,
  ctx: GcsRequestContext,
  endpoint: string,
  cause?: unknown,
  attempts = 1,
  prefix?: string,
): SluiceError {
  const options = cause === undefined ? {} : { cause: safeCause(cause) };
  const where = describeRequest(ctx, endpoint);
  if (failure.kind === "transient" && failure.code === DOWNLOAD_MISMATCH_CODE) {
    return new SluiceError(
      "corrupt_download",
      `The download of ${ctx.key} from ${endpoint} did not match its checksum after ${attempts} attempt${
        attempts === 1 ? "" : "s"
      } (${failure.detail}). Nothing was written locally; run the sync again.`,
      { ...options, retryable: true },
    );
  }
  if (failure.kind === "access_denied") {
    // As on S3: refused credentials are a configuration problem, never retried.
    return new ConfigError(
      "credentials",
      `GCS refused the ${where} (${failure.detail}); valid Application Default Credentials (\`gcloud auth application-default login\` or GOOGLE_APPLICATION_CREDENTIALS) with access to the bucket`,
      options,
    );
  }
  return storeFailureToError(failure, ctx, {
    ...options,
    endpoint,
    attempts,
    service: "GCS",
    endpointKey: "apiEndpoint",
    credentialsHint: GCS_CREDENTIALS_HINT,
    createBucketHint: GCS_CREATE_BUCKET_HINT,
    ...(prefix === undefined ? {} : { prefix }),
  });
}
