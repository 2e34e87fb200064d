/**
 * Two swamp processes on one repository share one cache: the tool runs
 * `swamp model method run` of different models at once in one repository
 * (its per-model locks allow it), each process with its own service over the
 * same cache directory. One's commit must never lose the other's marks.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore, writeAsTool } from "./checkout_kit.ts";

const model = (id: string) => ({ modelType: "shell/cmd", modelId: id });

/** One swamp process over `cache`. */
function proc(store: InMemoryStore, cache: string, name: string) {
  const { ds, warnings, lines } = watchedDatastore(store, { createService: createSluice, name });
  const provider = () => ds.createProvider(CHECKOUT_CONFIG);
  const svc = provider().createSyncService("/repo/x", cache);
  const lockOf = (id: string) =>
    provider().createLock("/repo/x/.swamp", {
      lockKey: `data/shell/cmd/${id}/.lock`,
      maxWaitMs: 500,
    });
  const global = () => provider().createLock("/repo/x/.swamp", { maxWaitMs: 500 });
  /** acquireModelLocks: model lock, scoped pull. */
  const start = async (id: string) => {
    const lock = lockOf(id);
    await lock.acquire();
    await svc.pullChanged({ context: { models: [model(id)] } });
    return lock;
  };
  /** The method body as core's UnifiedDataRepository does it. */
  const method = async (id: string, text = `from ${id}`) => {
    await svc.markDirty({ relPath: `data/shell/cmd/${id}/out` });
    await writeAsTool(cache, `data/shell/cmd/${id}/out/1/raw`, text);
    await svc.markDirty({ relPath: `data/shell/cmd/${id}/out/1` });
    await writeAsTool(cache, `data/shell/cmd/${id}/out/latest`, "1");
  };
  const prepare = (id: string) => svc.preparePush({ context: { models: [model(id)] } });
  const commit = async (m: Awaited<ReturnType<typeof prepare>>) => {
    const g = global();
    await g.acquire();
    try {
      return await svc.commitPush(m);
    } finally {
      await g.release();
    }
  };
  /** `swamp datastore sync`: global lock, pull, push. */
  const datastoreSync = async () => {
    const g = global();
    await g.acquire();
    try {
      const s = provider().createSyncService("/repo/x", cache);
      await s.pullChanged();
      return await s.pushChanged();
    } finally {
      await g.release();
    }
  };
  return { svc, start, method, prepare, commit, datastoreSync, warnings, lines, global };
}

async function peerRead(store: InMemoryStore, rel: string) {
  const cache = await Deno.makeTempDir({ prefix: "sluice-peer-" });
  const p = proc(store, cache, "z");
  await p.svc.pullChanged();
  return await Deno.readTextFile(`${cache}/${rel}`).catch(() => null);
}

/**
 * Two processes A and B over one cache: each takes its model's lock and
 * writes its version (B marks first), then A's flush commits and A releases
 * its lock, B's still under way.
 */
async function aCommitsAfterBMarked() {
  const store = new InMemoryStore();
  const cache = await Deno.makeTempDir({ prefix: "sluice-shared-" });
  const a = proc(store, cache, "a");
  const b = proc(store, cache, "b");
  const lockA = await a.start("m1");
  const lockB = await b.start("m2");
  await b.method("m2");
  await a.method("m1");
  await a.commit(await a.prepare("m1"));
  await lockA.release();
  return { store, cache, b, lockB };
}

Deno.test("shared cache: B's commit never comes (its flush failed after its uploads); A commits after B marked; the next command still publishes B's version", async () => {
  const { store, cache, b, lockB } = await aCommitsAfterBMarked();
  // B's flush uploads, then fails before its commit (the tool logs the error).
  await b.prepare("m2");
  await lockB.release(); // core: finally releases model locks; command exits (flush error logged)
  // Next command on the checkout (a new process).
  const c = proc(store, cache, "c");
  await c.datastoreSync();
  assert.equal(await peerRead(store, "data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.equal(
    await peerRead(store, "data/shell/cmd/m2/out/1/raw"),
    "from m2",
    `B's version lost. c warnings: ${JSON.stringify(c.warnings)} lines: ${c.lines.join("\n")}`,
  );
});

Deno.test("shared cache: B marks and writes, A commits, B dies before its flush; the next command publishes B's version", async () => {
  const { store, cache, lockB } = await aCommitsAfterBMarked();
  void lockB; // B is killed: its lock expires (TTL) on the store
  const c = proc(store, cache, "c");
  await c.datastoreSync();
  assert.equal(
    await peerRead(store, "data/shell/cmd/m2/out/1/raw"),
    "from m2",
    `B's version lost. c warnings: ${JSON.stringify(c.warnings)}`,
  );
});

Deno.test("shared cache: both flush normally, A's commit lands between B's mark and B's prepare", async () => {
  const { store, cache, b, lockB } = await aCommitsAfterBMarked();
  await b.commit(await b.prepare("m2"));
  await lockB.release();
  assert.equal(await peerRead(store, "data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.equal(await peerRead(store, "data/shell/cmd/m2/out/1/raw"), "from m2");
  // A later command in a fresh process has nothing left to push and no warnings.
  const c = proc(store, cache, "c");
  const n = await c.datastoreSync();
  assert.deepEqual({ n, warnings: c.warnings.map((w) => w.code) }, { n: 0, warnings: [] });
});
