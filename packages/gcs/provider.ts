/**
 * The GCS datastore provider: {@link createGcsProvider} validates the JSON a
 * datastore setup passes and returns a provider (locks, a health check, sync
 * services) over a {@link GcsStore}.
 *
 * Config keys (all but `bucket` optional):
 *
 * | key | meaning |
 * |---|---|
 * | `bucket` | GCS bucket name (3–222 characters: lower-case letters, digits, `.`, `-`, `_`) |
 * | `prefix` | object-name prefix inside the bucket |
 * | `projectId` | Google Cloud project id (Application Default Credentials may supply it) |
 * | `apiEndpoint` | `http(s)://` URL of an emulator such as fake-gcs-server |
 * | `conditionalWrites` | `auto` (default), `required` or `off` |
 * | `concurrency` | parallel transfers; default 32 |
 * | `requestTimeoutMs` | per-request timeout; default 30 000 |
 * | `retry` | `{retries, minTimeoutMs, maxTimeoutMs}` for transient errors |
 * | `probeTtlMs` | expiry of the cached conditional-write probe |
 * | `lock` | `{backend: "store", ttlMs, heartbeatMs, maxWaitMs, retryDelayMs, …}` |
 * | `classifierRules` | extra `[{pattern, class}]` rules |
 *
 * Credentials never come from the config: Application Default Credentials
 * supply them (none are sent to an `apiEndpoint` emulator). The sync
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
import { GcsStore } from "./store.ts";

/** The validated GCS provider config. */
export const gcsProviderConfigSchema = withEndpointPathCheck(
  z.strictObject({
    bucket: z.string({ error: "a GCS bucket name" }).regex(/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/, {
      error:
        'a GCS bucket name of 3 to 222 characters: lower-case letters, digits, ".", "-" and "_", starting and ending with a letter or digit',
    }),
    // Not checked further: project ids may be domain-scoped (`example.com:my-project`).
    projectId: z.string({ error: "a Google Cloud project id" })
      .min(1, { error: "a non-empty Google Cloud project id" })
      .optional(),
    apiEndpoint: z.url({
      protocol: /^https?$/,
      error: 'an http(s) URL of a GCS endpoint, e.g. "http://127.0.0.1:4443"',
    }).optional(),
    ...commonProviderShape,
  }),
  "gcs",
  "apiEndpoint",
);

/** The parsed GCS provider config. */
export type GcsProviderConfig = z.output<typeof gcsProviderConfigSchema>;

/** Injected collaborators of {@link createGcsProvider}. */
export type GcsProviderDeps = BackendProviderDeps;

/**
 * Validates `config` and creates the GCS provider. Bad config throws
 * `ConfigError` naming the field, e.g. `apiEndpoint` or `lock.backend`.
 *
 * @example
 * ```ts
 * import { createGcsProvider } from "./provider.ts";
 * import { createSluice } from "../../mod.ts";
 * const provider = createGcsProvider(
 *   { bucket: "my-bucket", prefix: "datastore" },
 *   { createService: createSluice },
 * );
 * console.log(provider.resolveDatastorePath("/repo")); // gs://my-bucket/datastore
 * console.log(provider.resolveCachePath("/repo")); // /repo/.sluice-cache/gs/my-bucket/datastore
 * ```
 */
export function createGcsProvider(config: unknown, deps: GcsProviderDeps): StoreProvider {
  const c = parseProviderConfig(gcsProviderConfigSchema, config);
  const retry = { ...DEFAULT_RETRY, ...c.retry };
  // A retry is told (store_retry) on the provider's events: the extension writes it for the tool's user.
  const events = deps.events ?? createEmitter();
  const onRetry = storeRetryWarner(events, () => store.endpoint, {
    requestTimeoutMs: c.requestTimeoutMs,
    retries: retry.retries,
  });
  const store = new GcsStore({
    bucket: c.bucket,
    prefix: c.prefix,
    ...(c.projectId === undefined ? {} : { projectId: c.projectId }),
    ...(c.apiEndpoint === undefined ? {} : { apiEndpoint: c.apiEndpoint }),
    requestTimeoutMs: c.requestTimeoutMs,
    retries: retry.retries,
    retryBaseDelayMs: retry.minTimeoutMs,
    retryMaxDelayMs: retry.maxTimeoutMs,
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    onRetry,
  });
  return new StoreProvider({
    scheme: "gs",
    bucket: c.bucket,
    config: c,
    store,
    createService: deps.createService,
    deps: { ...deps, events },
  });
}
