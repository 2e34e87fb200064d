import assert from "node:assert/strict";
import { type FakeClock, peerPush, peerReadIndex, waitFor } from "../../packages/testing/mod.ts";
import { SluiceError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import type { WarningEvent } from "../events.ts";
import type { DistributedLock } from "../ports.ts";
import type { SyncService } from "./service.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import {
  GLOBAL,
  globalLockSetup,
  lockOptions,
  lockRefused,
  MINE,
  THEIRS,
} from "./global_lock_kit.ts";
import { acquireModelLocks } from "../locks/model_locks.ts";

const setup = () => globalLockSetup("sluice-global-lock-");

/** An old client's push (unconditional index rewrite) under the global lock, with `during` run in its window. */
async function oldClientPush(
  s: Awaited<ReturnType<typeof setup>>,
  during: () => Promise<void>,
): Promise<void> {
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, { afterRead: during })
  );
}

/** The error of a push under `lock` that fails (the clock moved on until it does). */
async function pushFailing(
  s: { svc: SyncService; clock: FakeClock },
  lock: DistributedLock,
): Promise<unknown> {
  let error: unknown;
  const run = pushUnderGlobalLock(s.svc, lock).catch((e) => (error = e));
  await waitFor(() => error !== undefined, { clock: s.clock, stepMs: 50 });
  await run;
  return error;
}

/** This service's global lock, given up after 200 ms of waiting. */
function shortLock(svc: SyncService): DistributedLock {
  return svc.lockBackend!.createLock(
    GLOBAL,
    { holder: "sluice@host", hostname: "host", pid: 1 },
    { retryDelayMs: 50, maxWaitMs: 200 },
  );
}

async function edit(svc: SyncService, body: string): Promise<void> {
  await svc.cache.write(MINE, new TextEncoder().encode(body));
  await svc.markDirty({ relPath: MINE });
}

Deno.test("global lock: a plain commit inside an old client's read-modify-write is dropped from the index (control)", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  await oldClientPush(s, async () => {
    const r = await s.svc.pushChanged();
    assert.deepEqual(r.uploaded, [MINE]);
  });
  const index = await peerReadIndex(s.store);
  // The loss this module exists for: the object is there, the index no longer names it.
  assert.ok(s.store.peek(MINE));
  assert.deepEqual(Object.keys(index).sort(), [THEIRS]);
});

Deno.test("global lock: a push under it waits out an old client's read-modify-write, and both writes stay named", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  let done = false;
  let run: Promise<unknown> = Promise.resolve();
  const refused = () => lockRefused(s.store);
  await oldClientPush(s, async () => {
    run = pushUnderGlobalLock(s.svc, s.lock()).finally(() => (done = true));
    await waitFor(refused, { clock: s.clock, stepMs: 50 });
    assert.equal(done, false, "the commit waits while the old client holds the lock");
    // Its object is written already (outside the lock); the index does not name it yet.
    assert.ok(s.store.peek(MINE));
  });
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  const r = await run as Awaited<ReturnType<typeof pushUnderGlobalLock>>;
  assert.deepEqual(r.uploaded, [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)).sort(), [MINE, THEIRS]);
  assert.equal(s.store.peek(GLOBAL), undefined, "the lock is released");
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
});

Deno.test("global lock: nothing planned takes no lock", async () => {
  const s = await setup();
  const r = await pushUnderGlobalLock(s.svc, s.lock());
  assert.deepEqual(r.uploaded, []);
  assert.ok(!s.store.log.some((l) => l.key === GLOBAL));
});

Deno.test("global lock: a lock that cannot be had in time leaves the upload unpublished and the path dirty", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  await s.oldClientLock.acquire();
  const short = shortLock(s.svc);
  const warnings: WarningEvent[] = [];
  s.svc.events.on("warning", (w) => warnings.push(w));
  const error = await pushFailing(s, short);
  assert.ok(error instanceof SluiceError && error.code === "lock_timeout", String(error));
  assert.match((error as Error).message, /uploaded but not published/);
  assert.match((error as Error).message, /old-client@other/);
  assert.doesNotMatch((error as Error).message, /\.\./);
  // Said before the wait began.
  assert.deepEqual(warnings.map((w) => w.code), ["global_lock_wait"]);
  assert.match(warnings[0].message, /held by old-client@other on other \(pid 2\)/);
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), []);
  await s.oldClientLock.release();
  // Once the lock is free, the same push publishes it.
  const r = await pushUnderGlobalLock(s.svc, s.lock());
  assert.deepEqual([...r.uploaded, ...r.identical], [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [MINE]);
});

Deno.test("global lock: a lock lost before the commit refuses it; one lost during it warns", async () => {
  const s = await setup();
  await edit(s.svc, "one\n");
  const lost = (when: "before" | "during"): DistributedLock => {
    const real = s.lock();
    // Read once before the commit and once after it.
    let reads = 0;
    return {
      key: real.key,
      acquire: (o) => real.acquire(o),
      release: () => real.release(),
      withLock: (fn, o) => real.withLock(fn, o),
      inspect: (o) => real.inspect(o),
      forceRelease: (n) => real.forceRelease(n),
      get lost() {
        return when === "before" || ++reads > 1;
      },
    };
  };
  await assert.rejects(
    pushUnderGlobalLock(s.svc, lost("before")),
    (e) => e instanceof SluiceError && e.code === "global_lock_lost",
  );
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), []);

  const warnings: WarningEvent[] = [];
  s.svc.events.on("warning", (w) => warnings.push(w));
  await pushUnderGlobalLock(s.svc, lost("during"));
  assert.deepEqual(warnings.map((w) => w.code), ["global_lock_lost"]);
  assert.equal(s.store.peek(GLOBAL), undefined);
});

Deno.test("global lock: a lock that exposes no nonce nor loss flag (a third party's) taken over before the commit refuses it", async () => {
  const s = await setup();
  await edit(s.svc, "one\n");
  const real = s.lock();
  // The members a lock must have, and no more (ports.ts: nonce, lost and loss are optional).
  const bare: DistributedLock = {
    key: real.key,
    acquire: async (o) => {
      await real.acquire(o);
      // Broken and taken over by another client right after it was had.
      assert.ok(await real.forceRelease(real.nonce!));
      await s.oldClientLock.acquire();
    },
    release: () => real.release(),
    withLock: (fn, o) => real.withLock(fn, o),
    inspect: (o) => real.inspect(o),
    forceRelease: (n) => real.forceRelease(n),
  };
  await assert.rejects(
    pushUnderGlobalLock(s.svc, bare),
    (e) => e instanceof SluiceError && e.code === "global_lock_lost",
  );
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), []);
  await s.oldClientLock.release();
});

Deno.test("global lock: a third party's lock timeout, an error with the code lock_timeout only, is told as the push's lock_timeout", async () => {
  const s = await setup();
  await edit(s.svc, "one\n");
  const real = s.lock();
  // The lock conformance suite matches lock errors by their code, not their class.
  const timeout = Object.assign(new Error("busy: held by someone else"), { code: "lock_timeout" });
  const theirs: DistributedLock = {
    key: real.key,
    acquire: () => Promise.reject(timeout),
    release: () => real.release(),
    withLock: (fn, o) => real.withLock(fn, o),
    inspect: (o) => real.inspect(o),
    forceRelease: (n) => real.forceRelease(n),
  };
  await assert.rejects(
    pushUnderGlobalLock(s.svc, theirs),
    (e) =>
      e instanceof SluiceError && e.code === "lock_timeout" && e.cause === timeout &&
      /uploaded but not published/.test(e.message),
  );
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
});

Deno.test("global lock: a model run's push commits under it when given one", async () => {
  const s = await setup();
  const set = await acquireModelLocks(s.svc, ["aws/ec2/m1"], { lock: lockOptions });
  const dir = "data/aws/ec2/m1/state/1";
  await s.svc.cache.write(`${dir}/raw`, new TextEncoder().encode("raw\n"));
  await s.svc.markDirty({ relPath: `${dir}/raw` });
  s.store.resetLog();
  const r = await set.push([dir], { globalLock: s.lock() });
  await set.release();
  assert.deepEqual(r.uploaded, [`${dir}/raw`]);
  const keys = s.store.log.filter((l) => l.op === "put").map((l) => l.key);
  // The file first, outside the lock; then the lock, the index, and the lock's release.
  assert.ok(keys.indexOf(`${dir}/raw`) < keys.indexOf(GLOBAL), keys.join(", "));
  assert.ok(keys.indexOf(GLOBAL) < keys.indexOf(".datastore-index.json"), keys.join(", "));
  assert.ok(s.store.log.some((l) => l.op === "delete" && l.key === GLOBAL));
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [`${dir}/raw`]);
});

Deno.test("global lock: a lock held already is refused before anything is pushed", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  const lock = s.lock();
  await lock.acquire();
  await assert.rejects(
    pushUnderGlobalLock(s.svc, lock),
    (e) =>
      e instanceof SluiceError && e.code === "invalid_config" && /already held/.test(e.message),
  );
  assert.equal(s.store.peek(MINE), undefined);
  assert.ok(s.store.peek(GLOBAL), "the caller's hold is left as it was");
  await lock.release();
});

Deno.test("global lock: a walk that finds nothing clears its bulk mark, as a plain push does", async () => {
  const s = await setup();
  await s.svc.markDirty();
  assert.equal(s.svc.state.bulkPending(), true);
  await pushUnderGlobalLock(s.svc, s.lock());
  assert.equal(s.svc.state.bulkPending(), false);
  assert.ok(!s.store.log.some((l) => l.key === GLOBAL));
});

Deno.test("global lock: a create an old client deletes while the commit waits for the lock is not named, and is a conflict", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  let done = false;
  let run: Promise<unknown> = Promise.resolve();
  const refused = () => lockRefused(s.store);
  const warnings: string[] = [];
  s.svc.events.on("warning", (w) => warnings.push(w.code));
  // The old client, from a stale view, deletes the path in its push.
  await s.oldClientLock.withLock(async () => {
    run = pushUnderGlobalLock(s.svc, s.lock()).finally(() => (done = true));
    await waitFor(refused, { clock: s.clock, stepMs: 50 });
    await peerPush(s.store, { [THEIRS]: "theirs\n" }, { remove: [MINE] });
  });
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  const r = await run as Awaited<ReturnType<typeof pushUnderGlobalLock>>;
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.overwritten, [MINE]);
  assert.ok(warnings.includes("overwritten_before_commit"));
  assert.deepEqual(
    Object.keys(await peerReadIndex(s.store)).sort(),
    [THEIRS],
    "no entry names the deleted object",
  );
  assert.deepEqual(
    s.svc.state.dirtyPaths(),
    [MINE],
    "kept dirty: the next push publishes it again",
  );
});

Deno.test("global lock: an object at the lock's key that is no lock is said before the wait, with how to remove it", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  s.store.seed(GLOBAL, "not json");
  const short = shortLock(s.svc);
  const warnings: WarningEvent[] = [];
  s.svc.events.on("warning", (w) => warnings.push(w));
  const error = await pushFailing(s, short);
  assert.equal((error as SluiceError).code, "lock_timeout");
  assert.equal(warnings[0]?.code, "global_lock_wait");
  assert.match(warnings[0].message, /an object is there that is no lock \(malformed lock body/);
  assert.match(warnings[0].message, /taken over once it is older than the lock's time to live/);
  assert.match(warnings[0].message, /`sluice lock release --force`/);
});

Deno.test("global lock: a push whose lock cannot be had in time says the deletions its preparation made", async () => {
  const s = await setup();
  await edit(s.svc, "mine\n");
  await pushUnderGlobalLock(s.svc, s.lock());
  await Deno.remove(`${s.svc.cacheDir}/${MINE}`);
  await s.svc.markDirty({ relPath: MINE });
  await s.oldClientLock.acquire();
  const short = shortLock(s.svc);
  const error = await pushFailing(s, short);
  assert.equal((error as SluiceError).code, "lock_timeout");
  assert.match(
    (error as Error).message,
    /its 1 deletion\(s\) were made on the store .*the index names those files until the push runs again/,
  );
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
  await s.oldClientLock.release();
});

Deno.test("global lock: a data version lost to another writer's (version_exists) leaves the push's other files committed, as a plain push does", async () => {
  // Found by the chaos checker (I11, seed 133300211): a clone's final push
  // under the global lock lost a data version and threw from its
  // preparation, so its commit never ran: the other file it had uploaded
  // (its own upload, found in place) stayed in the store, named by no index.
  const s = await setup();
  const raw = "data/shell/cmd/m1/out/1/raw";
  await peerPush(s.store, { [raw]: "theirs\n" }, { now: () => s.clock.now() });
  await edit(s.svc, "mine\n");
  await s.svc.cache.write(raw, new TextEncoder().encode("mine\n"));
  await s.svc.markDirty({ relPath: raw });
  const error = await pushFailing(s, s.lock());
  assert.equal((error as SluiceError).code, "version_exists");
  const index = await peerReadIndex(s.store);
  assert.equal(index[MINE]?.sha256, await sha256Hex(new TextEncoder().encode("mine\n")));
  assert.equal(index[raw]?.sha256, await sha256Hex(new TextEncoder().encode("theirs\n")));
  assert.match((error as Error).message, /other 1 file\(s\) were pushed and committed/);
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
  assert.equal(s.store.peek(GLOBAL), undefined, "the lock is released");
});

Deno.test("global lock: a third party's release that fails after the commit keeps the push's result and warns lock_release_failed", async () => {
  const s = await setup();
  await edit(s.svc, "one\n");
  const real = s.lock();
  const theirs: DistributedLock = {
    key: real.key,
    acquire: (o) => real.acquire(o),
    // The lock is left in place (it goes stale after its TTL), and says so.
    release: () => Promise.reject(new Error("kv service answered 500")),
    withLock: (fn, o) => real.withLock(fn, o),
    inspect: (o) => real.inspect(o),
    forceRelease: (n) => real.forceRelease(n),
    get nonce() {
      return real.nonce;
    },
    get lost() {
      return real.lost;
    },
  };
  const warnings: WarningEvent[] = [];
  s.svc.events.on("warning", (w) => warnings.push(w));
  // The commit went through: the caller is told so, not the release's error.
  const r = await pushUnderGlobalLock(s.svc, theirs);
  assert.deepEqual(r.uploaded, [MINE]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [MINE]);
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
  assert.deepEqual(warnings.map((w) => w.code), ["lock_release_failed"]);
  assert.match(warnings[0].message, /\.datastore\.lock.*kv service answered 500/);
  await real.release();
});
