/**
 * Google Cloud Storage backend: {@link GcsStore}, an `ObjectStore` on
 * `@google-cloud/storage` (generation preconditions, typed errors, its own
 * retries), and the error mapping it uses.
 *
 * @example
 * ```ts
 * import { GcsStore } from "./mod.ts";
 * const store = new GcsStore({ bucket: "my-bucket", prefix: "datastore" });
 * ```
 *
 * @module
 */
export * from "./store.ts";
export {
  createGcsStorage,
  GCS_WRITE_ID_KEY,
  type GcsClientOptions,
  type GcsRetryEvent,
  type GcsStoreOptions,
} from "./client.ts";
export * from "./errors.ts";
export { createGcsProvider, type GcsProviderDeps } from "./provider.ts";
