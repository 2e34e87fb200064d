/**
 * The datastore provider over one store, shared by the S3 and GCS packages:
 * the shape datastore extensions implement (`shapes.ts`), the config pieces
 * every backend's provider accepts (`config.ts`), {@link StoreProvider}
 * (`store_provider.ts`) and its health check (`verifier.ts`). This module only
 * re-exports.
 *
 * @example
 * ```ts
 * import { parseProviderConfig } from "./mod.ts";
 * import { z } from "zod";
 * parseProviderConfig(z.strictObject({ bucket: z.string() }), { bucket: "b" });
 * ```
 *
 * @module
 */
export * from "./shapes.ts";
export * from "./config.ts";
export * from "./store_provider.ts";
export * from "./verifier.ts";
