/**
 * Classification of transport and HTTP failures: the store's own
 * per-attempt timeout, the transport codes and HTTP statuses worth another
 * attempt, the kind a failed precondition means, web pages answered in
 * place of a storage service, and readers for SDK errors of unknown shape.
 *
 * @module
 */
import type { StoreCondition } from "./failure.ts";

/** Code of a store's own per-attempt deadline error, see {@link StoreAttemptTimeout}. */
export const STORE_TIMEOUT_CODE = "SLUICE_REQUEST_TIMEOUT";

/**
 * The error an attempt fails with when it did not settle within the store's
 * per-attempt timeout. Backends classify it as transient and ambiguous.
 *
 * @example
 * ```ts
 * import { StoreAttemptTimeout } from "./failure_classify.ts";
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
 * import { isTransientStatus } from "./failure_classify.ts";
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
 * import { conditionFailureKind } from "./failure_classify.ts";
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
 * import { fieldsOf } from "./failure_classify.ts";
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
 * import { textField } from "./failure_classify.ts";
 * textField("NoSuchKey"); // "NoSuchKey"
 * textField(""); // undefined
 * ```
 */
export function textField(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
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
 * import { isWebPageAnswer } from "./failure_classify.ts";
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
