/**
 * The store kit: what Sluice's bucket stores share, for third-party store
 * authors too. Key and prefix handling ({@link normalisePrefix},
 * {@link joinKey}, {@link describeEndpoint}), the attempt loop
 * ({@link AttemptRunner}: per-attempt deadline counted from the last
 * progress, the caller's signal, jittered backoff, a lost-answer hook, with
 * {@link STORE_DEFAULTS}), and failure classification ({@link StoreFailure},
 * {@link storeFailureToError}, transport codes and statuses worth a retry,
 * {@link redactCredentials}).
 *
 * @example
 * ```ts
 * import { describeEndpoint, joinKey, normalisePrefix } from "./mod.ts";
 * const prefix = normalisePrefix("/datastore/");
 * console.log(joinKey(prefix, "a.txt"), describeEndpoint("s3", "b", prefix)); // datastore/a.txt s3://b/datastore
 * ```
 *
 * @module
 */
export * from "./attempts.ts";
export * from "./failure.ts";
export * from "./keys.ts";
