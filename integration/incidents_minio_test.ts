/**
 * The incident scenarios (`incident_scenarios.ts`) end to end against MinIO:
 * clones made by the S3 provider from the datastore config, each with its own
 * S3 client, sharing one fresh bucket per scenario; outages through the fault
 * proxy.
 */
import { createS3Provider } from "../packages/s3/provider.ts";
import { incidentScenarios } from "./incident_scenarios.ts";
import { ignoreMinio, type MinioServer, startMinio } from "./servers/minio.ts";

let minio: Promise<MinioServer> | undefined;
const sharedMinio = () => (minio ??= startMinio());

incidentScenarios({
  label: "MinIO",
  ignore: ignoreMinio,
  async bucket() {
    const server = await sharedMinio();
    const bucket = await server.createBucket();
    return {
      endpoint: server.endpoint,
      provider: (endpoint, settings, deps) =>
        createS3Provider({
          bucket,
          region: server.region,
          endpoint,
          forcePathStyle: true,
          ...settings,
        }, {
          ...deps,
          credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
        }),
    };
  },
});

Deno.test({
  name: "stop the shared MinIO server (incidents)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (minio) await (await minio).stop();
  },
});
