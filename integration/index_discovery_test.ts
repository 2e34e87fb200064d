/**
 * Index discovery on MinIO and fake-gcs-server: a bucket another tool
 * filled (objects, no index) is named by the first pull's new index, while
 * a write of Sluice's whose commit has not come (its writer id read back in
 * the object's metadata by a real HEAD) is left out until its commit.
 */
import assert from "node:assert/strict";
import { type ScenarioBackend, worldTest } from "./scenario_world.ts";
import { fakeGcsScenarioBackend, minioScenarioBackend } from "./scenario_backends.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";
import { startMinio } from "./servers/minio.ts";
import { startFakeGcs } from "./servers/fake_gcs.ts";
import { PutModes } from "../sync/ports.ts";

const minio = sharedServer(() => startMinio());
const gcs = sharedServer(() => startFakeGcs());

function discovery(label: string, backend: ScenarioBackend) {
  worldTest(
    label,
    backend,
    `a bucket with objects and no index is named by the first pull; an uncommitted Sluice write is not`,
    async (w) => {
      const a = await w.clone("a");
      const b = await w.clone("b");
      // Another tool's objects: plain puts, no metadata.
      const enc = (s: string) => new TextEncoder().encode(s);
      await a.provider.store.put("data/t/m/out/1/raw", enc("tool bytes"), PutModes.overwrite);
      await a.provider.store.put("notes/readme.md", enc("hello"), PutModes.overwrite);
      // A push of a's prepared, not committed.
      await a.write("outputs/o.yaml", "prepared");
      const prepared = await a.service.preparePush();
      assert.deepEqual(prepared.result.uploaded, ["outputs/o.yaml"]);
      const pulled = await b.service.pullChanged();
      assert.deepEqual(pulled.fetched.sort(), ["data/t/m/out/1/raw", "notes/readme.md"]);
      assert.equal(await b.readLocal("notes/readme.md"), "hello");
      assert.ok(b.warnings.some((x) => x.code === "index_discovered"));
      assert.ok(b.warnings.some((x) => x.code === "unindexed_writes_left"));
      await a.service.commitPush(prepared);
      const again = await b.service.pullChanged();
      assert.deepEqual(again.fetched, ["outputs/o.yaml"]);
    },
  );
}

/**
 * A first push that makes the index as its uploads begin
 * (`firstIndexAtUploads` 1): the other tool's object is named, this push's
 * own uploads (met by the listing, or not) are named by its commit with
 * their versions, and none is taken for an uncommitted write.
 */
function firstPush(label: string, backend: ScenarioBackend) {
  worldTest(
    label,
    backend,
    `a first push into a bucket with another tool's object and no index makes the index first, naming it and then its own files`,
    async (w) => {
      const a = await w.clone("a", { settings: { firstIndexAtUploads: 1 } });
      const enc = (s: string) => new TextEncoder().encode(s);
      await a.provider.store.put("notes/readme.md", enc("hello"), PutModes.overwrite);
      const mine = Array.from({ length: 12 }, (_, i) => `logs/l${i}.txt`);
      for (const p of mine) await a.write(p, p);
      const pushed = await a.service.pushChanged();
      assert.deepEqual(pushed.uploaded.sort(), [...mine].sort());
      assert.ok(a.warnings.some((x) => x.code === "index_discovered"));
      assert.ok(!a.warnings.some((x) => x.code === "unindexed_writes_left"));
      const b = await w.clone("b");
      const pulled = await b.service.pullChanged();
      assert.deepEqual(pulled.fetched.sort(), [...mine, "notes/readme.md"].sort());
      assert.equal(await b.readLocal("logs/l3.txt"), "logs/l3.txt");
    },
  );
}

discovery("MinIO", minioScenarioBackend(minio.get));
discovery("fake-gcs-server", fakeGcsScenarioBackend(gcs.get));
firstPush("MinIO", minioScenarioBackend(minio.get));
firstPush("fake-gcs-server", fakeGcsScenarioBackend(gcs.get));

stopSharedServers("stop the shared servers (index discovery)", minio, gcs);
