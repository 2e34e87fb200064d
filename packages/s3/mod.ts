/**
 * Sluice's S3 backend: an {@link S3Store} (an `ObjectStore` on
 * `@aws-sdk/client-s3` for AWS S3 and S3-compatible endpoints), the client
 * factory, and the mapping of endpoint answers to Sluice's typed errors.
 *
 * @example
 * ```ts
 * import { S3Store } from "./mod.ts";
 * const store = new S3Store({ bucket: "my-bucket", prefix: "datastore", region: "eu-west-1" });
 * console.log(store.endpoint); // s3://my-bucket/datastore
 * store.close();
 * ```
 *
 * @module
 */
export * from "./store.ts";
export {
  type ConditionalDeleteStrategy,
  createS3Client,
  type S3ClientOptions,
  type S3Credentials,
  type S3RetryEvent,
  type S3StoreOptions,
} from "./client.ts";
export * from "./errors.ts";
export { createS3Provider, type S3ProviderDeps } from "./provider.ts";
