/**
 * A datastore extension over any {@link ObjectStore} (a local directory, the
 * in-memory store of tests): the same adapter as the S3 and GCS extensions,
 * without a cloud client. Its config is the shared extension keys plus a
 * `bucket` name, which only labels the store in reports. The caller passes
 * the service factory (`createSluice` for the default gates).
 *
 * @module
 */
import { z } from "zod";
import type { ObjectStore } from "../../sync/ports.ts";
import { commonProviderShape, parseProviderConfig, StoreProvider } from "../provider/mod.ts";
import { sharedExtensionShape, sluiceCommon } from "./config.ts";
import { defineDatastore, type DefinedDatastore } from "./provider.ts";
import type { ExtensionDeps } from "./runtime.ts";

/** The config of a store datastore. */
export const storeExtensionConfigSchema = z.object({
  bucket: z.string({ error: "a name of the store" }).min(1, { error: "a non-empty name" }),
  ...sharedExtensionShape,
});

const sluiceSchema = z.strictObject({ bucket: z.string(), ...commonProviderShape });

/** Options of {@link defineStoreDatastore}. */
export interface StoreDatastoreOptions extends ExtensionDeps {
  /** The extension type; default `@sluice/store-datastore`. */
  readonly type?: string;
  /** The store every provider of this export uses. */
  readonly store: ObjectStore;
}

/**
 * A `datastore` export over `options.store`.
 *
 * @example
 * ```ts ignore
 * import { defineStoreDatastore } from "./store_datastore.ts";
 * import { FsStore } from "../fs/mod.ts";
 * import { createSluice } from "../../mod.ts";
 * const ds = defineStoreDatastore({
 *   store: new FsStore({ root: "/srv/bucket" }),
 *   createService: createSluice,
 * });
 * const provider = ds.createProvider({ bucket: "local" });
 * ```
 */
export function defineStoreDatastore(
  options: StoreDatastoreOptions,
): DefinedDatastore<typeof storeExtensionConfigSchema> {
  const { type, store, ...deps } = options;
  return defineDatastore({
    type: type ?? "@sluice/store-datastore",
    name: "Object store (Sluice)",
    description: "Any Sluice object store, with a local cache synced by Sluice.",
    configSchema: storeExtensionConfigSchema,
    toSluiceConfig: (c, env) => ({
      bucket: c.bucket,
      ...sluiceCommon(c, env, "SLUICE_STORE_REQUEST_TIMEOUT_MS"),
    }),
    build: (json, providerDeps) => {
      const config = parseProviderConfig(sluiceSchema, json);
      return new StoreProvider({
        scheme: "store",
        bucket: config.bucket,
        config,
        store,
        createService: providerDeps.createService,
        deps: providerDeps,
      });
    },
  }, deps);
}
