/**
 * Store URLs of the command line, parsed into a {@link StoreSpec} and opened
 * as an {@link ObjectStore}:
 *
 * - `file:///abs/dir` or `file://./rel/dir`: the embedded default, a local
 *   directory (`FsStore`);
 * - `s3://bucket/prefix?endpoint=…&region=…&path-style=…&checksums=…&conditional-delete=…`
 *   (`S3Store`); credentials come from `AWS_ACCESS_KEY_ID` /
 *   `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` in the given environment,
 *   else the SDK's default chain;
 * - `gs://bucket/prefix?endpoint=…&project=…&anonymous=…` (`GcsStore`);
 *   credentials come from Application Default Credentials.
 *
 * A bad URL is a `ConfigError` (`invalid_config`, exit 78) that names the
 * offending part and shows a correct form. Credentials never belong in a URL:
 * a URL carrying a user or password is refused without echoing it.
 *
 * @module
 */
import type { ObjectStore } from "../sync/ports.ts";
import type { StoreSpec } from "./store_spec.ts";
import { bad, FORMS } from "./store_url_errors.ts";
import { parseFile, type ParseStoreUrlOptions } from "./file_store_url.ts";
import { parseBucketUrl } from "./bucket_store_url.ts";

export type { FileStoreSpec, GcsStoreSpec, S3StoreSpec, StoreSpec } from "./store_spec.ts";
export type { ParseStoreUrlOptions } from "./file_store_url.ts";
export { type OpenedStore, openStore, type OpenStoreOptions } from "./open_store.ts";

/**
 * Parses a store URL; throws `ConfigError` (exit 78) naming what is wrong.
 *
 * @example
 * ```ts
 * import { parseStoreUrl } from "./store_url.ts";
 * parseStoreUrl("s3://my-bucket/team/ds?endpoint=http://127.0.0.1:9000");
 * // { kind: "s3", bucket: "my-bucket", prefix: "team/ds", endpoint: "http://127.0.0.1:9000", forcePathStyle: true }
 * ```
 */
export function parseStoreUrl(url: string, options: ParseStoreUrlOptions = {}): StoreSpec {
  const s = url.trim();
  if (s === "") throw bad("", `a store URL such as ${FORMS}`);
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s)?.[1]?.toLowerCase();
  if (scheme === "file") {
    if (!s.toLowerCase().startsWith("file://")) {
      // file:/abs/dir or file:rel/dir: the slashes a file:// URL needs are missing.
      const path = s.slice(5);
      const meant = path.startsWith("/")
        ? `file://${path.replace(/^\/+/, "/")}`
        : `file://./${path}`;
      throw bad(
        "",
        `file:// followed by a directory (file:///abs/dir or file://./rel/dir), got ${
          JSON.stringify(s)
        }: did you mean ${meant}?`,
      );
    }
    return parseFile(`file://${s.slice(7)}`, options);
  }
  if (
    (scheme === "s3" || scheme === "gs" || scheme === "gcs") &&
    !s.slice(scheme.length).startsWith("://")
  ) {
    throw bad(
      "",
      `${scheme}:// followed by the bucket: two slashes after ${scheme}: (for example ${scheme}://bucket/prefix)`,
    );
  }
  if (scheme === "s3") return parseBucketUrl(s, "s3");
  if (scheme === "gs" || scheme === "gcs") {
    return parseBucketUrl(`gs${s.slice(scheme.length)}`, "gcs");
  }
  throw bad(
    "",
    scheme
      ? `a store URL with scheme file://, s3:// or gs://, not ${scheme}:// (for example ${FORMS})`
      : `a store URL with a scheme (file://, s3:// or gs://); for a local directory write file://${
        s.startsWith("/") ? s : `./${s.replace(/^\.\//, "")}`
      }`,
  );
}

/**
 * The canonical form of a store: the same datastore always gives the same
 * string, whatever endpoint or options reach it (`file:///abs`,
 * `s3://bucket/prefix`, `gs://bucket/prefix`).
 *
 * @example
 * ```ts
 * import { parseStoreUrl, storeIdentity } from "./store_url.ts";
 * storeIdentity(parseStoreUrl("s3://b-1/p/?region=eu-west-1")); // "s3://b-1/p"
 * ```
 */
export function storeIdentity(spec: StoreSpec): string {
  if (spec.kind === "file") return `file://${spec.root}`;
  return `${spec.kind === "s3" ? "s3" : "gs"}://${spec.bucket}/${spec.prefix}`;
}

function queryValue(v: string): string {
  return v.replace(/[%&#+ ]/g, (c) => encodeURIComponent(c));
}

/**
 * The store's URL, as `--store` takes it: {@link storeIdentity} with the
 * endpoint, region or project that reach it (and `path-style=false` where
 * an endpoint is addressed virtual-hosted) as query parameters.
 *
 * @example
 * ```ts
 * import { parseStoreUrl, storeUrl } from "./store_url.ts";
 * storeUrl(parseStoreUrl("s3://b-1/p?endpoint=http://127.0.0.1:9000&path-style=true"));
 * // "s3://b-1/p?endpoint=http://127.0.0.1:9000"
 * ```
 */
export function storeUrl(spec: StoreSpec): string {
  if (spec.kind === "file") {
    return `file://${spec.root.split("/").map(encodeURIComponent).join("/")}`;
  }
  const params: [string, string | undefined][] = spec.kind === "s3"
    ? [
      ["endpoint", spec.endpoint],
      ["region", spec.region],
      // With an endpoint, path-style is what the command line takes unless told otherwise.
      ["path-style", spec.endpoint && spec.forcePathStyle === false ? "false" : undefined],
    ]
    : [["endpoint", spec.endpoint], ["project", spec.projectId]];
  const query = params.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${queryValue(v!)}`);
  const base = `${spec.kind === "s3" ? "s3" : "gs"}://${spec.bucket}/${
    spec.prefix.split("/").map(encodeURIComponent).join("/")
  }`;
  return query.length ? `${base}?${query.join("&")}` : base;
}

/**
 * The `endpoint` fields of `--json` output: `endpoint` is the store's URL
 * ({@link storeUrl}), `endpointDescription` the store's own words for it.
 *
 * @example
 * ```ts
 * import { endpointFields, openStore, parseStoreUrl } from "./store_url.ts";
 * const spec = parseStoreUrl("gs://b-1/p?endpoint=http://127.0.0.1:4443");
 * const opened = openStore(spec);
 * endpointFields(spec, opened.store);
 * // { endpoint: "gs://b-1/p?endpoint=http://127.0.0.1:4443", endpointDescription: "gs://b-1/p at http://127.0.0.1:4443" }
 * opened.close();
 * ```
 */
export function endpointFields(
  spec: StoreSpec,
  store: Pick<ObjectStore, "endpoint">,
): { endpoint: string; endpointDescription: string } {
  return { endpoint: storeUrl(spec), endpointDescription: store.endpoint };
}
