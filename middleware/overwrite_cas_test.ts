import assert from "node:assert/strict";
import {
  OVERWRITE_CAS,
  overwriteCas,
  overwriteCasApplies,
  overwriteCasEntry,
} from "./overwrite_cas.ts";
import { mockPushContext, planEntry, spyNext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";

Deno.test("markers, index files and other state get a compare-and-swap on their synced version", async () => {
  const m = await mockPushContext({
    plan: [
      planEntry("data/t/m/d/latest", { class: "latest-marker", syncedVersion: "v3" }),
      planEntry(".catalog-export.json", { class: "index" }),
      planEntry("notes/n.txt", { class: "other", syncedVersion: "v7" }),
      planEntry("data/t/m/d/1/raw", { class: "data-version" }),
      planEntry("config/a.yaml", { class: "config", syncedVersion: "v1" }),
      planEntry("notes/gone.txt", { class: "other", action: "delete", syncedVersion: "v2" }),
    ],
  });
  const next = spyNext();
  await overwriteCas()(m.ctx, next);
  assert.equal(next.calls, 1);
  const [marker, index, other, version, config, gone] = m.ctx.plan;
  assert.deepEqual(marker.mode, PutModes.update("v3"));
  assert.deepEqual(index.mode, PutModes.create, "never synced: create-only");
  assert.equal(index.snapshot, true, "a catalog export is a snapshot");
  assert.equal(marker.snapshot, undefined);
  assert.equal(other.snapshot, undefined);
  assert.deepEqual(other.mode, PutModes.update("v7"));
  assert.equal(version.mode, undefined, "data versions are the create-only writer's");
  assert.equal(config.mode, undefined, "config files are the lockfile guard's");
  assert.equal(gone.mode, undefined, "deletes are conditional by themselves");
  assert.deepEqual(
    m.ctx.plan.filter((e) => e.handledBy.includes(OVERWRITE_CAS)).map((e) => e.path),
    ["data/t/m/d/latest", ".catalog-export.json", "notes/n.txt"],
  );
  assert.deepEqual(m.gates.filter((g) => g.gate === OVERWRITE_CAS).map((g) => g.message), [
    "marker/index/other files: 2 to write only over the version this cache last synced; 1 never synced here, to write only where none exists yet",
  ]);
});

Deno.test("a first push of new files does not say they were written over anything", async () => {
  const m = await mockPushContext({ plan: [planEntry("notes/new.txt", { class: "other" })] });
  await overwriteCas()(m.ctx, spyNext());
  assert.deepEqual(m.gates.filter((g) => g.gate === OVERWRITE_CAS).map((g) => g.message), [
    "marker/index/other files: 1 never synced here, to write only where none exists yet",
  ]);
});

Deno.test("a mode another gate already chose is kept", () => {
  const e = planEntry("notes/n.txt", { class: "other", mode: PutModes.create });
  assert.equal(overwriteCasApplies(e), false);
  assert.equal(overwriteCasApplies(planEntry("notes/n.txt", { class: "other" })), true);
});

Deno.test("the default entry registers in the guard phase and describes itself", () => {
  const e = overwriteCasEntry();
  assert.equal(e.name, OVERWRITE_CAS);
  assert.equal(e.phase, "guard");
  assert.ok(e.description);
});
