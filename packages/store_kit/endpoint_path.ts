/**
 * Endpoint URLs whose path sends every request elsewhere than meant: the
 * bucket written into an S3 endpoint (a path-style request then addresses
 * `<bucket>/<bucket>/…`: the writes land under another key and the reads
 * fail), or the JSON API's `/storage/v1` written into a GCS one (the client
 * adds its own, and every request then names a bucket that does not exist).
 * Any other path is left to the endpoint: a proxy may serve a store under one.
 *
 * @module
 */

/**
 * What is wrong with `endpoint` for a store of `kind` over `bucket`, as the
 * expected form of a config error ("an endpoint without …", the value given
 * left to the caller), or `undefined`
 * when nothing is (a URL that does not parse is the URL check's to refuse).
 *
 * @example
 * ```ts
 * import { endpointPathProblem } from "./endpoint_path.ts";
 * endpointPathProblem("s3", "http://127.0.0.1:9000/my-bucket", "my-bucket"); // "an endpoint without the bucket in its path …"
 * endpointPathProblem("gcs", "http://127.0.0.1:4443", "my-bucket"); // undefined
 * ```
 */
export function endpointPathProblem(
  kind: "s3" | "gcs",
  endpoint: string,
  bucket: string,
): string | undefined {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return undefined;
  }
  const path = u.pathname.replace(/\/+$/, "");
  if (kind === "s3") {
    if (path.split("/")[1] !== bucket) return undefined;
    return `an endpoint without the bucket in its path (${
      JSON.stringify(u.origin + path.slice(bucket.length + 1))
    }): the bucket is named apart, and with it in the endpoint every request would address ${bucket}/${bucket}/…`;
  }
  if (!path.endsWith("/storage/v1")) return undefined;
  return `an endpoint without the JSON API's /storage/v1 path (${
    JSON.stringify(u.origin + path.slice(0, -"/storage/v1".length))
  }): the client adds it, and with it in the endpoint every request would name a bucket that does not exist`;
}
