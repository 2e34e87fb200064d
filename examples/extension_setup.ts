/**
 * Datastore extension setup: an S3 datastore configured from the JSON a
 * datastore setup passes, the way an extension author wires Sluice in.
 *
 *   deno run -A examples/extension_setup.ts '{"bucket":"my-bucket","prefix":"p","endpoint":"http://127.0.0.1:9000","region":"us-east-1"}'
 *
 * Credentials come from the default AWS chain (environment, profile, …),
 * never from the config JSON.
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { createS3Provider } from "../packages/s3/provider.ts";
import { ConfigError, EXIT_CODES, SluiceError } from "../sync/errors.ts";
import type { StoreProvider } from "../packages/provider/mod.ts";
import type { SyncService } from "../sync/service/service.ts";

/** What an extension's setup hook returns. */
export interface ConfiguredDatastore {
  readonly provider: StoreProvider;
  readonly service: SyncService;
  readonly cachePath: string;
  readonly datastorePath: string;
}

/**
 * Validates `configJson` and builds the provider and the sync service for
 * the repository at `repoDir`. Bad config throws a ConfigError naming the
 * field and what was expected.
 *
 * @example
 * ```ts
 * import { configureDatastore } from "./extension_setup.ts";
 * const ds = await configureDatastore(await Deno.makeTempDir(), { bucket: "my-bucket", region: "us-east-1" });
 * console.log(ds.datastorePath, ds.service.describe().push);
 * ```
 */
export async function configureDatastore(
  repoDir: string,
  configJson: unknown,
): Promise<ConfiguredDatastore> {
  const provider = createS3Provider(configJson, { createService: createSluice });
  const cachePath = provider.resolveCachePath(repoDir);
  const service = await provider.createSyncService(repoDir, cachePath) as SyncService;
  return { provider, service, cachePath, datastorePath: provider.resolveDatastorePath(repoDir) };
}

if (import.meta.main) {
  const json = Deno.args[0] ?? '{"bucket":"example","region":"us-east-1"}';
  try {
    let config: unknown;
    try {
      config = JSON.parse(json);
    } catch (e) {
      throw new ConfigError("(root)", `a JSON object of settings (${(e as Error).message})`);
    }
    const ds = await configureDatastore(Deno.cwd(), config);
    console.log(`datastore ${ds.datastorePath}, cache ${ds.cachePath}`);
    for (const line of [...ds.service.describe().push, ...ds.service.describe().write]) {
      console.log(`  ${line}`);
    }
    const health = await ds.provider.createVerifier().verify();
    // latencyMs is -1 when the read got no answer it could time (the message says why).
    const took = health.latencyMs >= 0 ? ` (${health.latencyMs} ms)` : "";
    console.log(`health: ${health.ok ? "ok" : "NOT ok"}${took}: ${health.message}`);
    // A datastore that is not healthy is no success: a script running this
    // sees it, with the exit code of what failed (78 for a missing bucket).
    if (!health.ok) Deno.exitCode = EXIT_CODES[health.code ?? "unreachable"];
  } catch (e) {
    if (e instanceof SluiceError) {
      console.error(`error[${e.code}]: ${e.message}`);
      Deno.exit(e.exitCode);
    }
    throw e;
  }
}
