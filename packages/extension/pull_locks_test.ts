/**
 * A pull naming no model (a structural command's) beside a run of the same
 * process that holds its model's lock: what is under that lock is the run's
 * until its own flush, and the pull leaves it as it is.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore } from "./checkout_kit.ts";
import { toolModel as model, toolProcess } from "./tool_process_kit.ts";

/** One process of the tool over `store`, named `name`, over one sync service of its own cache. */
const process = (store: InMemoryStore, name: string) => toolProcess(store, createSluice, name);

/**
 * The run of `a` (its lock `lock`) kept its version 1 as it was, its flush
 * is refused with `version_exists` (the datastore's version 1 being b's),
 * and the datastore holds b's still; the lock is released either way.
 */
async function flushRefusedOverB(
  a: Awaited<ReturnType<typeof toolProcess>>,
  lock: { release(): Promise<void> },
  store: InMemoryStore,
): Promise<void> {
  assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), "from a", "the run's, left as it is");
  try {
    await assert.rejects(
      a.underGlobal(() => a.svc.pushChanged({ context: { models: [model("m1")] } })),
      (e: unknown) => e instanceof SluiceError && e.code === "version_exists",
    );
  } finally {
    await lock.release();
  }
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from b");
}

Deno.test("pull locks: a pull naming no model beside a run holding its model lock leaves the run's unpublished version as it is, and the run's flush is refused for the version another writer published first, never acknowledged over it", async () => {
  const store = new InMemoryStore();
  const a = await process(store, "a");
  const b = await process(store, "b");
  // a's run: its model lock, its scoped pull, version 1 written.
  const lock = a.lockOf("m1");
  await lock.acquire();
  await a.svc.pullChanged({ context: { models: [model("m1")] } });
  await a.method("m1", "from a");
  // Another writer publishes its own version 1 of that model meanwhile (a
  // crashed run's, say, published by its clone's later push).
  await b.method("m1", "from b");
  await b.svc.pushChanged();
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from b");
  // A structural command of a's process: the global lock, a pull naming no model.
  await a.underGlobal(() => a.svc.pullChanged());
  await flushRefusedOverB(a, lock, store);
});

Deno.test("pull locks: a pull naming no model takes what another writer published under a model lock the process does not hold, and a later pull takes what it left under a lock since released", async () => {
  const store = new InMemoryStore();
  const a = await process(store, "a");
  const b = await process(store, "b");
  const lock = a.lockOf("m1");
  await lock.acquire();
  await b.method("m1", "from b");
  await b.method("m2", "from b");
  await b.svc.pushChanged();
  await a.underGlobal(() => a.svc.pullChanged());
  assert.equal(await a.read("data/shell/cmd/m2/out/1/raw"), "from b", "no lock held there");
  assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), null, "under the held lock: left");
  await lock.release();
  await a.underGlobal(() => a.svc.pullChanged());
  assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), "from b");
});

Deno.test("pull locks: a pull naming no model in another process over the same cache leaves a run's unpublished version as it is, and the run's flush is refused for the version another writer published first, never acknowledged over it", async () => {
  const store = new InMemoryStore();
  // Processes told apart in this one (each of its own, as the tool's are).
  const createService: typeof createSluice = (o) => createSluice({ ...o, ownersInProcess: true });
  const a = await toolProcess(store, createService, "a");
  const b = await process(store, "b");
  // A second process of the tool over a's cache (swamp runs each command
  // as a process of its own over the repository's cache).
  const { ds } = watchedDatastore(store, { createService, name: "a2" });
  const other = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", a.cache);
  // a's run: its model lock, its scoped pull, version 1 written.
  const lock = await a.start("m1");
  await a.method("m1", "from a");
  // Another writer publishes its own version 1 of that model meanwhile.
  await b.method("m1", "from b");
  await b.svc.pushChanged();
  // A structural command in the other process: the global lock, a pull naming no model.
  await a.underGlobal(() => other.pullChanged());
  await flushRefusedOverB(a, lock, store);
});

Deno.test("pull locks: a pull naming no model in another process over the same cache leaves as it is a run's version marked and written while the pull is under way, and the run's flush is refused for the version another writer published first, never acknowledged over it", async () => {
  const store = new InMemoryStore();
  // Processes told apart in this one (each of its own, as the tool's are).
  const createService: typeof createSluice = (o) => createSluice({ ...o, ownersInProcess: true });
  const a = await toolProcess(store, createService, "a");
  const b = await process(store, "b");
  // The other process's store: once armed, its first read of an index
  // object (its pull under way, what it leaves as it is decided) waits for
  // `during`.
  let during: (() => Promise<void>) | undefined;
  const index = (key: string) => key === ".datastore-index.json" || key.startsWith("_index/");
  const hooked = new Proxy(store, {
    get(target, prop) {
      if (prop === "get") {
        return async (key: string, o?: Parameters<InMemoryStore["get"]>[1]) => {
          const now = during && index(key) ? during : undefined;
          if (now) {
            during = undefined;
            await now();
          }
          return await target.get(key, o);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const { ds } = watchedDatastore(hooked, { createService, name: "a2" });
  const other = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", a.cache);
  // a's run: its model lock, its scoped pull.
  const lock = await a.start("m1");
  // While the other process's structural pull is under way, a's run writes
  // and marks version 1, and another writer publishes its own version 1.
  during = async () => {
    await a.method("m1", "from a");
    await b.method("m1", "from b");
    await b.svc.pushChanged();
  };
  await a.underGlobal(() => other.pullChanged());
  assert.equal(during, undefined, "the run wrote during the pull");
  await flushRefusedOverB(a, lock, store);
});
