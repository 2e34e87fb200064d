/** The setting `refused_run_eraser_world_kit.ts` gives the eraser's end-to-end tests. */
import assert from "node:assert/strict";
import { MARKER, V1, V2 } from "./refused_run_eraser_kit.ts";
import { breakglass, cacheFiles, storeFiles, world } from "./refused_run_eraser_world_kit.ts";

Deno.test("world: a pushes version 1, b pulls it, and both caches match the store", async () => {
  const w = await world({ fence: false, eraser: false });
  const files = storeFiles(w.store);
  assert.equal(files[`${V1}/raw`], "first");
  assert.equal(files[`${V1}/metadata.yaml`], "version: 1\n");
  assert.equal(files[MARKER], "1");
  assert.deepEqual(await cacheFiles(w.a), files);
  assert.deepEqual(await cacheFiles(w.b), files);
  assert.deepEqual(w.warnings, []);
});

Deno.test("breakglass: B takes A's lock and pushes version 2; A's push is refused", async () => {
  const r = await breakglass({ fence: true, eraser: false });
  assert.equal(r.error?.code, "model_lock_lost");
  assert.equal(r.dirA, V2);
  assert.equal(r.store.peekText(`${V2}/raw`), "B's data");
  assert.equal(r.store.peekText(MARKER), "2");
});

Deno.test("storeFiles leaves out the index and lock objects the store holds", async () => {
  const w = await world({ fence: false, eraser: false });
  w.store.seed("data/t/m/.lock", "{}");
  const all = w.store.keys();
  assert.ok(all.length > 4, `index objects expected among ${all}`);
  assert.deepEqual(
    Object.keys(storeFiles(w.store)).sort(),
    [
      `${V1}/metadata.yaml`,
      `${V1}/raw`,
      MARKER,
    ].sort(),
  );
});
