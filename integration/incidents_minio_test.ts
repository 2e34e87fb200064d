/**
 * The incident scenarios (`incident_scenarios.ts`) end to end against MinIO:
 * clones made by the S3 provider from the datastore config, each with its own
 * S3 client, sharing one fresh bucket per scenario; outages through the fault
 * proxy.
 */
import { incidentScenarios } from "./incident_scenarios.ts";
import { minioScenarioBackend } from "./scenario_backends.ts";
import { type MinioServer, startMinio } from "./servers/minio.ts";

let minio: Promise<MinioServer> | undefined;
const sharedMinio = () => (minio ??= startMinio());

incidentScenarios(minioScenarioBackend(sharedMinio));

Deno.test({
  name: "stop the shared MinIO server (incidents)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (minio) await (await minio).stop();
  },
});
