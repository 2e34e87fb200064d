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
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  preview,
  SluiceError,
  UnreachableError,
} from "../../sync/errors.ts";

/** The store operation that failed, as named in messages. */
export type GcsOperation = "get" | "head" | "put" | "delete" | "list";

/** What the failed request asked for; decides how a status is read. */
export interface GcsRequestContext {
  /** The operation. */
  readonly op: GcsOperation;
  /** Store-relative key (or list prefix). */
  readonly key: string;
  /**
   * The precondition the request carried: `create` (`ifGenerationMatch=0`),
   * `update` (`ifGenerationMatch=<generation>` on an upload) or `delete`
   * (`ifGenerationMatch=<generation>` on a delete).
   */
  readonly condition?: "create" | "update" | "delete";
  /** The bucket, for messages about a missing bucket. */
  readonly bucket?: string;
}

/**
 * The meaning of one failed attempt.
 *
 * - `already_exists`: a create found the key (412).
 * - `precondition_failed`: an update or conditional delete found another
 *   generation or no object (412; 404 on a delete that names a generation).
 * - `not_found`: the object (or the bucket) is absent (404).
 * - `not_implemented`: the endpoint refuses generation preconditions (501, or
 *   a 400 that names the precondition).
 * - `transient`: worth another attempt: transport errors, timeouts, 408, 429,
 *   5xx other than 501, a download whose checksum did not match.
 * - `aborted`: the caller cancelled.
 * - `access_denied`: 401 or 403, a credentials or permissions problem; never retried.
 * - `failed`: anything else, never retried.
 */
export type GcsFailureKind =
  | "already_exists"
  | "precondition_failed"
  | "not_found"
  | "not_implemented"
  | "transient"
  | "aborted"
  | "access_denied"
  | "failed";

/** A classified failure with the facts needed for a safe message. */
export interface GcsFailure {
  /** What it means; see {@link GcsFailureKind}. */
  readonly kind: GcsFailureKind;
  /** HTTP status, when there was a response. */
  readonly status?: number;
  /** The GCS error reason (`conditionNotMet`, `notFound`, …) or transport code (`ECONNRESET`). */
  readonly code?: string;
  /** A request id the endpoint gave (`x-guploader-uploadid`, `x-goog-request-id`), if any. */
  readonly requestId?: string;
  /**
   * True when the request may have taken effect although it failed (the
   * response was lost: transport error after sending, timeout, 5xx).
   */
  readonly ambiguous: boolean;
  /** One line for messages: status, reason, request id and a short body preview, redacted. */
  readonly detail: string;
}

/** Code of the store's own per-attempt deadline error, see {@link GcsRequestTimeout}. */
export const GCS_TIMEOUT_CODE = "SLUICE_REQUEST_TIMEOUT";

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
export class GcsRequestTimeout extends Error {
  /** Always {@link GCS_TIMEOUT_CODE}. */
  readonly code: string = GCS_TIMEOUT_CODE;
  /** The deadline that passed. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "GcsRequestTimeout";
    this.timeoutMs = timeoutMs;
  }
}

/** Transport error codes (Node, Deno, node-fetch) that mean "try again". */
const TRANSIENT_NET_CODES = new Set([
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
  GCS_TIMEOUT_CODE,
]);

/** Transport error codes that are certain the request never reached the server. */
const NOT_SENT_NET_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH"]);

/** The SDK's code for a download whose CRC32C / MD5 did not match the server's hash. */
const DOWNLOAD_MISMATCH_CODE = "CONTENT_DOWNLOAD_MISMATCH";

/** HTTP statuses worth another attempt. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/** Headers that carry a request id on GCS answers. */
const REQUEST_ID_HEADERS = ["x-goog-request-id", "x-guploader-uploadid", "x-request-id"];

/** Words a 400 uses when it refuses the precondition parameter itself. */
const PRECONDITION_WORDS = /ifGenerationMatch|if-generation-match|precondition|generation/i;

/**
 * Removes what must never reach a message: bearer tokens, OAuth tokens and
 * keys in JSON, passwords in URLs, and whole query strings of URLs (signed
 * URLs carry their signature there).
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./errors.ts";
 * redactSecrets("GET https://h/o?X-Goog-Signature=abc failed"); // "GET https://h/o?… failed"
 * ```
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(https?:\/\/)[^/\s:@]+:[^/\s@]+@/gi, "$1…@")
    .replace(/\b(https?:\/\/[^\s?#"']*)\?[^\s"']*/gi, "$1?…")
    .replace(/("?authorization"?\s*[:=]\s*)("[^"]*"|[^\r\n,}]+)/gi, "$1…")
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, "$1 …")
    .replace(
      /("?(?:access_token|refresh_token|id_token|private_key|client_secret)"?\s*[:=]\s*)("[^"]*"|[^\s,}&]+)/gi,
      "$1…",
    )
    .replace(
      /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
      "…",
    );
}

type Bag = Record<string, unknown>;

function asBag(x: unknown): Bag | undefined {
  return typeof x === "object" && x !== null ? (x as Bag) : undefined;
}

function str(x: unknown): string | undefined {
  return typeof x === "string" && x.length > 0 ? x : undefined;
}

/** The HTTP status of an SDK error, if the server answered. */
function statusOf(err: Bag): number | undefined {
  if (typeof err.code === "number" && err.code >= 100 && err.code < 600) return err.code;
  const response = asBag(err.response);
  const fromResponse = response?.statusCode ?? response?.status;
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
    return str(v);
  }
  const bag = asBag(headers);
  if (!bag) return undefined;
  for (const [k, v] of Object.entries(bag)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? str(v[0]) : str(v);
  }
  return undefined;
}

function requestIdOf(err: Bag): string | undefined {
  const headers = asBag(err.response)?.headers;
  for (const name of REQUEST_ID_HEADERS) {
    const v = header(headers, name);
    if (v) return preview(v, 120);
  }
  return undefined;
}

/** The GCS error reason (`conditionNotMet`, …) from an ApiError's `errors`. */
function reasonOf(err: Bag): string | undefined {
  if (Array.isArray(err.errors)) {
    for (const e of err.errors) {
      const reason = str(asBag(e)?.reason);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** The most useful text an error carries: inner messages, the body, or the message. */
function textOf(err: Bag): string {
  const parts: string[] = [];
  if (Array.isArray(err.errors)) {
    for (const e of err.errors) {
      const m = str(asBag(e)?.message);
      if (m && !parts.includes(m)) parts.push(m);
    }
  }
  const message = str(err.message);
  if (message && !parts.includes(message.trim())) parts.push(message.trim());
  if (parts.length === 0) {
    const body = asBag(err.response)?.body;
    if (typeof body === "string") parts.push(body);
    else if (body instanceof Uint8Array) parts.push(new TextDecoder().decode(body));
  }
  return parts.join("; ");
}

/** A transport code (`ECONNRESET`, …) from the error or its cause chain. */
function netCodeOf(err: Bag): string | undefined {
  let cur: Bag | undefined = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = str(cur.code) ?? str(cur.errno);
    if (code && (TRANSIENT_NET_CODES.has(code) || code === DOWNLOAD_MISMATCH_CODE)) return code;
    if (cur.type === "request-timeout") return "ETIMEDOUT";
    cur = asBag(cur.cause);
  }
  const name = str(err.name) ?? "";
  const message = str(err.message) ?? "";
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
  const bag = asBag(err) ?? { message: String(err) };
  const status = statusOf(bag);
  const requestId = requestIdOf(bag);
  const text = textOf(bag);
  if (status !== undefined) {
    const code = reasonOf(bag);
    const detail = detailOf({ status, code, requestId, text });
    const base = { status, code, requestId, detail };
    if (status === 412 || (status === 304 && ctx.condition !== undefined)) {
      if (ctx.condition === "create") return { ...base, kind: "already_exists", ambiguous: false };
      if (ctx.condition !== undefined) {
        return { ...base, kind: "precondition_failed", ambiguous: false };
      }
      return { ...base, kind: "failed", ambiguous: false };
    }
    if (status === 404) {
      if (ctx.condition === "delete") {
        return { ...base, kind: "precondition_failed", ambiguous: false };
      }
      return { ...base, kind: "not_found", ambiguous: false };
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
    const detail = detailOf({ code, requestId, text });
    return {
      kind: "transient",
      code,
      requestId,
      // A mismatched download changed nothing; a refused connection never arrived.
      ambiguous: code !== DOWNLOAD_MISMATCH_CODE && !NOT_SENT_NET_CODES.has(code),
      detail,
    };
  }
  const name = str(bag.name);
  return {
    kind: "failed",
    ambiguous: false,
    detail: detailOf({ code: name && name !== "Error" ? name : undefined, text }),
  };
}

/** True when another attempt may succeed. */
export function isTransient(failure: GcsFailure): boolean {
  return failure.kind === "transient";
}

/**
 * A plain error that keeps the safe facts of an SDK error (class name and a
 * redacted message), used as `cause` so that no request object, header or
 * token travels with a Sluice error.
 */
function safeCause(err: unknown): Error {
  const bag = asBag(err);
  const name = str(bag?.name) ?? "Error";
  const e = new Error(preview(redactSecrets(str(bag?.message) ?? String(err)), 300));
  e.name = name;
  return e;
}

/**
 * Turns a classified failure into the typed error the store throws, with the
 * request id and a short redacted body preview in its message.
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
): SluiceError {
  const options = cause === undefined ? {} : { cause: safeCause(cause) };
  const where = `${ctx.op} of ${ctx.key} at ${endpoint}`;
  switch (failure.kind) {
    case "already_exists":
      return new AlreadyExistsError(ctx.key, undefined, options);
    case "precondition_failed":
      return new PreconditionFailedError(
        ctx.key,
        failure.status === 404
          ? "it does not exist, or no longer has that generation"
          : `generation precondition not met; ${failure.detail}`,
        options,
      );
    case "not_found":
      if (ctx.op === "get" || ctx.op === "head") return new NotFoundError(ctx.key, options);
      return new SluiceError(
        "not_found",
        `GCS answered "not found" to the ${where} (${failure.detail}): the bucket ${
          ctx.bucket ?? ""
        } probably does not exist. Nothing was written; check the bucket name in the datastore configuration.`,
        options,
      );
    case "not_implemented":
      return new NotImplementedError(ctx.key, `${endpoint}: ${failure.detail}`, options);
    case "transient":
      if (failure.code === DOWNLOAD_MISMATCH_CODE) {
        return new SluiceError(
          "corrupt_download",
          `The download of ${ctx.key} from ${endpoint} did not match its checksum after ${attempts} attempt(s) (${failure.detail}). Nothing was written locally; run the sync again.`,
          { ...options, retryable: true },
        );
      }
      return new UnreachableError(
        `the ${where} failed after ${attempts} attempt(s) (${failure.detail})`,
        options,
      );
    case "aborted":
      return new AbortedError(`The ${where}`, options);
    case "access_denied":
      return new SluiceError(
        "unreachable",
        `GCS refused the ${where} (${failure.detail}). Nothing was changed. Check the credentials (Application Default Credentials: \`gcloud auth application-default login\` or GOOGLE_APPLICATION_CREDENTIALS) and the bucket's IAM permissions, then run the command again.`,
        { ...options, retryable: false },
      );
    case "failed":
      return new SluiceError(
        "internal",
        `GCS rejected the ${where} (${failure.detail}). Nothing was changed by Sluice; the request may need a different configuration.`,
        options,
      );
  }
}
