/**
 * Store URLs of the command line, parsed into a {@link StoreSpec} and opened
 * as an {@link ObjectStore}:
 *
 * - `file:///abs/dir` or `file://./rel/dir`: the embedded default, a local
 *   directory ({@link FsStore});
 * - `s3://bucket/prefix?endpoint=…&region=…&path-style=…&checksums=…&conditional-delete=…`
 *   ({@link S3Store}); credentials come from `AWS_ACCESS_KEY_ID` /
 *   `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` in the given environment,
 *   else the SDK's default chain;
 * - `gs://bucket/prefix?endpoint=…&project=…&anonymous=…` ({@link GcsStore});
 *   credentials come from Application Default Credentials.
 *
 * A bad URL is a `ConfigError` (`invalid_config`, exit 78) that names the
 * offending part and shows a correct form. Credentials never belong in a URL:
 * a URL carrying a user or password is refused without echoing it.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { closest } from "../sync/closest.ts";
import { ConfigError } from "../sync/errors.ts";
import { isSafeRelPath } from "../sync/paths.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { S3Store } from "../packages/s3/store.ts";
import type { ConditionalDeleteStrategy } from "../packages/s3/client.ts";
import { GcsStore } from "../packages/gcs/store.ts";
import type { StoreRetryEvent } from "../packages/store_kit/attempts.ts";

/** A local-directory store. */
export interface FileStoreSpec {
  /** Discriminant. */
  readonly kind: "file";
  /** Absolute directory of the store. */
  readonly root: string;
}

/** An S3 or S3-compatible store. */
export interface S3StoreSpec {
  /** Discriminant. */
  readonly kind: "s3";
  /** The bucket. */
  readonly bucket: string;
  /** Key prefix without edge slashes (`""` for the bucket root). */
  readonly prefix: string;
  /** Custom endpoint URL of an S3-compatible service. */
  readonly endpoint?: string;
  /** Region to sign for (default: `AWS_REGION`, else the store's default). */
  readonly region?: string;
  /** Path-style addressing; default true with a custom endpoint. */
  readonly forcePathStyle?: boolean;
  /** Flexible checksums (see `S3ClientOptions.checksums`). */
  readonly checksums?: "when_supported" | "when_required";
  /** How conditional deletes are made (see `ConditionalDeleteStrategy`). */
  readonly conditionalDelete?: ConditionalDeleteStrategy;
  /** Per-attempt request timeout in ms (`?timeout=`); default the store's (30 000). */
  readonly requestTimeoutMs?: number;
  /** Attempts after a transient failure (`?retries=`); default the store's (3). */
  readonly retries?: number;
}

/** A Google Cloud Storage store. */
export interface GcsStoreSpec {
  /** Discriminant. */
  readonly kind: "gcs";
  /** The bucket. */
  readonly bucket: string;
  /** Object-name prefix without edge slashes. */
  readonly prefix: string;
  /** Custom API endpoint, e.g. an emulator. */
  readonly endpoint?: string;
  /** Google Cloud project id. */
  readonly projectId?: string;
  /** Send requests without credentials; default true with a custom endpoint. */
  readonly anonymous?: boolean;
  /** Per-attempt request timeout in ms (`?timeout=`); default the store's (30 000). */
  readonly requestTimeoutMs?: number;
  /** Attempts after a transient failure (`?retries=`); default the store's (3). */
  readonly retries?: number;
}

/** A parsed store URL. */
export type StoreSpec = FileStoreSpec | S3StoreSpec | GcsStoreSpec;

/** Options of {@link parseStoreUrl}. */
export interface ParseStoreUrlOptions {
  /** Directory that relative `file://./…` URLs resolve against; default the process's cwd. */
  readonly cwd?: string;
}

const FIELD = "store";
const FORMS =
  "file:///abs/dir, file://./rel/dir, s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1, or gs://bucket/prefix?endpoint=http://127.0.0.1:4443";

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

function bad(part: string, expected: string): ConfigError {
  return new ConfigError(`${FIELD}${part ? `.${part}` : ""}`, expected);
}

function parseBool(name: string, v: string): boolean {
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw bad(name, `true or false, got ${JSON.stringify(v)}`);
}

function endpointUrl(v: string): string {
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
      `a plain key prefix without '.', '..' or empty segments, got ${JSON.stringify(prefix)}`,
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
          }`
          : `no query parameters for this kind of store; "${k}" is not one`,
      );
    }
    if (out.has(k)) throw bad(k, `one value, given once ("${k}" is given more than once)`);
    out.set(k, v);
  }
  return out;
}

function parseFile(url: string, options: ParseStoreUrlOptions): FileStoreSpec {
  const rest = url.slice("file://".length);
  if (/[?#]/.test(rest)) {
    throw bad("", "a file:// URL without query parameters or fragment (write ? as %3F, # as %23)");
  }
  let path: string;
  if (rest.startsWith("/")) path = rest;
  else if (rest.startsWith("localhost/")) path = rest.slice("localhost".length);
  else if (rest === "." || rest.startsWith("./") || rest.startsWith("../")) path = rest;
  else {
    throw bad(
      "",
      `a file:// URL naming a local directory (file:///abs/dir or file://./rel/dir), got ${
        JSON.stringify(url)
      }`,
    );
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    throw bad("", "a validly percent-encoded path");
  }
  if (path.includes("\0")) throw bad("", "a path without NUL characters");
  const root = isAbsolute(path) ? resolve(path) : resolve(options.cwd ?? Deno.cwd(), path);
  return { kind: "file", root };
}

function parseBucketUrl(url: string, kind: "s3" | "gcs"): S3StoreSpec | GcsStoreSpec {
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
    const endpoint = p.has("endpoint") ? endpointUrl(p.get("endpoint")!) : undefined;
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
  const endpoint = p.has("endpoint") ? endpointUrl(p.get("endpoint")!) : undefined;
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

/** An opened store and how to release it. */
export interface OpenedStore {
  /** The store. */
  readonly store: ObjectStore;
  /** What it was made from. */
  readonly spec: StoreSpec;
  /** Releases the client's sockets (safe to call twice). */
  close(): void;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Environment for credentials and the default region (`AWS_*`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Told before each retry of a request (S3 and GCS stores retry themselves). */
  readonly onRetry?: (event: StoreRetryEvent) => void;
}

/** The attempt options of a bucket store: the URL's timeout and retries, and the retry notice. */
function attempts(spec: S3StoreSpec | GcsStoreSpec, options: OpenStoreOptions) {
  return {
    ...(spec.requestTimeoutMs !== undefined ? { requestTimeoutMs: spec.requestTimeoutMs } : {}),
    ...(spec.retries !== undefined ? { retries: spec.retries } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  };
}

/**
 * Creates the store a spec describes (no request is made).
 *
 * @example
 * ```ts
 * import { openStore, parseStoreUrl } from "./store_url.ts";
 * const opened = openStore(parseStoreUrl(`file://${await Deno.makeTempDir()}`));
 * console.log(opened.store.endpoint);
 * opened.close();
 * ```
 */
export function openStore(spec: StoreSpec, options: OpenStoreOptions = {}): OpenedStore {
  const env = options.env ?? {};
  if (spec.kind === "file") {
    return { store: new FsStore({ root: spec.root }), spec, close: () => {} };
  }
  if (spec.kind === "s3") {
    const id = env.AWS_ACCESS_KEY_ID;
    const secret = env.AWS_SECRET_ACCESS_KEY;
    const region = spec.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    const store = new S3Store({
      bucket: spec.bucket,
      prefix: spec.prefix,
      ...(spec.endpoint !== undefined ? { endpoint: spec.endpoint } : {}),
      ...(region !== undefined ? { region } : {}),
      ...(spec.forcePathStyle !== undefined ? { forcePathStyle: spec.forcePathStyle } : {}),
      ...(spec.checksums !== undefined ? { checksums: spec.checksums } : {}),
      ...(spec.conditionalDelete !== undefined
        ? { conditionalDelete: spec.conditionalDelete }
        : {}),
      ...attempts(spec, options),
      ...(id && secret
        ? {
          credentials: {
            accessKeyId: id,
            secretAccessKey: secret,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
        : {}),
    });
    let closed = false;
    return {
      store,
      spec,
      close: () => {
        if (!closed) store.close();
        closed = true;
      },
    };
  }
  const store = new GcsStore({
    bucket: spec.bucket,
    prefix: spec.prefix,
    ...(spec.endpoint !== undefined ? { apiEndpoint: spec.endpoint } : {}),
    ...(spec.projectId !== undefined ? { projectId: spec.projectId } : {}),
    ...(spec.anonymous !== undefined ? { anonymous: spec.anonymous } : {}),
    ...attempts(spec, options),
  });
  return { store, spec, close: () => {} };
}
