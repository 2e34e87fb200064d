/**
 * One safe line describing an error thrown by `@aws-sdk/client-s3` (or the
 * transport below it), and the readers of the fields it is made of: status,
 * S3 code, transport code, request and host ids, content type. Signatures,
 * signed URLs and given secrets never reach the line.
 *
 * @module
 */
import { preview } from "../../sync/errors.ts";
import {
  type ErrorFields,
  fieldsOf,
  redactCredentials,
  textField,
  TRANSIENT_NET_CODES,
} from "../store_kit/failure.ts";
import { S3AttemptTimeout } from "./failure.ts";

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

export function statusOf(e: ErrorFields): number | undefined {
  const meta = fieldsOf(e.$metadata);
  if (typeof meta.httpStatusCode === "number") return meta.httpStatusCode;
  const resp = fieldsOf(e.$response);
  return typeof resp.statusCode === "number" ? resp.statusCode : undefined;
}

export function requestIdOf(e: ErrorFields): string | undefined {
  const meta = fieldsOf(e.$metadata);
  return textField(meta.requestId) ?? textField(e.RequestId) ??
    textField(fieldsOf(fieldsOf(e.$response).headers)["x-amz-request-id"]);
}

export function hostIdOf(e: ErrorFields): string | undefined {
  const meta = fieldsOf(e.$metadata);
  return textField(meta.extendedRequestId) ?? textField(e.HostId);
}

/** The S3 code of an SDK error, ignoring the SDK's placeholders for empty bodies. */
export function s3CodeOf(e: ErrorFields): string | undefined {
  const code = textField(e.Code) ?? textField(e.name);
  if (!code || code === "Unknown" || code === "UnknownError" || code === "Error") return undefined;
  return code;
}

/** A transport code found on the error or its causes. */
export function netCodeOf(e: unknown, depth = 0): string | undefined {
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

/** The answer's content type, as the SDK kept its headers. */
export function contentTypeOf(e: ErrorFields): string | undefined {
  const headers = fieldsOf(fieldsOf(e.$response).headers);
  return textField(headers["content-type"]) ?? textField(headers["Content-Type"]);
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
