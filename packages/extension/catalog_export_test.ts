/**
 * Two checkouts of one namespace, as a team shares it, each running a model
 * on its own. Before every flush the tool writes the whole
 * `<ns>/.catalog-export.json` (its catalog's rows for the namespace) and
 * marks it dirty; the last writer's snapshot stands. A model run's scoped
 * pull never fetches that file, so each checkout's copy is not based on the
 * other's: it is a snapshot, written over the datastore's version, not a
 * conflict.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore } from "./checkout_kit.ts";
import { atomicWrite } from "../../integration/swamp_replay.ts";

const NS = "prod";
const EXPORT = `${NS}/.catalog-export.json`;

function checkoutOf(store: InMemoryStore, name: string, cache: string) {
  const { ds, warnings } = watchedDatastore(store, { createService: createSluice, name });
  const provider = () => ds.createProvider(CHECKOUT_CONFIG);
  const globalLock = () =>
    provider().createLock("/r/.swamp", { lockKey: `.locks/${NS}.lock`, maxWaitMs: 1000 });
  const models: string[] = [];
  /** `swamp model method run` on model `id`: its data, then the catalog export, then the flush. */
  const run = async (id: string) => {
    const model = { modelType: "shell/cmd", modelId: id };
    const out = `${NS}/data/shell/cmd/${id}/out`;
    const svc = provider().createSyncService("/r", cache);
    const lock = provider().createLock("/r/.swamp", {
      lockKey: `${NS}/data/shell/cmd/${id}/.lock`,
      maxWaitMs: 1000,
    });
    await lock.acquire();
    try {
      await svc.pullChanged({ context: { models: [model] }, namespace: NS });
      await svc.markDirty({ relPath: out });
      await atomicWrite(cache, `${out}/1/metadata.yaml`, "version: 1\n");
      await atomicWrite(cache, `${out}/1/raw`, `${id} by ${name}`);
      await atomicWrite(cache, `${out}/latest`, "1");
      models.push(id);
      await atomicWrite(cache, EXPORT, JSON.stringify(models));
      await svc.markDirty({ relPath: EXPORT });
      const manifest = await svc.preparePush({ context: { models: [model] }, namespace: NS });
      const g = globalLock();
      await g.acquire();
      try {
        return await svc.commitPush(manifest, { namespace: NS });
      } finally {
        await g.release();
      }
    } finally {
      await lock.release();
    }
  };
  /** `swamp datastore sync`. */
  const sync = async () => {
    const g = globalLock();
    await g.acquire();
    try {
      const svc = provider().createSyncService("/r", cache);
      await svc.pullChanged({ namespace: NS });
      return await svc.pushChanged({ namespace: NS });
    } finally {
      await g.release();
    }
  };
  return { run, sync, warnings };
}

Deno.test("two checkouts of one namespace run models in turn: each one's catalog export is published, the last writer's standing, with no conflict", async () => {
  const store = new InMemoryStore();
  const a = checkoutOf(store, "a", await Deno.makeTempDir());
  const b = checkoutOf(store, "b", await Deno.makeTempDir());
  await a.sync();
  await b.sync();
  await a.run("m1");
  assert.equal(store.peekText(EXPORT), `["m1"]`);
  await b.run("m2");
  assert.equal(store.peekText(`${NS}/data/shell/cmd/m2/out/1/raw`), "m2 by b");
  assert.equal(store.peekText(EXPORT), `["m2"]`, "b's snapshot is published");
  // The first syncs, of a datastore nothing was pushed to yet, say so (datastore_empty).
  const told = (ws: { code: string }[]) =>
    ws.map((w) => w.code).filter((c) => c !== "datastore_empty");
  assert.deepEqual(told(b.warnings), [], "no changed_remotely, no conflicts left");
  await a.run("m3");
  assert.equal(store.peekText(EXPORT), `["m1","m3"]`, "then a's, over b's");
  await b.sync();
  await b.run("m4");
  assert.equal(store.peekText(EXPORT), `["m2","m4"]`);
  assert.deepEqual(told([...a.warnings, ...b.warnings]), []);
});
