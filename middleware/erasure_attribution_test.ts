import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import { findUnattributable, markerOf, modelPrefixes, versionDir } from "./erasure_attribution.ts";

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
