/**
 * The datastore extension adapter shared by the S3 and GCS extensions: the
 * tool's shapes (`contract.ts`), the config schemas, and the provider, lock,
 * verifier, sync service and namespace manifests that translate the tool's
 * calls into Sluice's API.
 *
 * @module
 */
export * from "./contract.ts";
export * from "./env.ts";
export * from "./config.ts";
export * from "./lock.ts";
export * from "./held_locks.ts";
export * from "./prefixed_store.ts";
export * from "./runtime.ts";
export * from "./verifier.ts";
export * from "./sync_service.ts";
export * from "./lockfile_bridge.ts";
export * from "./namespaces.ts";
export * from "./provider.ts";
export * from "./store_datastore.ts";
