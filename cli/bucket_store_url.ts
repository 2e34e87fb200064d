/**
 * Bucket store URLs, `s3://bucket/prefix?…` and `gs://bucket/prefix?…`:
 * the bucket name, the key prefix and each scheme's query parameters
 * validated and parsed into an {@link S3StoreSpec} or {@link GcsStoreSpec}.
 * A URL carrying a user or password is refused without echoing it.
 *
 * @module
 */
import { closest } from "../sync/closest.ts";
import { endpointPathProblem } from "../packages/store_kit/endpoint_path.ts";
import { isSafeRelPath } from "../sync/paths.ts";
import type { GcsStoreSpec, S3StoreSpec } from "./store_spec.ts";
import { bad, FORMS } from "./store_url_errors.ts";

const S3_PARAMS = [
  "endpoint",
  "region",
  "path-style",
  "checksums",
  "conditional-delete",
  "timeout",
  "retries",
] as const;
const GCS_PARAMS = ["endpoint", "project", "anonymous", "timeout", "retries"] as const;

/** `?timeout=` (ms per attempt) and `?retries=` (attempts after the first), when given. */
function attemptParams(p: Map<string, string>): { requestTimeoutMs?: number; retries?: number } {
  const int = (k: string, lo: number, hi: number, what: string) => {
    const v = p.get(k);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < lo || Number(v) > hi) {
      throw bad(k, `${what} from ${lo} to ${hi}, got ${JSON.stringify(v)}`);
    }
    return Number(v);
  };
  const timeout = int(
    "timeout",
    100,
    3_600_000,
    "milliseconds per request attempt, a whole number",
  );
  const retries = int("retries", 0, 10, "the attempts after a failed one, a whole number");
  return {
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    ...(retries !== undefined ? { retries } : {}),
  };
}

function parseBool(name: string, v: string): boolean {
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw bad(name, `true or false, got ${JSON.stringify(v)}`);
}

function endpointUrl(v: string, kind: "s3" | "gcs", bucket: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw bad("endpoint", `an http:// or https:// URL, got ${JSON.stringify(v)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw bad("endpoint", `an http:// or https:// URL, got ${JSON.stringify(v)}`);
  }
  if (u.username || u.password) {
    throw bad("endpoint", "a URL without a user or password (pass credentials in the environment)");
  }
  const problem = endpointPathProblem(kind, v, bucket);
  if (problem) throw bad("endpoint", `${problem}, got ${JSON.stringify(v)}`);
  return v.replace(/\/+$/, "");
}

function checkBucket(kind: "s3" | "gcs", bucket: string): void {
  const max = kind === "s3" ? 63 : 222;
  if (bucket.length < 3 || bucket.length > max || !/^[a-z0-9][a-z0-9._-]*[a-z0-9]$/.test(bucket)) {
    throw bad(
      "bucket",
      `a bucket name of 3 to ${max} lower-case letters, digits, dots and hyphens, got ${
        JSON.stringify(bucket)
      }`,
    );
  }
}

function checkPrefix(raw: string): string {
  let prefix: string;
  try {
    prefix = decodeURIComponent(raw).replace(/^\/+|\/+$/g, "");
  } catch {
    throw bad("prefix", "a validly percent-encoded path");
  }
  if (prefix !== "" && !isSafeRelPath(prefix)) {
    throw bad(
      "prefix",
      `a plain key prefix without '.', '..' or empty segments, backslashes or control characters, got ${
        JSON.stringify(prefix)
      }`,
    );
  }
  return prefix;
}

function params(u: URL, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of u.searchParams) {
    if (!allowed.includes(k)) {
      const near = closest(k, allowed);
      throw bad(
        k,
        allowed.length
          ? `a known query parameter (${allowed.join(", ")}); "${k}" is not one${
            near ? ` (did you mean \`${near}\`?)` : ""
          }${
            k.includes("?")
              ? ` (the query starts at the URL's first '?': write a '?' of the bucket's prefix as %3F)`
              : ""
          }`
          : `no query parameters for this kind of store; "${k}" is not one`,
      );
    }
    if (out.has(k)) throw bad(k, `one value, given once ("${k}" is given more than once)`);
    out.set(k, v);
  }
  return out;
}

/**
 * Parses an `s3://` or `gs://` URL (scheme already normalized); throws
 * `ConfigError` (exit 78) naming what is wrong.
 *
 * @example
 * ```ts
 * import { parseBucketUrl } from "./bucket_store_url.ts";
 * parseBucketUrl("gs://my-bucket/ds?project=test", "gcs");
 * // { kind: "gcs", bucket: "my-bucket", prefix: "ds", projectId: "test" }
 * ```
 */
export function parseBucketUrl(url: string, kind: "s3" | "gcs"): S3StoreSpec | GcsStoreSpec {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad("", `a URL like ${FORMS}; got one that does not parse`);
  }
  if (u.username || u.password) {
    throw bad(
      "",
      "a URL without a user or password: credentials are read from the environment, never from the store URL",
    );
  }
  if (u.port) throw bad("bucket", "a bucket name without a port (put the endpoint in ?endpoint=)");
  if (u.hash) throw bad("", "a URL without a fragment");
  const bucket = u.hostname;
  checkBucket(kind, bucket);
  // The raw path, not u.pathname: the URL parser would silently resolve `..` segments.
  const prefix = checkPrefix(/^[^:]+:\/\/[^/?#]*([^?#]*)/.exec(url)?.[1] ?? "");
  if (kind === "s3") {
    const p = params(u, S3_PARAMS);
    const checksums = p.get("checksums");
    if (
      checksums !== undefined && checksums !== "when_supported" && checksums !== "when_required"
    ) {
      throw bad("checksums", `when_supported or when_required, got ${JSON.stringify(checksums)}`);
    }
    const del = p.get("conditional-delete");
    if (del !== undefined && del !== "native" && del !== "verify" && del !== "emulate") {
      throw bad("conditional-delete", `native, verify or emulate, got ${JSON.stringify(del)}`);
    }
    const region = p.get("region");
    if (region !== undefined && !/^[a-z0-9-]{1,64}$/.test(region)) {
      throw bad("region", `a region name such as us-east-1, got ${JSON.stringify(region)}`);
    }
    const endpoint = p.has("endpoint") ? endpointUrl(p.get("endpoint")!, "s3", bucket) : undefined;
    const pathStyle = p.get("path-style");
    return {
      kind: "s3",
      bucket,
      prefix,
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(region !== undefined ? { region } : {}),
      ...(pathStyle !== undefined
        ? { forcePathStyle: parseBool("path-style", pathStyle) }
        : endpoint !== undefined
        ? { forcePathStyle: true }
        : {}),
      ...(checksums !== undefined ? { checksums } : {}),
      ...(del !== undefined ? { conditionalDelete: del } : {}),
      ...attemptParams(p),
    };
  }
  const p = params(u, GCS_PARAMS);
  const endpoint = p.has("endpoint") ? endpointUrl(p.get("endpoint")!, "gcs", bucket) : undefined;
  const project = p.get("project");
  const anonymous = p.get("anonymous");
  return {
    kind: "gcs",
    bucket,
    prefix,
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(project !== undefined ? { projectId: project } : {}),
    ...(anonymous !== undefined ? { anonymous: parseBool("anonymous", anonymous) } : {}),
    ...attemptParams(p),
  };
}
