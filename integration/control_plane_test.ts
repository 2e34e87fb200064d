/**
 * swamp serve's control plane (`packages/extension/control_plane.ts`) on
 * MinIO and fake-gcs-server: two instances (each its own SDK client) share
 * the records under `_control/`, exactly one of several racing
 * `putIfAbsent` calls creates a record, and a sync of the cache never
 * touches them.
 */
import assert from "node:assert/strict";
import { type ScenarioBackend, worldTest } from "./scenario_world.ts";
import { fakeGcsScenarioBackend, minioScenarioBackend } from "./scenario_backends.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";
import { startMinio } from "./servers/minio.ts";
import { startFakeGcs } from "./servers/fake_gcs.ts";
import { controlPlane } from "../packages/extension/control_plane.ts";

const minio = sharedServer(() => startMinio());
const gcs = sharedServer(() => startFakeGcs());

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);
const RETRY = { retries: 1, minTimeoutMs: 20, maxTimeoutMs: 50 };

function controlPlaneOn(label: string, backend: ScenarioBackend) {
  worldTest(
    label,
    backend,
    `control plane records are shared, putIfAbsent has one winner, a sync leaves them alone`,
    async (w) => {
      const a = await w.clone("a");
      const b = await w.clone("b");
      const cpA = controlPlane(a.provider.store, "", RETRY);
      const cpB = controlPlane(b.provider.store, "", RETRY);
      await cpA.put("heartbeats/a", enc("alive a"));
      await cpB.put("heartbeats/b", enc("alive b"));
      assert.deepEqual((await cpB.list("heartbeats/")).sort(), ["heartbeats/a", "heartbeats/b"]);
      assert.equal(dec(await cpB.get("heartbeats/a")), "alive a");
      assert.equal(await cpA.get("heartbeats/none"), null);
      const wins = await Promise.all([
        cpA.putIfAbsent("claims/run-1", enc("a")),
        cpB.putIfAbsent("claims/run-1", enc("b")),
        cpA.putIfAbsent("claims/run-1", enc("a2")),
        cpB.putIfAbsent("claims/run-1", enc("b2")),
      ]);
      assert.equal(wins.filter(Boolean).length, 1, JSON.stringify(wins));
      const held = dec(await cpA.get("claims/run-1"));
      assert.equal(held, ["a", "b", "a2", "b2"][wins.indexOf(true)], "the winner's bytes");
      await cpB.delete("claims/run-1");
      await cpB.delete("claims/run-1");
      assert.equal(await cpA.putIfAbsent("claims/run-1", enc("again")), true);
      // A push and a pull of a cache do not see the records.
      await a.write("notes/n.txt", "n");
      await a.service.pushChanged();
      const pulled = await b.service.pullChanged();
      assert.deepEqual(pulled.fetched, ["notes/n.txt"]);
      assert.equal(await b.readLocal("_control/heartbeats/a"), null);
      assert.equal(dec(await cpB.get("heartbeats/a")), "alive a");
    },
  );
}

controlPlaneOn("MinIO", minioScenarioBackend(minio.get));
controlPlaneOn("fake-gcs-server", fakeGcsScenarioBackend(gcs.get));

stopSharedServers("stop the shared servers (control plane)", minio, gcs);
