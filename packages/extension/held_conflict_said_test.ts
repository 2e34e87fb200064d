/**
 * A push the tool drives that leaves a path with an open conflict behind,
 * held in a plan entry left out already (the check of an earlier push's
 * upload at a name replaced here by a directory), warns `conflicts_left`
 * naming the path: the tool reads only the push's count, and would
 * otherwise take it for a clean one.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { checkHeldByConflict } from "../../sync/service/clone_kit.ts";
import { envFrom } from "./env.ts";
import { defineStoreDatastore } from "./store_datastore.ts";

const PATH = "notes/shared-1.md";

Deno.test("said: a push that holds the check of an earlier push's upload for an open conflict warns conflicts_left with the path", async () => {
  const { store, a } = await checkHeldByConflict(PATH);
  assert.deepEqual(a.conflicts().map((c) => c.path), [PATH]);
  const lines: string[] = [];
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "a-tool@host", hostname: "host", pid: 7 },
    conditional: new ConditionalWrites(),
    warn: (l) => lines.push(l),
  });
  const svc = ds.createProvider({ bucket: "mem" }).createSyncService(`/repo/a`, a.cacheDir);
  await svc.pushChanged();
  const said = lines.filter((l) => l.includes("warning[conflicts_left]"));
  assert.equal(said.length, 1, lines.join("\n"));
  assert.ok(said[0].includes(PATH), said[0]);
});
