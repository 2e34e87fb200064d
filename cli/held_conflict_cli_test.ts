/**
 * `sluice push` on a cache whose push leaves a path with an open conflict
 * behind, held in a plan entry left out already (the check of an earlier
 * push's upload at a name replaced here by a directory): the command names
 * the conflict and exits 3 (`conflicts_left`), never 0.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { checkHeldByConflict } from "../sync/service/clone_kit.ts";

const PATH = "notes/shared-1.md";

Deno.test("sluice push that holds the check of an earlier push's upload for an open conflict names the conflict and exits 3", async () => {
  const { store, a } = await checkHeldByConflict(PATH);
  assert.deepEqual(a.conflicts().map((c) => c.path), [PATH]);
  const openStore = (spec: StoreSpec) => ({ store, spec, close: () => {} });
  const url = "s3://mem/?endpoint=http://127.0.0.1:9";
  const pushed = await sluice(["push", "--cache", a.cacheDir, "--store", url, "--json"], {
    openStore,
  });
  assert.equal(pushed.code, 3, `${pushed.out}\n${pushed.err}`);
  const json = pushed.json();
  assert.deepEqual(json.conflicts, [PATH], pushed.out);
  assert.equal((json.outcome as { code: string }).code, "conflicts_left", pushed.out);
  const plain = await sluice(["push", "--cache", a.cacheDir, "--store", url], { openStore });
  assert.equal(plain.code, 3, plain.err);
  assert.match(plain.err, /warning\[conflicts_left\]/);
  assert.ok(plain.err.includes(PATH), plain.err);
});
