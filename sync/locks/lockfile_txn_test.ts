import assert from "node:assert/strict";
import {
  isManagedLockfilePath,
  MANAGED_LOCKFILE_PATH,
  managedLockfilePath,
  pendingLockfileDelta,
  recordPublishedLockfile,
  retryPendingLockfile,
  updateManagedLockfile,
} from "./lockfile_txn.ts";
import { applyLockfileChange, mergeLockfileChanges } from "./lockfile_change.ts";
import {
  createSyncService,
  type SyncService,
  type SyncServiceOptions,
} from "../service/service.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { INDEX_KEY } from "../transfer/remote_index.ts";
import { readWriterId, WRITER_METADATA } from "../transfer/writer_id.ts";
import { globalLockKey } from "./model_locks.ts";
import { PreconditionFailedError, SluiceError } from "../errors.ts";
import type { DistributedLock, LockBackend, PutMode, PutOptions } from "../ports.ts";
import type { WarningEvent } from "../events.ts";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";

const LOCKFILE = MANAGED_LOCKFILE_PATH;
const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(
  store: InMemoryStore,
  name: string,
  clock: FakeClock,
  extra: Partial<SyncServiceOptions> = {},
): Promise<SyncService> {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-txn-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: quick,
    lockBackend: storeLockBackend(store, { clock }),
    ...extra,
  });
}

function remoteEntries(store: InMemoryStore, key = LOCKFILE): Record<string, unknown> {
  const text = store.peekText(key);
  return text === undefined ? {} : JSON.parse(text);
}

function names(store: InMemoryStore, key = LOCKFILE): string[] {
  return Object.keys(remoteEntries(store, key)).sort();
}

/** A lock that never excludes anyone, as a broken third-party lock might. */
function looseLocks(): LockBackend & { keys: string[] } {
  const keys: string[] = [];
  return {
    name: "loose",
    keys,
    createLock(key): DistributedLock {
      keys.push(key);
      return {
        key,
        acquire: () => Promise.resolve(),
        release: () => Promise.resolve(),
        withLock: (fn) => fn(),
        inspect: () => Promise.resolve(null),
        forceRelease: () => Promise.resolve(false),
      };
    },
  };
}

/** A store that runs a hook right before the next put of a key (to interleave writers). */
class HookStore extends InMemoryStore {
  beforePut?: { key: string; run: () => Promise<void>; times: number };
  override async put(key: string, body: Uint8Array, mode: PutMode, options?: PutOptions) {
    const hook = this.beforePut;
    if (hook && hook.key === key && hook.times > 0) {
      hook.times--;
      await hook.run();
    }
    return await super.put(key, body, mode, options);
  }
}

Deno.test("paths, lock keys and change algebra", () => {
  assert.equal(managedLockfilePath(), LOCKFILE);
  assert.equal(managedLockfilePath("prod"), `prod/${LOCKFILE}`);
  assert.equal(globalLockKey(), ".datastore.lock");
  assert.equal(globalLockKey("prod"), ".locks/prod.lock");
  assert.ok(isManagedLockfilePath(LOCKFILE));
  assert.ok(isManagedLockfilePath(`prod/${LOCKFILE}`));
  assert.ok(!isManagedLockfilePath(`a/b/${LOCKFILE}`));
  assert.ok(!isManagedLockfilePath("config/other.json"));
  assert.throws(() => managedLockfilePath("a/b"), SluiceError);
  const merged = mergeLockfileChanges({ set: { a: 1, b: 2 }, remove: ["c"] }, {
    set: { c: 3 },
    remove: ["a"],
  });
  assert.deepEqual(merged, { set: { b: 2, c: 3 }, remove: ["a"] });
  assert.deepEqual(applyLockfileChange({ a: 0, d: 4 }, merged), { b: 2, c: 3, d: 4 });
});

Deno.test("a first transaction creates the lockfile, indexes it and syncs the cache copy", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const r = await updateManagedLockfile(a, { set: { X: { version: "1.0.0" } } });
  assert.equal(r.published, true);
  assert.equal(r.attempts, 1);
  assert.deepEqual(remoteEntries(store), { X: { version: "1.0.0" } });
  assert.ok(store.log.some((l) => l.op === "put" && l.key === LOCKFILE && l.mode === "create"));
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`), store.peekText(LOCKFILE));
  assert.equal(a.state.synced(LOCKFILE)?.version, r.version);
  assert.equal(JSON.parse(store.peekText(INDEX_KEY)!).entries[LOCKFILE].sluice.v, r.version);
  assert.equal(await pendingLockfileDelta(a), null);
  assert.equal(store.peek(".datastore.lock"), undefined, "the global lock is released");
  // A peer's pull now brings it.
  const c = await clone(store, "c", clock);
  assert.deepEqual((await c.pullChanged()).fetched, [LOCKFILE]);
});

Deno.test("a first transaction into a datastore another tool filled names its objects in the index it makes, and says so", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  store.seed("notes/readme.md", "copied in by hand");
  const a = await clone(store, "a", clock);
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const r = await updateManagedLockfile(a, { set: { X: { version: "1.0.0" } } });
  assert.equal(r.published, true);
  const entries = JSON.parse(store.peekText(INDEX_KEY)!).entries;
  assert.deepEqual(Object.keys(entries).sort(), [LOCKFILE, "notes/readme.md"]);
  assert.deepEqual(warnings.map((w) => w.code), ["index_discovered"]);
  // A peer's pull brings both.
  const c = await clone(store, "c", clock);
  assert.deepEqual((await c.pullChanged()).fetched.sort(), [LOCKFILE, "notes/readme.md"]);
});

Deno.test("a removal on a datastore with no lockfile writes nothing and leaves nothing pending", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const r = await updateManagedLockfile(a, { remove: ["X"] });
  assert.deepEqual(r, {
    path: LOCKFILE,
    entries: {},
    version: null,
    published: false,
    attempts: 1,
  });
  assert.equal(store.peek(LOCKFILE), undefined, "no empty lockfile is created");
  assert.ok(!store.log.some((l) => l.op === "put" && l.key === LOCKFILE));
  assert.equal(await pendingLockfileDelta(a), null);
  assert.equal(store.peek(".datastore.lock"), undefined, "the global lock is released");
});

Deno.test("each transaction applies only its own change to the fresh remote copy", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const c = await clone(store, "c", clock);
  await updateManagedLockfile(a, { set: { X: 1 } });
  await updateManagedLockfile(c, { set: { Y: 1 } });
  // A's cache copy still lists only X; its next change must not drop Y.
  const r = await updateManagedLockfile(a, { set: { W: 1 }, remove: ["X"] });
  assert.deepEqual(names(store), ["W", "Y"]);
  assert.ok(store.log.some((l) => l.op === "put" && l.key === LOCKFILE && l.mode === "update"));
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`)), r.entries);
  // A change the remote already holds publishes nothing.
  store.resetLog();
  const again = await updateManagedLockfile(a, { set: { W: 1 } });
  assert.equal(again.published, false);
  assert.ok(!store.log.some((l) => l.op === "put" && l.key === LOCKFILE));
});

Deno.test("a failed publish keeps the change as a pending delta; retry replays only it", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const c = await clone(store, "c", clock);
  await updateManagedLockfile(c, { set: { Y: 1 } });
  store.failNext("put", 1, undefined, { match: (k) => k === LOCKFILE });
  const err = await updateManagedLockfile(a, { set: { X: 1 } }).catch((e) => e);
  assert.ok(err instanceof SluiceError);
  assert.equal(err.code, "lockfile_publish_failed");
  assert.equal(err.retryable, true);
  assert.match(err.message, /pending delta/);
  assert.match(err.message, /sluice lockfile retry/);
  assert.match(err.message, /the datastore could not be reached: injected failure\. This checkout/);
  assert.doesNotMatch(err.message, /run the sync again/, "a sync's advice is not this command's");
  assert.deepEqual(await pendingLockfileDelta(a), { set: { X: 1 }, remove: [] });
  assert.equal(a.state.synced(LOCKFILE), undefined, "nothing recorded as synced");
  assert.deepEqual(
    Object.keys(JSON.parse(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`))).sort(),
    ["X", "Y"],
    "the cache copy shows the pending change",
  );
  assert.equal(store.peek(".datastore.lock"), undefined, "the lock is released on failure");
  await updateManagedLockfile(c, { set: { Z: 1 } });
  const r = await retryPendingLockfile(a);
  assert.ok(r);
  assert.deepEqual(names(store), ["X", "Y", "Z"]);
  assert.equal(await pendingLockfileDelta(a), null);
  assert.equal(await retryPendingLockfile(a), null, "nothing left to retry");
});

Deno.test("the next transaction replays a pending delta before its own change", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  store.unreachable = true;
  await assert.rejects(updateManagedLockfile(a, { set: { X: 1, V: 1 } }), /pending delta/);
  store.unreachable = false;
  await updateManagedLockfile(a, { set: { W: 1 }, remove: ["V"] });
  assert.deepEqual(names(store), ["W", "X"]);
  assert.equal(await pendingLockfileDelta(a), null);
});

Deno.test("a publish conflict fetches again and reapplies, a bounded number of times", async () => {
  const clock = new FakeClock();
  const store = new HookStore({ clock });
  const a = await clone(store, "a", clock);
  let peerWrites = 0;
  store.beforePut = {
    key: LOCKFILE,
    times: 100,
    run: () => {
      store.seed(LOCKFILE, JSON.stringify({ [`P${++peerWrites}`]: 1 }));
      return Promise.resolve();
    },
  };
  const err = await updateManagedLockfile(a, { set: { X: 1 } }, { maxAttempts: 3 }).catch((e) => e);
  assert.ok(err instanceof SluiceError);
  assert.equal(err.code, "lockfile_conflict");
  assert.match(err.message, /3 attempts/);
  assert.match(err.message, /pending delta/);
  assert.equal(peerWrites, 3);
  assert.deepEqual(await pendingLockfileDelta(a), { set: { X: 1 }, remove: [] });
  // One conflict only: the second round lands on the peer's copy.
  store.beforePut = { ...store.beforePut, times: 1 };
  const r = await retryPendingLockfile(a);
  assert.equal(r?.attempts, 2);
  assert.deepEqual(names(store), ["P4", "X"]);
});

Deno.test("concurrent transactions interleaved between fetch and publish both land", async (t) => {
  async function run(conditional: "honour" | "ignore") {
    const clock = new FakeClock();
    const store = new HookStore({ clock });
    store.conditionalMode = conditional;
    // The global lock does not exclude: only the compare-and-swap protects the lockfile.
    const a = await clone(store, "a", clock, { lockBackend: looseLocks() });
    const c = await clone(store, "c", clock, { lockBackend: looseLocks() });
    await updateManagedLockfile(a, { set: { base: 1 } });
    store.beforePut = {
      key: LOCKFILE,
      times: 1,
      run: async () => void await updateManagedLockfile(c, { set: { Y: 1 } }),
    };
    const r = await updateManagedLockfile(a, { set: { X: 1 } });
    return { names: names(store), attempts: r.attempts };
  }
  await t.step("with compare-and-swap both land", async () => {
    const r = await run("honour");
    assert.deepEqual(r.names, ["X", "Y", "base"]);
    assert.equal(r.attempts, 2);
  });
  await t.step("control: a store ignoring the swap loses the peer's entry", async () => {
    assert.deepEqual((await run("ignore")).names, ["X", "base"]);
  });
});

Deno.test("a transaction waits for the global lock a peer's transaction holds", async () => {
  const clock = new FakeClock();
  const store = new HookStore({ clock });
  const opts = { lockOptions: { retryDelayMs: 50, maxWaitMs: 10_000 } };
  const a = await clone(store, "a", clock);
  const c = await clone(store, "c", clock);
  let cDone = false;
  let cRun: Promise<unknown> = Promise.resolve();
  const refusedLock = () =>
    store.log.some((l) => l.op === "put" && l.key === ".datastore.lock" && l.outcome === "error");
  store.beforePut = {
    key: LOCKFILE,
    times: 1,
    // A holds the global lock and has fetched; C starts its own transaction now.
    run: async () => {
      cRun = updateManagedLockfile(c, { set: { Y: 1 } }, opts).finally(() => (cDone = true));
      await waitFor(refusedLock, { clock, stepMs: 50 });
      assert.equal(cDone, false, "C waits while A holds the lock");
    },
  };
  await updateManagedLockfile(a, { set: { X: 1 } }, opts);
  await waitFor(() => cDone, { clock, stepMs: 50 });
  await cRun;
  assert.deepEqual(names(store), ["X", "Y"]);
  assert.equal(store.peek(".datastore.lock"), undefined);
});

Deno.test("a namespace uses its own lockfile and global lock", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const locks = looseLocks();
  const a = await clone(store, "a", clock, { lockBackend: locks });
  const r = await updateManagedLockfile(a, { set: { X: 1 } }, { namespace: "prod" });
  assert.equal(r.path, `prod/${LOCKFILE}`);
  assert.deepEqual(locks.keys, [".locks/prod.lock"]);
  assert.deepEqual(names(store, `prod/${LOCKFILE}`), ["X"]);
  assert.equal(store.peek(LOCKFILE), undefined);
});

Deno.test("a lock held elsewhere fails the transaction and keeps the change pending", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const other = storeLockBackend(store, { clock }).createLock(".datastore.lock", {
    holder: "z@host",
    hostname: "host",
    pid: 9,
  });
  await other.acquire();
  const warnings: { code: string; message: string }[] = [];
  a.events.on("warning", (w) => void warnings.push(w));
  const err = await updateManagedLockfile(a, { set: { X: 1 } }, { lockOptions: { maxWaitMs: 0 } })
    .catch((e) => e);
  assert.equal(err.code, "lockfile_publish_failed");
  assert.match(err.message, /z@host/);
  // The wait was said before it began, naming the holder.
  assert.equal(warnings[0]?.code, "global_lock_wait");
  assert.match(
    warnings[0].message,
    /held by z@host on host \(pid 9\).*the lockfile change waits for it/,
  );
  assert.deepEqual(await pendingLockfileDelta(a), { set: { X: 1 }, remove: [] });
  await other.release();
  await retryPendingLockfile(a);
  assert.deepEqual(names(store), ["X"]);
});

Deno.test("an unreadable remote lockfile is never replaced", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  store.seed(LOCKFILE, "[not an object");
  const err = await updateManagedLockfile(a, { set: { X: 1 } }).catch((e) => e);
  assert.equal(err.code, "lockfile_remote_malformed");
  assert.match(err.message, /not a JSON object of entries: .*"\[not an object"/);
  assert.match(err.message, /`sluice lockfile repair`/);
  assert.equal(store.peekText(LOCKFILE), "[not an object");
  assert.ok(await pendingLockfileDelta(a));
});

Deno.test("an endpoint refusing conditional writes falls back under the lock, unless required", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock, { lockBackend: looseLocks() });
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  store.conditionalMode = "refuse";
  await updateManagedLockfile(a, { set: { X: 1 } });
  assert.deepEqual(names(store), ["X"]);
  assert.ok(warnings.some((w) => w.code === "conditional_writes_fallback"));
  const strict = await clone(store, "s", clock, {
    lockBackend: looseLocks(),
    config: { ...quick, conditionalWrites: "required" },
  });
  const err = await updateManagedLockfile(strict, { set: { Y: 1 } }).catch((e) => e);
  assert.equal(err.code, "lockfile_publish_failed");
  assert.deepEqual(names(store), ["X"]);
  assert.ok(await pendingLockfileDelta(strict));
});

Deno.test("invalid changes and a missing lock backend are refused before anything is recorded", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  await assert.rejects(updateManagedLockfile(a, { set: { X: 1 }, remove: ["X"] }), /invalid|X/);
  await assert.rejects(updateManagedLockfile(a, { set: { X: undefined } }), SluiceError);
  const bare = await clone(store, "b", clock, { lockBackend: undefined });
  await assert.rejects(updateManagedLockfile(bare, { set: { X: 1 } }), /lock backend/);
  assert.equal(await pendingLockfileDelta(a), null);
  assert.equal(await pendingLockfileDelta(bare), null);
  assert.equal(store.count("put"), 0);
});

Deno.test("a failed compare-and-swap is never reported as success", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  await updateManagedLockfile(a, { set: { X: 1 } });
  store.failNext("put", 10, () => new PreconditionFailedError(LOCKFILE), {
    match: (k) => k === LOCKFILE,
  });
  const err = await updateManagedLockfile(a, { set: { Y: 1 } }).catch((e) => e);
  assert.equal(err.code, "lockfile_conflict");
  assert.deepEqual(names(store), ["X"]);
});

Deno.test("a publish recorded in the index after a peer's later publish leaves the peer's entry (a holder that lost the global lock)", async () => {
  const store = new InMemoryStore();
  const clock = new FakeClock();
  const late = await clone(store, "late", clock);
  const peer = await clone(store, "peer", clock);
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  // The late holder's publish lands; before it records it, the peer publishes over it.
  const mine = await store.put(LOCKFILE, enc({ "@x/a": { version: "1" } }), { kind: "create" });
  await updateManagedLockfile(peer, { set: { "@x/b": { version: "2" } } });
  const theirs = (await store.head(LOCKFILE))!.version;
  await recordPublishedLockfile(
    late,
    LOCKFILE,
    enc({ "@x/a": { version: "1" } }),
    mine.version,
    undefined,
    null,
  );
  const index = JSON.parse(store.peekText(INDEX_KEY)!);
  assert.equal(index.entries[LOCKFILE].sluice.v, theirs, "the index names the peer's publish");
});

Deno.test("a transaction's copy whose index update failed carries this cache's writer id, and no peer's first index names it", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  // The bucket's first index write fails: the lockfile object has landed, no index names it.
  store.failNext("put", 1, undefined, { match: (k) => k === INDEX_KEY });
  const err = await updateManagedLockfile(a, { set: { X: 1 } }).catch((e) => e);
  assert.equal(err?.code, "lockfile_publish_failed");
  assert.equal(store.peek(INDEX_KEY), undefined);
  const landed = await store.head(LOCKFILE);
  assert.ok(landed, "the transaction's copy is on the store");
  // A Sluice write whose commit has not come, told apart by its writer, as
  // every object a push writes is (a copy of this cache that drops the
  // pending change leaves it as such an upload).
  const writer = await readWriterId(a.cache);
  assert.ok(writer);
  assert.equal(landed.metadata?.[WRITER_METADATA], writer);
  // A peer's first pull makes no index naming it as another tool's object.
  const c = await clone(store, "c", clock);
  const pulled = await c.pullChanged();
  assert.deepEqual(pulled.fetched, []);
  assert.equal(c.state.synced(LOCKFILE), undefined);
  // The retry names it.
  const r = await retryPendingLockfile(a);
  assert.equal(r?.version, landed.version);
  assert.equal(JSON.parse(store.peekText(INDEX_KEY)!).entries[LOCKFILE].sluice.v, landed.version);
  assert.equal(await pendingLockfileDelta(a), null);
});

Deno.test("a published change whose third-party global lock fails its release is reported published, with a lock_release_failed warning", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const engine = storeLockBackend(store, { clock });
  const failingRelease: LockBackend = {
    name: "failing-release",
    createLock: (key, identity, options) => {
      const lock = engine.createLock(key, identity, options);
      const theirs: DistributedLock = {
        key,
        acquire: (o) => lock.acquire(o),
        // It frees the lock, then answers with an error (a lost reply, say).
        release: () => lock.release().then(() => Promise.reject(new Error("kv answered 500"))),
        withLock: (fn, o) => lock.withLock(fn, o),
        inspect: (o) => lock.inspect(o),
        forceRelease: (n) => lock.forceRelease(n),
      };
      return theirs;
    },
  };
  const a = await clone(store, "a", clock, { lockBackend: failingRelease });
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const r = await updateManagedLockfile(a, { set: { X: { version: "1.0.0" } } });
  assert.equal(r.published, true);
  assert.deepEqual(remoteEntries(store), { X: { version: "1.0.0" } });
  assert.equal(await pendingLockfileDelta(a), null, "a published change is not kept pending");
  assert.deepEqual(warnings.map((w) => w.code), ["lock_release_failed"]);
  assert.match(warnings[0].message, /\.datastore\.lock.*kv answered 500/);
});
