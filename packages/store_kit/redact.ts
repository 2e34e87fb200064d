/**
 * The removal of credentials (static keys, signed URLs, tokens, signing
 * lines, private keys) from the text that goes into messages.
 *
 * @module
 */

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
 * import { redactCredentials } from "./redact.ts";
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
