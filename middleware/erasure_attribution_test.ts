import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import {
  findUnattributable,
  markerOf,
  modelPrefixes,
  refusedUploads,
  versionDir,
} from "./erasure_attribution.ts";
import type { UploadRecord } from "../sync/context.ts";

const D = "data/t/m/d";

function fresh() {
  return erasureFixture("sluice-attribution-");
}

Deno.test("versionDir accepts only data version directories, namespaced or not", () => {
  assert.equal(versionDir(`${D}/4/`), `${D}/4`);
  assert.equal(versionDir(`prod/${D}/4`), `prod/${D}/4`);
  assert.equal(versionDir("data/a/b/t/m/d/12"), "data/a/b/t/m/d/12");
  for (const bad of ["data/t/m", `${D}/x`, "data/m/d/4", "outputs/a/b/c/4", `${D}/../4`]) {
    assert.equal(versionDir(bad), null, bad);
  }
  assert.equal(markerOf(`${D}/4`), `${D}/latest`);
});

Deno.test("modelPrefixes come from lost lock keys and version directories", () => {
  assert.deepEqual(
    modelPrefixes(
      [{ key: "data/t/m/.lock", newHolder: null }, { key: "custom", newHolder: null }],
      [
        `${D}/4`,
        "data/t/x/e/1",
      ],
    ),
    ["data/t/m", "data/t/x"],
  );
});

Deno.test("findUnattributable names preexisting, synced and malformed directories", async () => {
  const f = await fresh();
  await f.synced(`${D}/1/raw`, "a");
  await f.dirty(`${D}/2/raw`, "b");
  await f.dirty(`${D}/3/raw`, "c");
  const problems = await findUnattributable(
    f.cache,
    [`${D}/1`, `${D}/2`, `${D}/3`, "data/t/m"],
    new Set([`${D}/2/`]),
    (p) => f.state.synced(p) !== undefined,
  );
  assert.deepEqual(problems.map((p) => p.dir), [`${D}/1`, `${D}/2`, "data/t/m"]);
});

Deno.test("refusedUploads: the run's writes, not bytes found in place, and a latest marker only where the push created it", () => {
  const rec = (path: string, version: string, created: boolean, outcome: "written" | "identical") =>
    ({
      path,
      info: { key: path, version, size: 1 },
      created,
      outcome,
    }) as UploadRecord;
  const uploaded = [
    rec(`${D}/4/raw`, "r", true, "written"),
    rec(`${D}/4/metadata.yaml`, "m", false, "identical"), // found in place
    rec(`${D}/latest`, "l", true, "written"), // created: no earlier marker is lost
    rec("data/t/m/e/latest", "e", false, "written"), // written over an earlier marker
    rec("data/t/m/e/latest", "e2", true, "written"), // another data name's marker
  ];
  const refs = refusedUploads(uploaded, [`${D}/4`], (u) => u.outcome === "identical");
  assert.deepEqual(refs, [{ path: `${D}/4/raw`, version: "r" }, {
    path: `${D}/latest`,
    version: "l",
  }]);
  const over = refusedUploads(
    [rec(`${D}/latest`, "l", false, "written")],
    [`${D}/4`],
    () => false,
  );
  assert.deepEqual(over, [], "a marker written over an earlier one is never deleted");
});
