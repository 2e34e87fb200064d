/**
 * The MinIO and fake-gcs-server backends of the end-to-end scenarios: a fresh
 * bucket of a shared server, and providers built from the datastore config
 * the way an extension would, with the client talking to a given endpoint
 * (the server itself or the fault proxy).
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { createS3Provider } from "../packages/s3/provider.ts";
import { createGcsProvider } from "../packages/gcs/provider.ts";
import type { ScenarioBackend } from "./scenario_world.ts";
import { ignoreMinio, type MinioServer } from "./servers/minio.ts";
import { type FakeGcsServer, ignoreFakeGcs } from "./servers/fake_gcs.ts";

/**
 * MinIO: S3 providers with path-style addressing and the server's keys.
 *
 * @example
 * ```ts ignore
 * import { startMinio } from "./servers/minio.ts";
 * let minio: ReturnType<typeof startMinio> | undefined;
 * incidentScenarios(minioScenarioBackend(() => (minio ??= startMinio())));
 * ```
 */
export function minioScenarioBackend(server: () => Promise<MinioServer>): ScenarioBackend {
  return {
    label: "MinIO",
    ignore: ignoreMinio,
    async bucket() {
      const s = await server();
      const bucket = await s.createBucket();
      return {
        endpoint: s.endpoint,
        provider: (endpoint, settings, deps) =>
          createS3Provider({
            bucket,
            region: s.region,
            endpoint,
            forcePathStyle: true,
            ...settings,
          }, {
            ...deps,
            createService: createSluice,
            credentials: { accessKeyId: s.accessKey, secretAccessKey: s.secretKey },
          }),
      };
    },
  };
}

/** fake-gcs-server: GCS providers on the emulator's endpoint (anonymous). */
export function fakeGcsScenarioBackend(server: () => Promise<FakeGcsServer>): ScenarioBackend {
  return {
    label: "fake-gcs-server",
    ignore: ignoreFakeGcs,
    async bucket() {
      const s = await server();
      const bucket = await s.createBucket();
      return {
        endpoint: s.apiEndpoint,
        provider: (apiEndpoint, settings, deps) =>
          createGcsProvider({ bucket, projectId: s.projectId, apiEndpoint, ...settings }, {
            ...deps,
            createService: createSluice,
          }),
      };
    },
  };
}
