/**
 * The config schemas of the two extensions: every key the existing S3 and
 * GCS datastore extensions accept (same names, types and ranges), plus
 * Sluice's own provider keys, and the mapping to the JSON that
 * `createS3Provider` / `createGcsProvider` take.
 *
 * Like the existing extensions' schemas these are non-strict objects: an
 * unknown key is dropped, not refused, so a config written for them keeps
 * working. Sluice's own keys are validated exactly as Sluice validates them,
 * so a config that passes `safeParse` never makes `createProvider` throw.
 *
 * Mapping decisions: `requestTimeoutMs` comes from the backend's environment
 * variable when that holds a valid value, else from the config; Sluice has
 * one `concurrency`, taken from `concurrency` when given, else the larger of
 * `pullConcurrency` / `pushConcurrency` (capped at 256), else Sluice's
 * default; a `prefix` is used as the key prefix verbatim and must therefore
 * be a clean relative path (no leading or trailing `/`, no `..`), since a
 * prefix like `a/` would address other keys here than in the existing
 * extensions.
 *
 * @module
 */
import { z } from "zod";
import { isSafeRelPath } from "../../sync/paths.ts";
import { commonProviderShape, withEndpointPathCheck } from "../provider/mod.ts";
import { concurrencySchema } from "../../sync/config_schema.ts";
import { type EnvGetter, REQUEST_TIMEOUT_RANGE, requestTimeoutFromEnv } from "./env.ts";

const transferCount = (what: string) =>
  z.number({ error: `the ${what}: a number of parallel transfers` })
    .int({ error: `the ${what}: a whole number` })
    .min(1, { error: `the ${what}: at least 1` })
    .max(1000, { error: `the ${what}: at most 1000` })
    .optional();

const { prefix: _prefix, requestTimeoutMs: _timeout, concurrency: _c, ...sluiceKeys } =
  commonProviderShape;

/** Keys both extensions accept (every backend adds its bucket and client keys). */
export const sharedExtensionShape = {
  prefix: z.string({ error: "a key prefix string" })
    .refine((p) => p === "" || isSafeRelPath(p), {
      error: 'a relative key prefix: no leading or trailing "/", no empty, "." or ".." segments',
    })
    .optional(),
  pullConcurrency: transferCount("pull concurrency"),
  pushConcurrency: transferCount("push concurrency"),
  requestTimeoutMs: z.number({ error: "a request timeout in milliseconds" })
    .int({ error: "a whole number of milliseconds" })
    .min(REQUEST_TIMEOUT_RANGE.min, { error: "at least 1000 ms" })
    .max(REQUEST_TIMEOUT_RANGE.max, { error: "at most 600000 ms" })
    .optional(),
  concurrency: concurrencySchema.optional(),
  ...sluiceKeys,
};

/** The S3 extension's config. */
export const s3ExtensionConfigSchema = withEndpointPathCheck(
  z.object({
    bucket: z.string({ error: "an S3 bucket name" }).regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
      error: 'an S3 bucket name: 3 to 63 lower-case letters, digits, "." or "-"',
    }),
    // An empty region is "not set", as when absent: it is not passed on.
    region: z.string({ error: 'an AWS region, e.g. "eu-west-1"' })
      .regex(/^([a-z0-9-]+)?$/, { error: 'an AWS region, e.g. "eu-west-1"' })
      .optional(),
    endpoint: z.url({ protocol: /^https?$/, error: "an http(s) URL of an S3-compatible endpoint" })
      .optional(),
    forcePathStyle: z.boolean({ error: "true or false" }).optional(),
    ...sharedExtensionShape,
  }),
  "s3",
  "endpoint",
);

/** The GCS extension's config. */
export const gcsExtensionConfigSchema = withEndpointPathCheck(
  z.object({
    bucket: z.string({ error: "a GCS bucket name" })
      .regex(/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/, {
        error: 'a GCS bucket name: 3 to 63 lower-case letters, digits, ".", "_" or "-"',
      })
      .refine((b) => !b.startsWith("goog"), { error: 'a bucket name not starting with "goog"' })
      .refine((b) => !b.includes("google"), { error: 'a bucket name not containing "google"' }),
    // Any non-empty string, as the existing extension takes it: project ids
    // may be domain-scoped (`example.com:my-project`).
    projectId: z.string({ error: "a Google Cloud project id" })
      .min(1, { error: "a non-empty Google Cloud project id" })
      .optional(),
    apiEndpoint: z.url({ protocol: /^https?$/, error: "an http(s) URL of a GCS endpoint" })
      .optional(),
    ...sharedExtensionShape,
  }),
  "gcs",
  "apiEndpoint",
);

/** The parsed S3 extension config. */
export type S3ExtensionConfig = z.output<typeof s3ExtensionConfigSchema>;
/** The parsed GCS extension config. */
export type GcsExtensionConfig = z.output<typeof gcsExtensionConfigSchema>;

/** The environment variables that override the request timeout, by backend. */
export const TIMEOUT_ENV = {
  s3: "SWAMP_S3_REQUEST_TIMEOUT_MS",
  gcs: "SWAMP_GCS_REQUEST_TIMEOUT_MS",
} as const;

type Shared = z.output<z.ZodObject<typeof sharedExtensionShape>>;

/**
 * The Sluice provider keys of the shared extension keys (`prefix`,
 * `concurrency`, `requestTimeoutMs`, …), with `timeoutVar` read from `env`.
 *
 * @example
 * ```ts
 * import { sluiceCommon } from "./config.ts";
 * import { envFrom } from "./env.ts";
 * console.log(sluiceCommon({ pullConcurrency: 4 }, envFrom({}), "X").concurrency); // 4
 * ```
 */
export function sluiceCommon(
  c: Partial<Shared>,
  env: EnvGetter,
  timeoutVar: string,
): Record<string, unknown> {
  const fromSwamp = Math.max(c.pullConcurrency ?? 0, c.pushConcurrency ?? 0);
  const concurrency = c.concurrency ?? (fromSwamp > 0 ? Math.min(256, fromSwamp) : undefined);
  const timeout = requestTimeoutFromEnv(env, timeoutVar) ?? c.requestTimeoutMs;
  return {
    prefix: c.prefix ?? "",
    conditionalWrites: c.conditionalWrites,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(timeout === undefined ? {} : { requestTimeoutMs: timeout }),
    ...(c.probeTtlMs === undefined ? {} : { probeTtlMs: c.probeTtlMs }),
    ...(c.streamThresholdBytes === undefined
      ? {}
      : { streamThresholdBytes: c.streamThresholdBytes }),
    ...(c.firstIndexAtUploads === undefined ? {} : { firstIndexAtUploads: c.firstIndexAtUploads }),
    retry: c.retry,
    lock: c.lock,
    classifierRules: c.classifierRules,
    ...(c.oldClients === undefined ? {} : { oldClients: c.oldClients }),
  };
}

/**
 * The `createS3Provider` JSON of a parsed S3 extension config.
 *
 * @example
 * ```ts
 * import { s3ExtensionConfigSchema, toSluiceS3Config } from "./config.ts";
 * import { envFrom } from "./env.ts";
 * const c = s3ExtensionConfigSchema.parse({ bucket: "my-bucket", pushConcurrency: 16 });
 * console.log(toSluiceS3Config(c, envFrom({})).concurrency); // 16
 * ```
 */
export function toSluiceS3Config(c: S3ExtensionConfig, env: EnvGetter): Record<string, unknown> {
  // Without one in the config, the region is the environment's: AWS_REGION,
  // as the AWS SDK reads it for the existing extension (which leaves it to
  // the SDK), else AWS_DEFAULT_REGION, as the AWS CLI reads it.
  const region = c.region || env("AWS_REGION") || env("AWS_DEFAULT_REGION") || undefined;
  return {
    bucket: c.bucket,
    ...(region === undefined ? {} : { region }),
    ...(c.endpoint === undefined ? {} : { endpoint: c.endpoint }),
    ...(c.forcePathStyle === undefined ? {} : { forcePathStyle: c.forcePathStyle }),
    ...sluiceCommon(c, env, TIMEOUT_ENV.s3),
  };
}

/**
 * The `createGcsProvider` JSON of a parsed GCS extension config.
 *
 * @example
 * ```ts
 * import { gcsExtensionConfigSchema, toSluiceGcsConfig } from "./config.ts";
 * import { envFrom } from "./env.ts";
 * const c = gcsExtensionConfigSchema.parse({ bucket: "my_bucket" });
 * const env = envFrom({ SWAMP_GCS_REQUEST_TIMEOUT_MS: "2000" });
 * console.log(toSluiceGcsConfig(c, env).requestTimeoutMs); // 2000
 * ```
 */
export function toSluiceGcsConfig(c: GcsExtensionConfig, env: EnvGetter): Record<string, unknown> {
  return {
    bucket: c.bucket,
    ...(c.projectId === undefined ? {} : { projectId: c.projectId }),
    ...(c.apiEndpoint === undefined ? {} : { apiEndpoint: c.apiEndpoint }),
    ...sluiceCommon(c, env, TIMEOUT_ENV.gcs),
  };
}
