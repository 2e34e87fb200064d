/**
 * A test kit: an S3-like datastore extension over in-memory stores, one per
 * bucket (`s3://<bucket>`), loaded as swamp loads an extension, for tests
 * of what the extension records in a cache and what the command line then
 * does there.
 *
 * @module
 */
import { z } from "zod";
import type { InMemoryStore } from "../testing/in_memory_store.ts";
import { commonProviderShape, parseProviderConfig, StoreProvider } from "../provider/mod.ts";
import { defineDatastore } from "./provider.ts";
import { envFrom } from "./env.ts";
import { sluiceCommon } from "./config.ts";
import { storeExtensionConfigSchema } from "./store_datastore.ts";

/**
 * An S3-like datastore over one in-memory store per bucket (`stores`, by
 * bucket name), its services made by `createService` (the composition
 * root's `createSluice`, passed in).
 */
export function memoryS3Datastore(
  stores: Record<string, InMemoryStore>,
  createService: Parameters<typeof defineDatastore>[1]["createService"],
) {
  return defineDatastore({
    type: "@sluice/test-s3-datastore",
    name: "test",
    description: "S3-like, in memory",
    configSchema: storeExtensionConfigSchema,
    toSluiceConfig: (c, env) => ({ bucket: c.bucket, ...sluiceCommon(c, env, "SLUICE_T_MS") }),
    build: (json, deps) => {
      const config = parseProviderConfig(
        z.strictObject({ bucket: z.string(), ...commonProviderShape }),
        json,
      );
      return new StoreProvider({
        scheme: "s3",
        bucket: config.bucket,
        config,
        store: stores[config.bucket],
        createService: deps.createService,
        deps,
      });
    },
  }, { createService, env: envFrom({}), warn: () => {} });
}
