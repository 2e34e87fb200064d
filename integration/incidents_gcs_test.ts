/**
 * The incident scenarios (`incident_scenarios.ts`) end to end against
 * fake-gcs-server: clones made by the GCS provider from the datastore config,
 * each with its own GCS client, sharing one fresh bucket per scenario;
 * outages through the fault proxy.
 */
import { createGcsProvider } from "../packages/gcs/provider.ts";
import { incidentScenarios } from "./incident_scenarios.ts";
import { type FakeGcsServer, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";

let fakeGcs: Promise<FakeGcsServer> | undefined;
const sharedFakeGcs = () => (fakeGcs ??= startFakeGcs());

incidentScenarios({
  label: "fake-gcs-server",
  ignore: ignoreFakeGcs,
  async bucket() {
    const server = await sharedFakeGcs();
    const bucket = await server.createBucket();
    return {
      endpoint: server.apiEndpoint,
      provider: (apiEndpoint, settings, deps) =>
        createGcsProvider({ bucket, projectId: server.projectId, apiEndpoint, ...settings }, deps),
    };
  },
});

Deno.test({
  name: "stop the shared fake-gcs-server (incidents)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (fakeGcs) await (await fakeGcs).stop();
  },
});
