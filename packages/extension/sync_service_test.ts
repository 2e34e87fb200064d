/**
 * The extension's sync service driven the way the tool drives it (per-model
 * locks through createLock, markDirty of data-name directories before the
 * write, pushChanged or preparePush + commitPush), over one in-memory
 * bucket shared by "processes" that are separate extension instances with
 * their own identity and cache.
 */
import { writeAsTool } from "./checkout_kit.ts";
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { LOCK_FENCE } from "../../middleware/lock_fence.ts";
import { REFUSED_RUN_ERASER } from "../../middleware/refused_run_eraser.ts";
import { CREATE_ONLY_WRITER } from "../../middleware/create_only_writer.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";
import type { ExtensionProvider } from "./provider.ts";
import type { ExtensionSyncService } from "./sync_service.ts";
import { ExtensionLock, SwampLockTimeoutError } from "./lock.ts";

const CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };
const MODEL = { modelType: "shell/cmd", modelId: "m1" };
const LOCK_KEY = "data/shell/cmd/m1/.lock";

interface Proc {
  readonly provider: () => ExtensionProvider;
  readonly svc: ExtensionSyncService;
  readonly cache: string;
  write(rel: string, text: string): Promise<void>;
  read(rel: string): Promise<string | null>;
}

async function proc(store: InMemoryStore, name: string, disable?: string[]): Promise<Proc> {
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: `${name}@host-${name}`, hostname: `host-${name}`, pid: name.charCodeAt(0) },
    ...(disable ? { disableGatesForTesting: disable } : {}),
  });
  const cache = await Deno.makeTempDir({ prefix: `sluice-ext-${name}-` });
  // The tool calls createProvider again at each site: so does this test.
  const provider = () => ds.createProvider(CONFIG);
  return {
    provider,
    svc: provider().createSyncService(`/repo/${name}`, cache),
    cache,
    write: (rel, text) => writeAsTool(cache, rel, text),
    read: (rel) => Deno.readTextFile(`${cache}/${rel}`).catch(() => null),
  };
}

/** A model run as the tool does it: lock, scoped pull, markDirty, write. */
async function run(p: Proc, version: number, text: string) {
  const lock = p.provider().createLock("/repo/.swamp", { lockKey: LOCK_KEY, maxWaitMs: 1000 });
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [MODEL] } });
  await p.svc.markDirty({ relPath: "data/shell/cmd/m1/out" });
  await p.write(`data/shell/cmd/m1/out/${version}/raw`, text);
  await p.write(`data/shell/cmd/m1/out/latest`, String(version));
  await p.svc.markDirty({ relPath: `data/shell/cmd/m1/out/${version}` });
  return lock;
}

async function breakglass(p: Proc) {
  const lock = p.provider().createLock("/repo/.swamp", { lockKey: LOCK_KEY });
  const info = await lock.inspect();
  assert.ok(info?.nonce);
  assert.equal(await lock.forceRelease(info.nonce), true);
}

/** A run's flush, naming its model as the tool does (the extension syncs scoped). */
const FLUSH = { context: { models: [MODEL] } };

const isLockLost = (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost";

Deno.test("sync: a run whose model lock was broken is refused and its version erased; the new holder's bytes stay", async () => {
  for (const gatesOn of [true, false]) {
    const store = new InMemoryStore();
    const off = gatesOn ? undefined : [LOCK_FENCE, REFUSED_RUN_ERASER, CREATE_ONLY_WRITER];
    const a = await proc(store, "a", off);
    const b = await proc(store, "b", off);
    const op = await proc(store, "op");
    const lockA = await run(a, 1, "from a");
    await breakglass(op);
    const lockB = await run(b, 1, "from b");
    assert.equal(await b.svc.pushChanged(FLUSH), 3); // raw, metadata.yaml, latest
    await lockB.release();
    if (gatesOn) {
      await assert.rejects(a.svc.pushChanged(FLUSH), isLockLost);
      // The refused run's bytes are gone; the refresh brought the datastore's copy.
      assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), "from b");
      // Pushing again under the lost lock is refused again: the refreshed
      // version is the datastore's, not taken for this run's (no erasure_refused).
      await assert.rejects(a.svc.pushChanged(FLUSH), isLockLost);
      assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), "from b");
      await lockA.release(); // the tool releases the model locks in a finally
      assert.equal(await a.svc.pushChanged(), 0); // nothing of the refused run is left to push
      assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from b");
    } else {
      await a.svc.pushChanged(FLUSH);
      await lockA.release();
      assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from a"); // the loss
    }
  }
});

Deno.test("sync: a lock lost between preparePush and commitPush makes commitPush refuse and erase, its uploads included", async () => {
  for (const fenceOn of [true, false]) {
    const store = new InMemoryStore();
    const a = await proc(store, "a", fenceOn ? undefined : [LOCK_FENCE]);
    const op = await proc(store, "op");
    const lockA = await run(a, 1, "from a");
    const manifest = await a.svc.preparePush({ context: { models: [MODEL] } });
    assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from a"); // uploaded, not indexed
    await breakglass(op);
    const global = a.provider().createLock("/repo/.swamp", { maxWaitMs: 1000 });
    await global.acquire();
    if (fenceOn) {
      await assert.rejects(a.svc.commitPush(manifest), isLockLost);
      assert.equal(await a.read("data/shell/cmd/m1/out/1/raw"), null);
      // The prepared upload is deleted from the bucket; nothing is left to push.
      assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined);
    } else {
      // Without the fence the refused run's version is committed: peers pull it.
      assert.equal(await a.svc.commitPush(manifest), 3); // raw, metadata.yaml, latest
      const c = await proc(store, "c");
      assert.equal(await c.svc.pullChanged(), 3);
      assert.equal(await c.read("data/shell/cmd/m1/out/1/raw"), "from a");
    }
    await global.release();
    await lockA.release(); // the tool releases the model locks in a finally
    if (fenceOn) assert.equal(await a.svc.pushChanged(), 0); // nothing of the run is left to push
  }
});

Deno.test("sync: two-phase push under held locks equals a push; counts are files", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  const lockA = await run(a, 1, "one");
  const manifest = await a.svc.preparePush({ context: { models: [MODEL] } });
  assert.equal(await b.svc.pullChanged(), 0); // nothing committed yet
  const global = a.provider().createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await global.acquire();
  assert.equal(await a.svc.commitPush(manifest), 3); // raw, metadata.yaml, latest
  await global.release();
  await lockA.release();
  assert.equal(await b.svc.pullChanged(), 3);
  assert.equal(await b.read("data/shell/cmd/m1/out/1/raw"), "one");
  assert.equal(await b.svc.hydrateFile("data/shell/cmd/m1/out/1/raw"), true);
  assert.equal(await b.svc.hydrateFile("data/shell/cmd/m1/out/9/raw"), false);
});

Deno.test("sync: namespaced paths are stripped, keys are <ns>/…, a mismatch throws, internal files are not marked", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.write("prod/.namespace.json", "{}");
  await a.svc.markDirty({ relPath: "prod/outputs/t/m/x.yaml" });
  await a.write("prod/outputs/t/m/x.yaml", "out");
  await a.svc.markDirty({ relPath: "prod/data/t/m/.lock" });
  await a.write("prod/data/t/m/.lock", "{}");
  await a.svc.markDirty({ relPath: "prod/_catalog.db-wal" });
  await a.write("prod/_catalog.db-wal", "x");
  assert.equal(await a.svc.pushChanged({ namespace: "prod" }), 1);
  assert.equal(store.peekText("prod/outputs/t/m/x.yaml"), "out");
  assert.deepEqual(store.keys("prod/data"), []);
  assert.deepEqual(store.keys("prod/_catalog"), []);
  await assert.rejects(a.svc.pullChanged({ namespace: "other" }), /Namespace mismatch/);
  await assert.rejects(a.svc.pushChanged({ namespace: "" }), /Namespace mismatch/);
});

Deno.test("sync: the managed lockfile is published as a delta; a peer's entry survives", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const c = await proc(store, "c");
  const path = "config/upstream_extensions.json";
  await a.svc.markDirty({ relPath: path });
  await a.write(path, JSON.stringify({ "@x/one": { version: "1" } }));
  await a.svc.pushChanged();
  await c.svc.pullChanged();
  await c.svc.markDirty({ relPath: path });
  await c.write(path, JSON.stringify({ "@x/one": { version: "1" }, "@x/ssh": { version: "2" } }));
  await c.svc.pushChanged();
  // a's copy is stale; it adds its own entry and also pushes everything (a bulk mark).
  await a.svc.markDirty({ relPath: path });
  await a.write(path, JSON.stringify({ "@x/one": { version: "1" }, "@x/vault": { version: "3" } }));
  await a.svc.markDirty();
  await a.svc.pushChanged();
  const remote = JSON.parse(store.peekText(path) ?? "{}");
  assert.deepEqual(Object.keys(remote).sort(), ["@x/one", "@x/ssh", "@x/vault"]);
});

Deno.test("lock: a second holder times out with LockTimeoutError naming key, holder and wait", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  const la = a.provider().createLock("/x", { lockKey: "data/t/m/.lock", ttlMs: 60_000 });
  await la.acquire();
  const lb = b.provider().createLock("/x", {
    lockKey: "data/t/m/.lock",
    ttlMs: 60_000,
    retryIntervalMs: 20,
    maxWaitMs: 100,
  });
  await assert.rejects(lb.acquire(), (e: unknown) => {
    assert.ok(e instanceof SwampLockTimeoutError);
    assert.equal(e.name, "LockTimeoutError");
    assert.equal(e.lockKey, "data/t/m/.lock");
    assert.match(e.holder, /a@host-a/);
    assert.ok(e.waitedMs >= 100);
    assert.equal(e.exitCode, 75);
    return true;
  });
  await la.release();
  assert.equal(await lb.withLock(() => "done"), "done");
});

Deno.test("lock: a third-party backend's timeout (an error with the code lock_timeout only) reaches the tool as its LockTimeoutError", async () => {
  // The lock conformance suite matches lock errors by their code, not their class.
  const timeout = Object.assign(new Error("busy"), { code: "lock_timeout" });
  const other = {
    holder: "b@host-b",
    hostname: "host-b",
    pid: 2,
    acquiredAt: new Date(0).toISOString(),
    ttlMs: 30_000,
    nonce: "n",
  };
  const lock = new ExtensionLock({
    key: LOCK_KEY,
    acquire: () => Promise.reject(timeout),
    release: () => Promise.resolve(),
    withLock: (fn) => fn(),
    inspect: () => Promise.resolve(other),
    forceRelease: () => Promise.resolve(false),
  });
  await assert.rejects(lock.acquire(), (e: unknown) => {
    assert.ok(e instanceof SwampLockTimeoutError);
    assert.equal(e.lockKey, LOCK_KEY);
    assert.match(e.holder, /b@host-b/);
    assert.equal(e.cause, timeout);
    return true;
  });
});
Deno.test("sync: migrateMonolithToShards moves a namespace's index to v2 once; old clients' reader and a peer see every file", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.write("prod/.namespace.json", "{}");
  await a.svc.markDirty({ relPath: "prod/data/t/m/d/1/raw" });
  await a.write("prod/data/t/m/d/1/raw", "one");
  assert.equal(await a.svc.pushChanged({ namespace: "prod" }), 1);
  const r = await a.svc.migrateMonolithToShards!({ namespace: "prod" });
  assert.deepEqual(r, { version: 2, partitions: ["data--t--m"], commitSeq: 1 });
  assert.ok(store.peekText("prod/_index/data--t--m.json")?.includes("data/t/m/d/1/raw"));
  assert.deepEqual(await a.svc.migrateMonolithToShards!({ namespace: "prod" }), r, "once");
  const b = await proc(store, "b");
  assert.equal(await b.svc.pullChanged({ namespace: "prod" }), 1);
  assert.equal(await b.read("prod/data/t/m/d/1/raw"), "one");
});

Deno.test("sync: the model-lock fence holds in a namespace named data as in any other", async () => {
  for (const ns of ["prod", "data"]) {
    const store = new InMemoryStore();
    const a = await proc(store, "a");
    const b = await proc(store, "b");
    const op = await proc(store, "op");
    const key = `${ns}/data/shell/cmd/m1/.lock`;
    const nsRun = async (p: Proc, text: string) => {
      await p.write(`${ns}/.namespace.json`, "{}");
      const lock = p.provider().createLock("/repo/.swamp", { lockKey: key, maxWaitMs: 1000 });
      await lock.acquire();
      await p.svc.pullChanged({ namespace: ns, context: { models: [MODEL] } });
      await p.svc.markDirty({ relPath: `${ns}/data/shell/cmd/m1/out` });
      await p.write(`${ns}/data/shell/cmd/m1/out/1/raw`, text);
      await p.write(`${ns}/data/shell/cmd/m1/out/latest`, "1");
      await p.svc.markDirty({ relPath: `${ns}/data/shell/cmd/m1/out/1` });
      return lock;
    };
    const lockA = await nsRun(a, "from a");
    const broken = op.provider().createLock("/repo/.swamp", { lockKey: key });
    const info = await broken.inspect();
    assert.ok(info?.nonce);
    assert.equal(await broken.forceRelease(info.nonce), true);
    const lockB = await nsRun(b, "from b");
    assert.equal(await b.svc.pushChanged({ namespace: ns, ...FLUSH }), 3); // raw, metadata.yaml, latest
    await lockB.release();
    await assert.rejects(
      a.svc.pushChanged({ namespace: ns, ...FLUSH }),
      isLockLost,
      `namespace "${ns}"`,
    );
    assert.equal(store.peekText(`${ns}/data/shell/cmd/m1/out/1/raw`), "from b");
    assert.equal(await a.read(`${ns}/data/shell/cmd/m1/out/1/raw`), "from b");
    await lockA.release();
  }
});

Deno.test("a global lock object that is no lock: inspect says it is held (acquired at its last write), and a force-release of what it said clears it", async () => {
  const store = new InMemoryStore();
  const p = await proc(store, "a");
  const seeded = store.seed(".datastore.lock", "{ half a lock");
  // As the tool's lock status, stale-lock wait and `lock release --force` use it.
  const lock = p.provider().createLock("/repo/.swamp", {});
  const info = await lock.inspect();
  assert.ok(info, "held: an object is there");
  assert.match(info.holder, /^an unreadable lock: malformed lock body/);
  assert.equal(Date.parse(info.acquiredAt), seeded.lastModified);
  assert.equal(info.ttlMs, CONFIG.lock.ttlMs);
  assert.equal(await lock.forceRelease(info.nonce), true);
  assert.equal(await lock.inspect(), null);
  await Deno.remove(p.cache, { recursive: true });
});

Deno.test("lock: a wait for a lock object that is no lock times out naming what is wrong with it, with no made-up holder or pid", async () => {
  const store = new InMemoryStore();
  const p = await proc(store, "a");
  store.seed(".datastore.lock", "{ half a lock");
  const lock = p.provider().createLock("/repo/.swamp", { retryIntervalMs: 10, maxWaitMs: 50 });
  await assert.rejects(lock.acquire(), (e: unknown) => {
    assert.ok(e instanceof SwampLockTimeoutError);
    assert.equal(e.holder, 'an unknown holder (malformed lock body "{ half a lock": not JSON)');
    assert.match(
      e.message,
      /waiting for lock \.datastore\.lock, held by an unknown holder \(malformed lock body "\{ half a lock": not JSON\)\. Nothing was changed/,
    );
    assert.doesNotMatch(e.message, /pid/);
    return true;
  });
  assert.equal(store.peekText(".datastore.lock"), "{ half a lock", "nothing was removed");
  await Deno.remove(p.cache, { recursive: true });
});

/**
 * A run of `p` as the tool's data writer starts it: its model's lock, its
 * scoped pull, version 1's `raw` written part way (`first`), no
 * `metadata.yaml` yet.
 */
async function streaming(p: Proc, first: string) {
  const lock = p.provider().createLock("/repo/.swamp", { lockKey: LOCK_KEY, maxWaitMs: 1000 });
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [MODEL] } });
  await p.svc.markDirty({ relPath: "data/shell/cmd/m1/out" });
  const dir = "data/shell/cmd/m1/out/1";
  await Deno.mkdir(`${p.cache}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${p.cache}/${dir}/raw`, first);
  return { lock, dir };
}

for (const twoPhase of [false, true]) {
  Deno.test(`sync: a run whose version another step's flush held (still being written) is erased when its own flush is refused for a lost lock (${twoPhase ? "two-phase" : "single-phase"})`, async () => {
    const store = new InMemoryStore();
    const a = await proc(store, "a");
    const op = await proc(store, "op");
    const { lock, dir } = await streaming(a, "part 1\n");
    // Another step's flush, of another model: it holds the unfinished version.
    await a.svc.pushChanged({ context: { models: [{ modelType: "shell/cmd", modelId: "m9" }] } });
    assert.equal(store.peekText(`${dir}/raw`), undefined);
    await Deno.writeTextFile(`${a.cache}/${dir}/raw`, "part 1\npart 2\n");
    await Deno.writeTextFile(`${a.cache}/${dir}/metadata.yaml`, "version: 1\n");
    await a.svc.markDirty({ relPath: dir });
    await breakglass(op);
    const refused = twoPhase
      ? a.svc.preparePush({ context: { models: [MODEL] } }).then((m) => a.svc.commitPush(m))
      : a.svc.pushChanged({ context: { models: [MODEL] } });
    await assert.rejects(refused, isLockLost);
    assert.equal(await a.read(`${dir}/raw`), null, "the refused run's version is erased");
    await lock.release();
    assert.equal(await a.svc.pushChanged(), 0, "nothing of it is left to push");
    assert.equal(store.peekText(`${dir}/raw`), undefined);
  });
}

Deno.test("sync: another step's flush is not refused for this run's lost lock: the version still being written stays out of it, and this run's own flush is refused and erases it", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  const op = await proc(store, "op");
  const { lock, dir } = await streaming(a, "a's part 1\n");
  await breakglass(op);
  (await run(b, 1, "from b")).release(); // the new holder publishes version 1
  assert.equal(await b.svc.pushChanged(), 3);
  // Another step's flush in a's process, for another model: not refused.
  const other = { context: { models: [{ modelType: "shell/cmd", modelId: "m9" }] } };
  await a.svc.pushChanged(other);
  assert.equal(await a.read(`${dir}/raw`), "a's part 1\n", "left out of it, not erased by it");
  assert.equal(store.peekText(`${dir}/raw`), "from b", "b's version stands");
  // The writer finishes; this run's own flush is refused and erases it.
  await Deno.writeTextFile(`${a.cache}/${dir}/raw`, "a's part 1\na's part 2\n");
  await Deno.writeTextFile(`${a.cache}/${dir}/metadata.yaml`, "version: 1\n");
  await a.svc.markDirty({ relPath: dir });
  await assert.rejects(a.svc.pushChanged({ context: { models: [MODEL] } }), isLockLost);
  await lock.release();
  await a.svc.pullChanged();
  assert.equal(await a.read(`${dir}/raw`), "from b", "a later pull takes the datastore's version");
  assert.equal(store.peekText(`${dir}/raw`), "from b");
});
