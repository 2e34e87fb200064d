/**
 * A run's two-phase flush beside a structural command of the same process
 * (one sync service): the run's preparation uploads a dirty definitions
 * file too, then the structural command edits that file again and pushes
 * it, then the run commits. The file's later edit is this cache's own and
 * published: the run's commit neither calls it another writer's nor records
 * a conflict, and every later edit of the file is published, also by a
 * service reopened over the cache.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore, writeAsTool } from "./checkout_kit.ts";
import { toolProcess } from "./tool_process_kit.ts";

const MODEL = { modelType: "shell/cmd", modelId: "m1" };
const DEF = "definitions/ss.yaml";

Deno.test("prepared superseded: a run's prepared upload of a definitions file, edited and pushed again by a structural command before the run's commit, is no conflict, and later edits are published", async () => {
  const store = new InMemoryStore();
  const { svc, cache, warnings, underGlobal, lockOf, ...p } = await toolProcess(
    store,
    createSluice,
  );
  /** A structural command: global lock, pull, the edit, a push naming no model. */
  const structural = (text: string) => p.structural(DEF, text, { pull: true });
  await structural("X0");
  // An edit of the file left unpushed in the cache.
  await svc.markDirty({ relPath: DEF });
  await writeAsTool(cache, DEF, "X1");
  // A run on m1: its lock, its scoped pull, a version, its preparation.
  const lock = lockOf("m1");
  await lock.acquire();
  await svc.pullChanged({ context: { models: [MODEL] } });
  await svc.markDirty({ relPath: "data/shell/cmd/m1/out/1" });
  await writeAsTool(cache, "data/shell/cmd/m1/out/1/raw", "from m1");
  const manifest = await svc.preparePush({ context: { models: [MODEL] } });
  assert.equal(store.peekText(DEF), "X1", "the preparation uploaded the definitions file");
  // A structural command writes X2 and pushes it.
  await structural("X2");
  assert.equal(store.peekText(DEF), "X2");
  // The run's commit.
  try {
    await underGlobal(() => svc.commitPush(manifest));
  } finally {
    await lock.release();
  }
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
  // The first pull, of a datastore nothing was pushed to yet, says so (datastore_empty).
  assert.deepEqual(warnings.map((w) => w.code).filter((c) => c !== "datastore_empty"), []);
  for (const text of ["X3", "X4"]) {
    assert.equal(await structural(text), 1, `${text} is pushed`);
    assert.equal(store.peekText(DEF), text);
  }
  // A service reopened over the cache (a new process).
  const again = watchedDatastore(store, { createService: createSluice, name: "a" });
  const svc2 = again.ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", cache);
  await svc2.markDirty({ relPath: DEF });
  await writeAsTool(cache, DEF, "X5");
  assert.equal(await svc2.pushChanged(), 1);
  assert.equal(store.peekText(DEF), "X5");
  assert.deepEqual(
    [...warnings, ...again.warnings].map((w) => w.code).filter((c) => c !== "datastore_empty"),
    [],
  );
});
