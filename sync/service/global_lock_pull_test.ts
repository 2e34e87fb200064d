import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import type { WarningEvent } from "../events.ts";
import type { DistributedLock } from "../ports.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick } from "./clone_kit.ts";
import { pullUnderGlobalLock } from "./global_lock_pull.ts";

const GLOBAL = ".datastore.lock";
const PATH = "notes/shared.txt";
const identity = { holder: "c@host", hostname: "host", pid: 3 };
const lockOptions = { retryDelayMs: 50, maxWaitMs: 10_000 };

/** A store where PATH's committed object was replaced by a push that died before its commit, and a fresh cache c over it. */
async function stranded() {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a");
  await put(a, PATH, "1");
  await a.pushChanged();
  await put(a, PATH, "2");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await a.pushChanged().catch(() => {});
  const c = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-c-" }),
    store,
    identity,
    clock,
    config: quick,
  });
  const warnings: WarningEvent[] = [];
  c.events.on("warning", (w) => warnings.push(w));
  const lock = () => c.lockBackend!.createLock(GLOBAL, identity, lockOptions);
  return { clock, store, c, warnings, lock };
}

/** `real`, reporting itself lost (taken over or deleted while held). */
function lostOf(real: DistributedLock): DistributedLock {
  return {
    key: real.key,
    acquire: (o) => real.acquire(o),
    release: () => real.release(),
    withLock: (fn, o) => real.withLock(fn, o),
    inspect: (o) => real.inspect(o),
    forceRelease: (n) => real.forceRelease(n),
    lost: true,
  };
}

Deno.test("pull under the global lock: waits for another holder (said first: global_lock_wait), adopts only once it holds the lock, and releases it", async () => {
  const s = await stranded();
  const old = s.c.lockBackend!.createLock(
    GLOBAL,
    { holder: "old-client@other", hostname: "other", pid: 2 },
    lockOptions,
  );
  await old.acquire();
  let done = false;
  const run = pullUnderGlobalLock(s.c, s.lock(), { adoptUncommitted: [PATH] }).finally(() => {
    done = true;
  });
  await waitFor(() => s.warnings.some((w) => w.code === "global_lock_wait"), {
    clock: s.clock,
    stepMs: 50,
  });
  assert.match(s.warnings[0].message, /held by old-client@other .*this pull waits for it/);
  s.clock.advance(500);
  await Promise.resolve();
  assert.equal(done, false, "still waiting for the lock");
  const committed = (await readIndex(s.store, quick.retry))?.entries[PATH]?.v;
  await old.release();
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  const r = await run;
  assert.deepEqual(r.adopted, [PATH]);
  assert.notEqual(
    (await readIndex(s.store, quick.retry))?.entries[PATH]?.v,
    committed,
    "the adoption's commit came after the wait",
  );
  assert.equal(s.store.peek(GLOBAL), undefined, "the lock is released");
  assert.ok(!s.warnings.some((w) => w.code === "global_lock_lost"));
});

Deno.test("pull under the global lock: a lock lost while the pull adopted warns global_lock_lost, with what to run; a pull that adopted nothing does not", async () => {
  const s = await stranded();
  const lostLock = () => lostOf(s.lock());
  const nothing = await pullUnderGlobalLock(s.c, lostLock());
  assert.deepEqual(nothing.adopted ?? [], []);
  assert.ok(!s.warnings.some((w) => w.code === "global_lock_lost"), "nothing adopted");
  const r = await pullUnderGlobalLock(s.c, lostLock(), { adoptUncommitted: [PATH] });
  assert.deepEqual(r.adopted, [PATH]);
  const lost = s.warnings.filter((w) => w.code === "global_lock_lost");
  assert.equal(lost.length, 1);
  assert.match(lost[0].message, /without the 1 file\(s\) this pull adopted\. Run `sluice pull`/);
  assert.equal(s.store.peek(GLOBAL), undefined);
});

Deno.test("pull under the global lock: a pull asked to adopt that fails with the lock lost still warns global_lock_lost (its adoption may have been committed), and fails as it did", async () => {
  const s = await stranded();
  const lostLock = lostOf(s.lock());
  s.store.failNext("get", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(
    pullUnderGlobalLock(s.c, lostLock, { adoptUncommitted: [PATH] }),
    (e) => e instanceof UnreachableError,
  );
  const lost = s.warnings.filter((w) => w.code === "global_lock_lost");
  assert.equal(lost.length, 1);
  assert.match(lost[0].message, /without what this pull adopted, if it did/);
  assert.equal(s.store.peek(GLOBAL), undefined, "released");
});

Deno.test("pull under the global lock: a third party's release that fails after the adoption keeps the pull's result and warns lock_release_failed", async () => {
  const s = await stranded();
  const real = s.lock();
  const release = () => Promise.reject(new Error("kv service answered 500"));
  const theirs: DistributedLock = {
    key: real.key,
    acquire: (o) => real.acquire(o),
    // The lock is left in place (it goes stale after its TTL), and says so.
    release,
    // Its own hold: acquired, run, released through its own release.
    withLock: async (fn, o) => {
      await real.acquire(o);
      try {
        return await fn();
      } finally {
        await release();
      }
    },
    inspect: (o) => real.inspect(o),
    forceRelease: (n) => real.forceRelease(n),
    get nonce() {
      return real.nonce;
    },
    get lost() {
      return real.lost;
    },
  };
  // The adoption was committed: the caller is told so, not the release's error.
  const r = await pullUnderGlobalLock(s.c, theirs, { adoptUncommitted: [PATH] });
  assert.deepEqual(r.adopted, [PATH]);
  assert.equal(await Deno.readTextFile(`${s.c.cacheDir}/${PATH}`), "2");
  assert.deepEqual(s.warnings.map((w) => w.code), ["adopted_uncommitted", "lock_release_failed"]);
  assert.match(s.warnings[1].message, /\.datastore\.lock.*kv service answered 500/);
  await real.release();
});
