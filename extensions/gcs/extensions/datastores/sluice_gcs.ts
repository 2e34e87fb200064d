/**
 * The GCS datastore extension: the tool loads this file and reads its
 * `datastore` export. Same bucket layout, lock keys and config keys as the
 * existing GCS extension, with Sluice's gates on every push.
 *
 * A composition root for the tool: it passes the root's `createSluice` (the
 * default gates) to the adapter, which never imports it.
 *
 * @module
 */
import type { z } from "zod";
import { createSluice } from "../../../../sluice.ts";
import { createGcsProvider } from "../../../../packages/gcs/provider.ts";
import {
  defineDatastore,
  type DefinedDatastore,
  type ExtensionProvider,
  gcsExtensionConfigSchema,
  type InjectedExtensionDeps,
  TIMEOUT_ENV,
  toSluiceGcsConfig,
} from "../../../../packages/extension/mod.ts";

/**
 * The GCS extension with injected collaborators (tests); `datastore` is this
 * with none.
 *
 * @example
 * ```ts
 * import { createSluiceGcsDatastore } from "./sluice_gcs.ts";
 * const ds = createSluiceGcsDatastore({ env: () => undefined });
 * console.log(ds.createProvider({ bucket: "my_bucket" }).resolveDatastorePath("/repo")); // /repo/.swamp
 * ```
 */
export function createSluiceGcsDatastore(
  deps: InjectedExtensionDeps = {},
): DefinedDatastore<typeof gcsExtensionConfigSchema> {
  return defineDatastore({
    type: "@sluice/gcs-datastore",
    name: "Google Cloud Storage (Sluice)",
    description: DESCRIPTION,
    configSchema: gcsExtensionConfigSchema,
    toSluiceConfig: toSluiceGcsConfig,
    timeoutVar: TIMEOUT_ENV.gcs,
    build: createGcsProvider,
  }, {
    // The tool prints no datastore events: warnings go to standard error, as the existing extensions' do.
    warn: (line) => console.warn(line),
    ...deps,
    createService: createSluice,
  });
}

const DESCRIPTION =
  "Google Cloud Storage or an emulator, with a local cache synced by Sluice: create-only data versions, pushes fenced by model locks, and the managed lockfile published by its transaction.";

const defaults = createSluiceGcsDatastore();

/** The extension's export, as the tool loads it. */
export const datastore = {
  type: "@sluice/gcs-datastore",
  name: "Google Cloud Storage (Sluice)",
  description: DESCRIPTION,
  configSchema: defaults.configSchema,
  createProvider: (config: Record<string, unknown>): ExtensionProvider =>
    defaults.createProvider(config),
};

/** The config accepted by {@link datastore}. */
export type SluiceGcsConfig = z.input<typeof gcsExtensionConfigSchema>;
