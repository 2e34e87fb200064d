import assert from "node:assert/strict";
import { acquireModelLocks, globalLockKey, modelLockKey, releaseLock } from "./model_locks.ts";
import { createSyncService, type SyncService } from "../service/service.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import type { Identity } from "../ports.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: InMemoryStore, clock: FakeClock, name: string) {
  const identity: Identity = { holder: `${name}@host`, hostname: "host", pid: name.length };
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
    store,
    clock,
    identity,
    lockBackend: storeLockBackend(store, { clock }),
    config: quick,
  });
}

Deno.test("lock keys follow the datastore layout", () => {
  assert.equal(modelLockKey("aws/ec2/m1"), "data/aws/ec2/m1/.lock");
  assert.equal(modelLockKey("t/m", "prod"), "prod/data/t/m/.lock");
  assert.equal(globalLockKey(), ".datastore.lock");
  assert.equal(globalLockKey("prod"), ".locks/prod.lock");
});

Deno.test("a lock set takes sorted, de-duplicated locks, pushes under them and always releases", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const set = await acquireModelLocks(a, ["t/m2", "t/m1", "t/m2"]);
  assert.deepEqual(set.models, ["t/m1", "t/m2"]);
  assert.deepEqual(store.keys().filter((k) => k.endsWith(".lock")), [
    "data/t/m1/.lock",
    "data/t/m2/.lock",
  ]);
  await Deno.mkdir(`${a.cacheDir}/data/t/m1/d/1`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/data/t/m1/d/1/raw`, "v1");
  await a.markDirty({ relPath: "data/t/m1/d/1/raw" });
  await set.push(["data/t/m1/d/1"]);
  await set.release();
  await set.release();
  assert.equal(store.peekText("data/t/m1/d/1/raw"), "v1");
  assert.deepEqual(store.keys().filter((k) => k.endsWith(".lock")), []);
});

/**
 * `b` holds the global lock while `a` asks for a lock set: the set is still
 * waiting a second later (`assertWaiting`), and taken once `b` releases it.
 */
async function waitsForGlobal(
  a: SyncService,
  b: SyncService,
  clock: FakeClock,
  assertWaiting: (done: boolean) => void,
) {
  const global = b.lockBackend!.createLock(globalLockKey(), b.identity);
  await global.acquire();
  let done = false;
  const p = acquireModelLocks(a, ["t/m"], { globalPollMs: 100 }).then((s) => {
    done = true;
    return s;
  });
  await clock.advance(1_000);
  assertWaiting(done);
  await global.release();
  await waitFor(() => done, { clock });
  await (await p).release();
}

Deno.test("a lock set waits while the global datastore lock is held", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const b = await clone(store, clock, "b");
  await waitsForGlobal(a, b, clock, (done) => assert.equal(done, false));
});

Deno.test("a lock set waits while a global lock held in a lock backend of its own is held", async () => {
  // A third-party backend keeps its locks outside the datastore (here: a
  // store of its own), so the datastore holds no object at the lock's key.
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const locks = storeLockBackend(new InMemoryStore({ clock }), { clock });
  const open = async (name: string) =>
    await createSyncService({
      cacheDir: await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
      store,
      clock,
      identity: { holder: `${name}@host`, hostname: "host", pid: name.length },
      lockBackend: locks,
      config: quick,
    });
  const a = await open("a");
  const b = await open("bb");
  await waitsForGlobal(
    a,
    b,
    clock,
    (done) => assert.equal(done, false, "model locks taken while the global lock was held"),
  );
});

Deno.test("the breakglass force-releases by nonce and reports whose lock it broke", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const b = await clone(store, clock, "b");
  const set = await acquireModelLocks(a, ["t/m"]);
  const r = await releaseLock(b, { model: "t/m", force: true });
  assert.equal(r.released, true);
  assert.equal(r.broken?.holder, "a@host");
  assert.equal(store.peek("data/t/m/.lock"), undefined);
  assert.deepEqual(await releaseLock(b, { model: "t/m", force: true }), {
    key: "data/t/m/.lock",
    broken: null,
    released: false,
  });
  await set.release();
});

Deno.test("the preexisting snapshot names the version dirs present before the run", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  await Deno.mkdir(`${a.cacheDir}/data/t/m/d/3`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/data/t/m/d/3/raw`, "old");
  const set = await acquireModelLocks(a, ["t/m"]);
  assert.deepEqual([...set.preexisting], ["data/t/m/d/3"]);
  await set.release();
});
