import assert from "node:assert/strict";
import { erasureFixture } from "./erasure_fixture.ts";
import { sha256Hex } from "../sync/hash.ts";

Deno.test("the erasure fixture writes a synced file with its manifest entry, and a dirty one marked", async () => {
  const f = await erasureFixture("sluice-erasure-fixture-");
  try {
    await f.synced("data/t/m/d/1/raw", "ab");
    await f.dirty("data/t/m/d/2/raw", "c");
    assert.equal(await Deno.readTextFile(`${f.dir}/data/t/m/d/1/raw`), "ab");
    assert.equal(await Deno.readTextFile(`${f.dir}/data/t/m/d/2/raw`), "c");
    assert.deepEqual(f.state.synced("data/t/m/d/1/raw"), {
      hash: await sha256Hex(new TextEncoder().encode("ab")),
      version: "r",
      size: 2,
    });
    assert.equal(f.state.synced("data/t/m/d/2/raw"), undefined);
    assert.deepEqual(f.state.dirtyPaths(), ["data/t/m/d/2/raw"]);
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});
