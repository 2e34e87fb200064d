/**
 * The S3 datastore extension: the tool loads this file and reads its
 * `datastore` export. Same bucket layout, lock keys and config keys as the
 * existing S3 extension, with Sluice's gates on every push.
 *
 * A composition root for the tool: it passes the root's `createSluice` (the
 * default gates) to the adapter, which never imports it.
 *
 * @module
 */
import type { z } from "zod";
import { createSluice } from "../../../../sluice.ts";
import { createS3Provider, type S3ProviderDeps } from "../../../../packages/s3/provider.ts";
import {
  defineDatastore,
  type DefinedDatastore,
  type ExtensionProvider,
  type InjectedExtensionDeps,
  s3ExtensionConfigSchema,
  TIMEOUT_ENV,
  toSluiceS3Config,
} from "../../../../packages/extension/mod.ts";

/** Collaborators a test injects (static credentials for an emulator among them). */
export interface SluiceS3Deps extends InjectedExtensionDeps {
  /** Static credentials instead of the SDK's default chain. */
  readonly credentials?: S3ProviderDeps["credentials"];
}

/**
 * The S3 extension with injected collaborators (tests); `datastore` is this
 * with none.
 *
 * @example
 * ```ts
 * import { createSluiceS3Datastore } from "./sluice_s3.ts";
 * const ds = createSluiceS3Datastore({ env: () => undefined });
 * console.log(ds.createProvider({ bucket: "my-bucket" }).resolveDatastorePath("/repo")); // /repo/.swamp
 * ```
 */
export function createSluiceS3Datastore(
  deps: SluiceS3Deps = {},
): DefinedDatastore<typeof s3ExtensionConfigSchema> {
  const { credentials, ...rest } = deps;
  return defineDatastore({
    type: "@sluice/s3-datastore",
    name: "Amazon S3 (Sluice)",
    description: DESCRIPTION,
    configSchema: s3ExtensionConfigSchema,
    toSluiceConfig: toSluiceS3Config,
    timeoutVar: TIMEOUT_ENV.s3,
    build: (config, providerDeps) =>
      createS3Provider(config, { ...providerDeps, ...(credentials ? { credentials } : {}) }),
  }, {
    // The tool prints no datastore events: warnings go to standard error, as the existing extensions' do.
    warn: (line) => console.warn(line),
    ...rest,
    createService: createSluice,
  });
}

const DESCRIPTION =
  "Amazon S3 or an S3-compatible store, with a local cache synced by Sluice: create-only data versions, pushes fenced by model locks, and the managed lockfile published by its transaction.";

const defaults = createSluiceS3Datastore();

/** The extension's export, as the tool loads it. */
export const datastore = {
  type: "@sluice/s3-datastore",
  name: "Amazon S3 (Sluice)",
  description: DESCRIPTION,
  configSchema: defaults.configSchema,
  createProvider: (config: Record<string, unknown>): ExtensionProvider =>
    defaults.createProvider(config),
};

/** The config accepted by {@link datastore}. */
export type SluiceS3Config = z.input<typeof s3ExtensionConfigSchema>;
