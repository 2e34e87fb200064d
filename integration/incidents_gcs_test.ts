/**
 * The incident scenarios (`incident_scenarios.ts`) end to end against
 * fake-gcs-server: clones made by the GCS provider from the datastore config,
 * each with its own GCS client, sharing one fresh bucket per scenario;
 * outages through the fault proxy.
 */
import { incidentScenarios } from "./incident_scenarios.ts";
import { fakeGcsScenarioBackend } from "./scenario_backends.ts";
import { type FakeGcsServer, startFakeGcs } from "./servers/fake_gcs.ts";

let fakeGcs: Promise<FakeGcsServer> | undefined;
const sharedFakeGcs = () => (fakeGcs ??= startFakeGcs());

incidentScenarios(fakeGcsScenarioBackend(sharedFakeGcs));

Deno.test({
  name: "stop the shared fake-gcs-server (incidents)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (fakeGcs) await (await fakeGcs).stop();
  },
});
