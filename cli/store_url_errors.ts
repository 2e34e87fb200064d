/**
 * The errors of a bad store URL: a `ConfigError` (`invalid_config`, exit 78)
 * on the `store` field or one of its parts, and the forms a store URL takes.
 *
 * @module
 */
import { ConfigError } from "../sync/errors.ts";

const FIELD = "store";
/** The accepted store URL forms, shown when a URL is not one of them. */
export const FORMS =
  "file:///abs/dir, file://./rel/dir, s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1, or gs://bucket/prefix?endpoint=http://127.0.0.1:4443";

/**
 * The `ConfigError` of a bad store URL: `part` names the offending part
 * (`""` for the URL as a whole), `expected` what a correct one is.
 *
 * @example
 * ```ts
 * import { bad } from "./store_url_errors.ts";
 * bad("region", "a region name such as us-east-1").field; // "store.region"
 * ```
 */
export function bad(part: string, expected: string): ConfigError {
  return new ConfigError(`${FIELD}${part ? `.${part}` : ""}`, expected);
}
