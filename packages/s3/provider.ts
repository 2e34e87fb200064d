/**
 * The S3 datastore provider: {@link createS3Provider} validates the JSON a
 * datastore setup passes and returns a provider (locks, a health check, sync
 * services) over an {@link S3Store}.
 *
 * Config keys (all but `bucket` optional):
 *
 * | key | meaning |
 * |---|---|
 * | `bucket` | S3 bucket name (3–63 characters: lower-case letters, digits, `.`, `-`) |
 * | `prefix` | key prefix inside the bucket |
 * | `region` | signing region; default `us-east-1` |
 * | `endpoint` | `http(s)://` URL of an S3-compatible service |
 * | `forcePathStyle` | path-style addressing; default true when `endpoint` is set |
 * | `conditionalWrites` | `auto` (default), `required` or `off` |
 * | `concurrency` | parallel transfers; default 32 |
 * | `requestTimeoutMs` | per-request timeout; default 30 000 |
 * | `retry` | `{retries, minTimeoutMs, maxTimeoutMs}` for transient errors |
 * | `probeTtlMs` | expiry of the cached conditional-write probe |
 * | `lock` | `{backend: "store", ttlMs, heartbeatMs, maxWaitMs, retryDelayMs, …}` |
 * | `classifierRules` | extra `[{pattern, class}]` rules |
 *
 * Credentials never come from the config: the SDK's default chain supplies
 * them, or the caller injects them ({@link S3ProviderDeps}). The sync
 * services come from the factory in the deps (`createSluice` of the
 * composition root, for the default gates): this package never imports it.
 *
 * @module
 */
import { z } from "zod";
import {
  type BackendProviderDeps,
  commonProviderShape,
  parseProviderConfig,
  StoreProvider,
  withEndpointPathCheck,
} from "../provider/mod.ts";
import { DEFAULT_RETRY } from "../../sync/retry.ts";
import { createEmitter } from "../../sync/events.ts";
import { storeRetryWarner } from "../provider/retry_notice.ts";
import { S3Store } from "./store.ts";
import type { S3Credentials } from "./client.ts";

/** The validated S3 provider config. */
export const s3ProviderConfigSchema = withEndpointPathCheck(
  z.strictObject({
    bucket: z.string({ error: "an S3 bucket name" }).regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
      error:
        'an S3 bucket name of 3 to 63 characters: lower-case letters, digits, "." and "-", starting and ending with a letter or digit',
    }),
    region: z.string({ error: 'an AWS region name, e.g. "eu-west-1"' })
      .regex(/^[a-z0-9-]+$/, { error: 'an AWS region name, e.g. "eu-west-1"' })
      .optional(),
    endpoint: z.url({
      protocol: /^https?$/,
      error: 'an http(s) URL of an S3-compatible endpoint, e.g. "http://127.0.0.1:9000"',
    }).optional(),
    forcePathStyle: z.boolean({ error: "true or false" }).optional(),
    ...commonProviderShape,
  }),
  "s3",
  "endpoint",
);

/** The parsed S3 provider config. */
export type S3ProviderConfig = z.output<typeof s3ProviderConfigSchema>;

/** Injected collaborators of {@link createS3Provider}. */
export interface S3ProviderDeps extends BackendProviderDeps {
  /** Static credentials instead of the SDK's default chain (tests, emulators). */
  readonly credentials?: S3Credentials;
}

/**
 * Validates `config` and creates the S3 provider. Bad config throws
 * `ConfigError` naming the field, e.g. `lock.ttlMs` or `classifierRules[0].class`.
 * Call `close()` when done to release the client's sockets.
 *
 * @example
 * ```ts
 * import { createS3Provider } from "./provider.ts";
 * import { createSluice } from "../../mod.ts";
 * const provider = createS3Provider(
 *   { bucket: "my-bucket", prefix: "datastore", region: "eu-west-1" },
 *   { createService: createSluice },
 * );
 * console.log(provider.resolveDatastorePath("/repo")); // s3://my-bucket/datastore
 * console.log(provider.resolveCachePath("/repo")); // /repo/.sluice-cache/s3/my-bucket/datastore
 * provider.close();
 * ```
 */
export function createS3Provider(config: unknown, deps: S3ProviderDeps): StoreProvider {
  const c = parseProviderConfig(s3ProviderConfigSchema, config);
  const retry = { ...DEFAULT_RETRY, ...c.retry };
  // A retry is told (store_retry) on the provider's events: the extension writes it for the tool's user.
  const events = deps.events ?? createEmitter();
  const onRetry = storeRetryWarner(events, () => store.endpoint, {
    requestTimeoutMs: c.requestTimeoutMs,
    retries: retry.retries,
  });
  const store = new S3Store({
    bucket: c.bucket,
    prefix: c.prefix,
    ...(c.region === undefined ? {} : { region: c.region }),
    ...(c.endpoint === undefined ? {} : { endpoint: c.endpoint }),
    forcePathStyle: c.forcePathStyle ?? c.endpoint !== undefined,
    ...(deps.credentials === undefined ? {} : { credentials: deps.credentials }),
    requestTimeoutMs: c.requestTimeoutMs,
    retries: retry.retries,
    retryBaseDelayMs: retry.minTimeoutMs,
    retryMaxDelayMs: retry.maxTimeoutMs,
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    onRetry,
  });
  try {
    return new StoreProvider({
      scheme: "s3",
      bucket: c.bucket,
      config: c,
      store,
      createService: deps.createService,
      deps: { ...deps, events },
      close: () => store.close(),
    });
  } catch (e) {
    store.close();
    throw e;
  }
}
