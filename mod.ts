/**
 * Sluice: safe many-writer sync of a local cache to S3, GCS or a local
 * directory. This module only re-exports.
 *
 * @example
 * ```ts
 * import { createSluice } from "./mod.ts";
 * import { InMemoryStore } from "./packages/testing/mod.ts";
 * const svc = await createSluice({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * console.log(svc.describe().push);
 * ```
 *
 * @module
 */
export * from "./sluice.ts";
export * from "./sync/ports.ts";
export {
  bodyBytes,
  bodySize,
  bytesStream,
  CHUNK_BYTES,
  DEFAULT_STREAM_THRESHOLD,
  fileSource,
  isBodySource,
  openObject,
} from "./sync/transfer/body.ts";
export * from "./sync/errors.ts";
export * from "./sync/lock_errors.ts";
export * from "./sync/left_behind.ts";
export * from "./sync/context.ts";
export * from "./sync/events.ts";
export * from "./sync/pipeline.ts";
export * from "./sync/service/service.ts";
export { pushUnderGlobalLock } from "./sync/service/global_lock_push.ts";
export * from "./sync/locks/model_locks.ts";
export * from "./sync/locks/lock_engine.ts";
export * from "./sync/locks/lock_registry.ts";
export { processIdentity, systemClock } from "./sync/clock.ts";
export type { PushResult } from "./sync/service/push.ts";
export type { PullResult } from "./sync/service/pull.ts";
export { ResolveRefusedError, type ResolveResult } from "./sync/service/resolve.ts";
export * from "./middleware/path_classifier.ts";
export * from "./middleware/mod.ts";
