import assert from "node:assert/strict";
import { acquireModelLocks, globalLockKey, modelLockKey, releaseLock } from "./model_locks.ts";
import { createSyncService, type SyncService } from "../service/service.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import type { DistributedLock, Identity, LockBackend } from "../ports.ts";
import type { WarningEvent } from "../events.ts";
import { LockReadError } from "../lock_errors.ts";

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

/** A backend over `inner` whose locks have `over` in place of their own methods. */
function flawedBackend(
  inner: LockBackend,
  over: (lock: DistributedLock) => Partial<DistributedLock>,
): LockBackend {
  return {
    name: "flawed",
    createLock: (key, identity, options) => {
      const lock = inner.createLock(key, identity, options);
      // A lock of its own (no engine class): what it has not overridden goes to `lock`.
      const own: DistributedLock = {
        key: lock.key,
        acquire: (o) => lock.acquire(o),
        release: () => lock.release(),
        withLock: (fn, o) => lock.withLock(fn, o),
        inspect: (o) => lock.inspect(o),
        forceRelease: (nonce) => lock.forceRelease(nonce),
        get nonce() {
          return lock.nonce;
        },
        get lost() {
          return lock.lost;
        },
        get loss() {
          return lock.loss;
        },
      };
      return Object.defineProperties(own, Object.getOwnPropertyDescriptors(over(lock)));
    },
  };
}

async function cloneWith(store: InMemoryStore, clock: FakeClock, lockBackend: LockBackend) {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-flawed-" }),
    store,
    clock,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    lockBackend,
    config: quick,
  });
}

Deno.test("a third-party lock whose release fails is named in a lock_release_failed warning", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const backend = flawedBackend(
    storeLockBackend(store, { clock }),
    () => ({ release: () => Promise.reject(new Error("kv service answered 500")) }),
  );
  const a = await cloneWith(store, clock, backend);
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const set = await acquireModelLocks(a, ["t/m"]);
  await set.release(); // never throws: the run's outcome stands
  assert.deepEqual(warnings.map((w) => w.code), ["lock_release_failed"]);
  assert.equal(warnings[0].path, "data/t/m/.lock");
  assert.match(warnings[0].message, /data\/t\/m\/\.lock.*kv service answered 500/);
});

Deno.test("a global lock whose inspect throws a bare error fails the lock set with lock_read_failed naming it", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const backend = flawedBackend(storeLockBackend(store, { clock }), () => ({
    inspect: () => Promise.reject(new TypeError("Cannot read properties of undefined")),
  }));
  const a = await cloneWith(store, clock, backend);
  await assert.rejects(acquireModelLocks(a, ["t/m"]), (e: unknown) => {
    assert.ok(e instanceof LockReadError, `expected a LockReadError, got ${e}`);
    assert.equal(e.code, "lock_read_failed");
    assert.equal(e.key, globalLockKey());
    assert.match(e.message, /Cannot read properties of undefined/);
    return true;
  });
  assert.deepEqual(store.keys().filter((k) => k.endsWith(".lock")), [], "no model lock taken");
});
