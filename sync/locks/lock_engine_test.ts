import assert from "node:assert/strict";
import { FakeClock, InMemoryStore, shiftedClock, waitFor } from "../../packages/testing/mod.ts";
import { AbortedError, ConfigError, PreconditionFailedError, UnreachableError } from "../errors.ts";
import { LockReadError, LockTimeoutError } from "../lock_errors.ts";
import { createEmitter, type LockEvent, type WarningEvent } from "../events.ts";
import { CLOCK_PROBE_KEY, StoreLock, storeLockBackend } from "./lock_engine.ts";
import { lockReleaseCommand } from "./lock_object.ts";
import type { Identity, LockOptions, ObjectStore } from "../ports.ts";

const KEY = "data/aws/ec2/m1/.lock";
const ALICE: Identity = { holder: "alice@host-a", hostname: "host-a", pid: 1 };
const BOB: Identity = { holder: "bob@host-b", hostname: "host-b", pid: 2 };

function setup(store?: (s: InMemoryStore) => ObjectStore) {
  const clock = new FakeClock();
  const mem = new InMemoryStore({ clock });
  const events = createEmitter();
  const log: Array<[string, LockEvent]> = [];
  const warnings: WarningEvent[] = [];
  for (const name of ["lock-acquired", "lock-released", "lock-lost", "heartbeat-failed"] as const) {
    events.on(name, (e) => log.push([name, e]));
  }
  events.on("warning", (w) => warnings.push(w));
  const backend = storeLockBackend(store ? store(mem) : mem, { clock, random: () => 0.5, events });
  const lock = (id: Identity, options: LockOptions = {}) =>
    backend.createLock(KEY, id, { ttlMs: 3_000, retryDelayMs: 100, maxWaitMs: 1_000, ...options });
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await waitFor(() => done, { clock, timeoutMs: 60_000, stepMs: 50 });
    return await p;
  };
  const named = (name: string) => log.filter(([n]) => n === name).map(([, e]) => e);
  return { clock, store: mem, backend, lock, settle, log, named, warnings };
}

const body = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    ...BOB,
    acquiredAt: "2026-01-01T00:00:00.000Z",
    ttlMs: 1_000,
    nonce: "bob-nonce",
    ...over,
  });

Deno.test("acquire writes the lock body with the injected identity and a nonce", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  const written = JSON.parse(t.store.peekText(KEY)!);
  assert.deepEqual(written, {
    ...ALICE,
    acquiredAt: new Date(t.clock.now()).toISOString(),
    ttlMs: 3_000,
    nonce: a.nonce,
  });
  assert.equal(t.store.log[0].mode, "create");
  assert.ok(a.held && !a.lost);
  assert.equal(t.named("lock-acquired")[0].info?.nonce, a.nonce);
});

Deno.test("acquire times out after maxWaitMs naming the key and the holder", async () => {
  const t = setup();
  await t.lock(ALICE).acquire();
  const start = t.clock.now();
  const err = await t.settle(t.lock(BOB).acquire()).catch((e) => e);
  assert.ok(err instanceof LockTimeoutError);
  assert.equal(err.exitCode, 75);
  assert.match(err.message, new RegExp(`lock ${KEY}, held by alice@host-a \\(pid 1\\)`));
  assert.equal(t.clock.now() - start, 1_000);
  assert.equal(t.store.count("get"), 11); // one read per attempt, every 100 ms
});

Deno.test("an AbortSignal cancels a waiting acquire", async () => {
  const t = setup();
  await t.lock(ALICE).acquire();
  const ctl = new AbortController();
  const p = t.lock(BOB).acquire({ signal: ctl.signal });
  await t.clock.advance(250);
  ctl.abort();
  await assert.rejects(p, AbortedError);
  assert.equal(JSON.parse(t.store.peekText(KEY)!).holder, ALICE.holder);
});

Deno.test("a stale lock is stolen with a conditional delete, after a jittered back-off", async () => {
  const t = setup();
  t.store.seed(KEY, body());
  t.clock.set(t.clock.now() + 1_001);
  const a = t.lock(ALICE);
  await t.settle(a.acquire());
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, a.nonce);
  const steal = t.store.log.find((r) => r.op === "delete" && r.key === KEY);
  assert.equal(steal?.outcome, "ok");
  assert.equal(t.warnings.length, 1);
  assert.equal(t.warnings[0].code, "lock_stale_stolen");
  assert.match(t.warnings[0].message, /held by bob@host-b \(pid 2\) was stale/);
});

Deno.test("staleness uses the holder's ttlMs, not the waiter's", async () => {
  const t = setup();
  t.store.seed(KEY, body({ ttlMs: 10_000 }));
  t.clock.set(t.clock.now() + 5_000); // past the waiter's 3 s TTL, not the holder's 10 s
  await assert.rejects(t.settle(t.lock(ALICE).acquire()), LockTimeoutError);
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, "bob-nonce");
});

Deno.test("a stale lock renewed between the read and the steal is not deleted", async () => {
  let renewOnce = true;
  const t = setup((mem) => ({
    endpoint: mem.endpoint,
    get: async (k, o) => {
      const r = await mem.get(k, o);
      if (renewOnce) (renewOnce = false, mem.seed(KEY, body({ nonce: "renewed" })));
      return r;
    },
    head: (k, o) => mem.head(k, o),
    put: (k, b, m, o) => mem.put(k, b, m, o),
    delete: (k, o) => mem.delete(k, o),
    list: (p, o) => mem.list(p, o),
  }));
  t.store.seed(KEY, body());
  t.clock.set(t.clock.now() + 1_001);
  await assert.rejects(t.settle(t.lock(ALICE, { maxWaitMs: 500 }).acquire()), LockTimeoutError);
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, "renewed");
});

Deno.test("two waiters for a stale lock: exactly one wins, the other gets it after release", async () => {
  const t = setup();
  t.store.seed(KEY, body());
  t.clock.set(t.clock.now() + 1_001);
  const [a, b] = [t.lock(ALICE, { maxWaitMs: 10_000 }), t.lock(BOB, { maxWaitMs: 10_000 })];
  const [pa, pb] = [a.acquire(), b.acquire()];
  await waitFor(() => a.held || b.held, { clock: t.clock });
  assert.ok(a.held !== b.held);
  const [winner, loser] = a.held ? [a, b] : [b, a];
  await winner.release();
  await t.settle(Promise.all([pa, pb]));
  assert.ok(loser.held && !winner.held);
});

Deno.test("inspect is null only when absent; failed or malformed reads throw LockReadError", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  assert.equal(await a.inspect(), null);
  t.store.unreachable = true;
  await assert.rejects(a.inspect(), LockReadError);
  t.store.heal();
  t.store.failNext("get", 1, () => new Error("socket hang up"));
  const err = await a.inspect().catch((e) => e);
  assert.ok(err instanceof LockReadError && err.code === "lock_read_failed");
  assert.match(err.message, new RegExp(`${KEY}: socket hang up`));
  t.store.seed(KEY, "not json at all");
  await assert.rejects(a.inspect(), /malformed lock body "not json at all" \(not JSON\)/);
  t.store.seed(KEY, JSON.stringify({ holder: "x" }));
  await assert.rejects(a.inspect(), /missing or invalid hostname, acquiredAt, nonce, pid, ttlMs/);
});

Deno.test("a lock read refused for the datastore's configuration says to fix it, never to wait for the datastore", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  t.store.failNext("get", 1, () =>
    new ConfigError(
      "credentials",
      "the S3 endpoint refused the get of .datastore.lock at s3://b/p at http://127.0.0.1:9000 (HTTP 403 SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided.; Key p/.datastore.lock, BucketName b); check the credentials and their permissions on the bucket",
    ));
  const err = await a.inspect().catch((e) => e);
  assert.ok(err instanceof LockReadError && err.code === "lock_read_failed", String(err));
  assert.doesNotMatch(err.message, /once the datastore is reachable/);
  assert.match(err.message, /fix "credentials" in the datastore configuration/i);
  // Trying again cannot help until the configuration is fixed.
  assert.equal(err.retryable, false);
});

Deno.test("a malformed lock is neither force-released nor stolen before the waiter's TTL", async () => {
  const t = setup();
  t.store.seed(KEY, "garbage");
  assert.equal(await t.lock(BOB).forceRelease("anything"), false);
  const err = await t.settle(t.lock(ALICE, { maxWaitMs: 2_000 }).acquire()).catch((e) => e);
  assert.ok(err instanceof LockTimeoutError);
  // What is wrong with the body, said once and plainly: no holder or pid is made up.
  assert.match(
    err.message,
    new RegExp(
      `waiting for lock ${KEY}, held by an unknown holder \\(malformed lock body "garbage": not JSON\\)\\. Nothing was changed`,
    ),
  );
  assert.doesNotMatch(err.message, /pid|an unreadable lock/);
  const a = t.lock(ALICE, { maxWaitMs: 3_000 });
  await t.settle(a.acquire()); // past the waiter's own TTL plus the timestamp slack: stale
  assert.ok(a.held);
});

Deno.test("the heartbeat renews with a compare-and-swap every ttl/3", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  assert.equal(a.heartbeatMs, 1_000);
  t.store.resetLog();
  await t.clock.advance(1_000);
  assert.deepEqual(t.store.log.map((r) => [r.op, r.mode, r.outcome]), [["put", "update", "ok"]]);
  assert.equal((await t.store.head(KEY))?.lastModified, t.clock.now());
  await t.clock.advance(9_000);
  assert.equal(t.store.count("put"), 10);
  assert.ok(a.held);
});

Deno.test("each heartbeat refreshes acquiredAt, so an acquiredAt-based staleness check sees a live lock", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  const nonce = a.nonce;
  // swamp core's global-lock rule: stale when now - acquiredAt > ttlMs (local clock).
  const staleByAcquiredAt = async () => {
    const info = await a.inspect();
    assert.ok(info);
    return t.clock.now() - Date.parse(info.acquiredAt) > info.ttlMs;
  };
  for (let i = 0; i < 10; i++) {
    await t.clock.advance(a.heartbeatMs);
    assert.equal(await staleByAcquiredAt(), false, `stale after ${(i + 1) * a.heartbeatMs} ms`);
  }
  await t.clock.advance(a.heartbeatMs - 1);
  assert.equal(await staleByAcquiredAt(), false);
  const info = await a.inspect();
  assert.deepEqual(info, {
    ...ALICE,
    acquiredAt: new Date(t.clock.now() - (a.heartbeatMs - 1)).toISOString(),
    ttlMs: 3_000,
    nonce,
  });
  assert.equal(a.nonce, nonce);
  await a.release();
  assert.equal(t.named("lock-released")[0].info?.acquiredAt, info?.acquiredAt);
  assert.deepEqual(t.store.keys(), []);
});

Deno.test("an unreachable heartbeat is reported and retried, and is not a loss", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  t.store.unreachable = true;
  await t.clock.advance(1_000);
  assert.equal(t.named("heartbeat-failed").length, 1);
  assert.ok(!a.lost);
  await t.clock.advance(5_000);
  const overdue = t.warnings.filter((w) => w.code === "lock_renewal_overdue");
  assert.equal(overdue.length, 1);
  assert.match(
    overdue[0].message,
    /could not be renewed for 4000 ms, longer than its TTL of 3000 ms/,
  );
  t.store.heal();
  t.store.resetLog();
  await t.clock.advance(1_000);
  assert.deepEqual(t.store.log.map((r) => r.outcome), ["ok"]);
  assert.ok(a.held && !a.lost);
});

Deno.test("a deleted lock is lost (absent): one warning, one event, heartbeat stops", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  await t.clock.advance(500);
  await t.store.delete(KEY);
  await t.clock.advance(500);
  assert.ok(a.lost && !a.held);
  assert.deepEqual(a.loss, { kind: "absent", newHolder: undefined, detectedAt: t.clock.now() });
  assert.equal(t.named("lock-lost").length, 1);
  assert.deepEqual(t.warnings.map((w) => w.code), ["lock_lost"]);
  assert.ok(t.warnings[0].message.startsWith(
    `Lock ${KEY} was lost while the operation was still running; it was released.`,
  ));
  t.store.resetLog();
  await t.clock.advance(10_000);
  assert.equal(t.store.count(), 0);
  assert.equal(t.warnings.length, 1);
});

Deno.test("a takeover is lost (taken) naming the new holder; release leaves the successor", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  const b = t.lock(BOB);
  assert.equal(await b.forceRelease(a.nonce!), true);
  await b.acquire();
  await t.clock.advance(1_000);
  assert.equal(a.loss?.kind, "taken");
  assert.equal(a.loss?.newHolder?.nonce, b.nonce);
  assert.match(t.warnings[0].message, /still running; now held by bob@host-b \(pid 2\)\./);
  await a.release();
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, b.nonce);
  assert.equal(t.named("lock-released").length, 1);
  await b.release();
  await a.acquire();
  assert.ok(a.held && !a.lost && a.loss === undefined);
});

Deno.test("a renewal whose response was lost keeps the lock (our nonce, new version)", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  t.store.failNext("put", 1, undefined, { afterEffect: true });
  await t.clock.advance(2_000);
  assert.equal(t.named("heartbeat-failed").length, 1);
  assert.ok(a.held && !a.lost);
  await a.release();
  assert.deepEqual(t.store.keys(), []);
});

Deno.test("release re-reads after a failed condition and deletes only while the nonce is ours", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  t.store.failNext("delete", 1, () => new PreconditionFailedError(KEY));
  await a.release();
  assert.deepEqual(t.store.keys(), []);
  assert.equal(a.nonce, undefined);
  const calls = t.store.count();
  await a.release();
  assert.equal(t.store.count(), calls);
  assert.equal(t.named("lock-released").length, 1);
});

Deno.test("release never throws when the store is unreachable; it warns and leaves the lock", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.withLock(() => {
    t.store.unreachable = true;
    return Promise.resolve();
  });
  assert.equal(t.warnings[0].code, "lock_release_failed");
  // The model's lock, not the global one a bare `lock release --force` breaks.
  assert.match(t.warnings[0].message, /`sluice lock release --force --model aws\/ec2\/m1`/);
  assert.deepEqual(t.store.keys(), [KEY]);
});

Deno.test("lockReleaseCommand names the lock the command line breaks: a model's, a namespace's, the global one", () => {
  assert.equal(lockReleaseCommand(".datastore.lock"), "sluice lock release --force");
  assert.equal(
    lockReleaseCommand(".locks/prod.lock"),
    "sluice lock release --force --namespace prod",
  );
  assert.equal(
    lockReleaseCommand("data/aws/ec2/web-1/.lock"),
    "sluice lock release --force --model aws/ec2/web-1",
  );
  assert.equal(
    lockReleaseCommand("prod/data/shell/m1/.lock"),
    "sluice lock release --force --model shell/m1 --namespace prod",
  );
});

Deno.test("forceRelease: false on a wrong nonce or absent lock, retries a moved version", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  const b = t.lock(BOB);
  assert.equal(await b.forceRelease("nope"), false);
  t.store.failNext("delete", 1, () => new PreconditionFailedError(KEY));
  assert.equal(await b.forceRelease(a.nonce!), true);
  assert.equal(await b.forceRelease(a.nonce!), false);
  t.store.unreachable = true;
  await assert.rejects(b.forceRelease("x"), LockReadError);
});

Deno.test("abandon stops the heartbeat and leaves the object, as a crash would", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  await a.acquire();
  a.abandon();
  t.store.resetLog();
  await t.clock.advance(10_000);
  assert.equal(t.store.count(), 0);
  assert.deepEqual(t.store.keys(), [KEY]);
  assert.equal(t.clock.pendingTimers, 0);
});

Deno.test("the backend applies defaults and shares one emitter; bad timings are ConfigErrors", () => {
  const clock = new FakeClock();
  const backend = storeLockBackend(new InMemoryStore({ clock }), {
    clock,
    defaults: { ttlMs: 9_000 },
  });
  const lock = backend.createLock(KEY, ALICE, { ttlMs: undefined, maxWaitMs: 5 });
  assert.ok(lock instanceof StoreLock);
  assert.deepEqual([lock.ttlMs, lock.heartbeatMs, lock.maxWaitMs], [9_000, 3_000, 5]);
  assert.equal(lock.events, backend.events);
  assert.equal(backend.name, "store");
  assert.throws(
    () => backend.createLock(KEY, ALICE, { heartbeatMs: 9_000 }),
    (e) => e instanceof ConfigError && e.field === "lock.heartbeatMs",
  );
  assert.throws(
    () => backend.createLock(KEY, ALICE, { ttlMs: 0 }),
    (e) => e instanceof ConfigError && e.field === "lock.ttlMs",
  );
});

Deno.test("describe: a lock object that is no lock is held by 'an unreadable lock', and only a breakglass that saw that very object deletes it", async () => {
  const t = setup();
  const a = t.lock(ALICE);
  assert.equal(await a.describe(), null);
  const seeded = t.store.seed(KEY, "garbage");
  const info = await a.describe();
  assert.match(info?.holder ?? "", /^an unreadable lock: malformed lock body "garbage"/);
  assert.equal(info?.acquiredAt, new Date(seeded.lastModified).toISOString());
  assert.equal(info?.ttlMs, a.ttlMs);
  await assert.rejects(a.inspect(), LockReadError, "inspect keeps its rule");
  // Rewritten since it was seen: the breakglass deletes nothing.
  t.store.seed(KEY, "other garbage");
  assert.equal(await t.lock(BOB).forceRelease(info!.nonce), false);
  assert.ok(t.store.peek(KEY));
  const again = await a.describe();
  assert.equal(await t.lock(BOB).forceRelease(again!.nonce), true);
  assert.equal(t.store.peek(KEY), undefined);
  // A readable lock is described as inspect gives it.
  await a.acquire();
  assert.deepEqual(await a.describe(), await a.inspect());
  await a.release();
});

Deno.test("a store whose stamps are far from this machine's clock: acquire warns clock_skew once, and only then", async () => {
  for (const [offset, warned] of [[30_000, true], [-30_000, true], [2_000, false]] as const) {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock: new FakeClock(clock.now() - offset) });
    const events = createEmitter();
    const warnings: WarningEvent[] = [];
    events.on("warning", (w) => warnings.push(w));
    const backend = storeLockBackend(store, { clock, random: () => 0.5, events });
    const lock = backend.createLock(KEY, ALICE, {
      ttlMs: 3_000,
      retryDelayMs: 100,
      maxWaitMs: 1_000,
    });
    await lock.acquire();
    await lock.release();
    await lock.acquire();
    await lock.release();
    const skew = warnings.filter((w) => w.code === "clock_skew");
    assert.equal(skew.length, warned ? 1 : 0, `offset ${offset}`);
    if (warned) assert.match(skew[0].message, offset > 0 ? /30 s ahead of/ : /30 s behind/);
  }
});

Deno.test("the locks of one backend warn clock_skew once between them; each backend of its own", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock: shiftedClock(clock, -30_000) });
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const timings = { ttlMs: 3_000, retryDelayMs: 100, maxWaitMs: 1_000 };
  const backend = storeLockBackend(store, { clock, random: () => 0.5, events });
  for (const key of [KEY, "data/t/m1/.lock", "data/t/m2/.lock"]) {
    const lock = backend.createLock(key, ALICE, timings);
    await lock.acquire();
    await lock.release();
  }
  assert.equal(warnings.filter((w) => w.code === "clock_skew").length, 1);
  const other = storeLockBackend(store, { clock, random: () => 0.5, events });
  const lock = other.createLock(KEY, ALICE, timings);
  await lock.acquire();
  await lock.release();
  assert.equal(warnings.filter((w) => w.code === "clock_skew").length, 2);
});

/**
 * A store whose clock is `storeBehind` ms behind the waiter's (ahead when
 * negative), a holder on the store's clock and a waiter on its own.
 */
function skewed(storeBehind: number) {
  const clock = new FakeClock();
  const storeClock = shiftedClock(clock, -storeBehind);
  const store = new InMemoryStore({ clock: storeClock });
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const timings = { ttlMs: 3_000, retryDelayMs: 100, maxWaitMs: 1_000 };
  const holder = storeLockBackend(store, { clock: storeClock, random: () => 0.5 })
    .createLock(KEY, BOB, timings);
  const waiter = storeLockBackend(store, { clock, random: () => 0.5, events })
    .createLock(KEY, ALICE, timings);
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await waitFor(() => done, { clock, timeoutMs: 60_000, stepMs: 50 });
    return await p;
  };
  const probes = () => store.log.filter((r) => r.key === CLOCK_PROBE_KEY);
  return { clock, store, holder, waiter, settle, warnings, probes };
}

Deno.test("a waiter whose clock runs ahead of the store's by more than a TTL breaks no live lock", async () => {
  const t = skewed(30_000);
  await t.settle(t.holder.acquire());
  await assert.rejects(t.settle(t.waiter.acquire()), LockTimeoutError);
  assert.ok(t.holder.held && !t.holder.lost, "the holder keeps its lock");
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, t.holder.nonce);
  assert.deepEqual(t.store.log.filter((r) => r.op === "delete" && r.key === KEY), []);
  assert.deepEqual(t.warnings.map((w) => w.code), ["clock_skew"]);
  assert.match(t.warnings[0].message, /30 s ahead of/);
  await t.holder.release();
});

Deno.test("a waiter whose clock runs behind the store's takes over an abandoned lock once its TTL has passed by the store's clock", async () => {
  const t = skewed(-60_000);
  await t.settle(t.holder.acquire());
  t.holder.abandon();
  t.clock.set(t.clock.now() + 3_500);
  await t.settle(t.waiter.acquire());
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, t.waiter.nonce);
  await t.waiter.release();
});

Deno.test("the clock probe: one write when an acquire first finds the lock held, its difference used again", async () => {
  const t = skewed(0);
  await t.settle(t.holder.acquire());
  await assert.rejects(t.settle(t.waiter.acquire()), LockTimeoutError);
  assert.deepEqual(t.probes().map((r) => `${r.op} ${r.outcome}`), ["put ok"]);
  await assert.rejects(t.settle(t.waiter.acquire()), LockTimeoutError);
  assert.equal(t.probes().length, 1, "the difference measured a moment ago is used again");
  await t.holder.release();
});

Deno.test("a failed clock probe leaves this machine's clock to judge: a stale lock is still taken over", async () => {
  const t = skewed(0);
  await t.settle(t.holder.acquire());
  t.holder.abandon();
  t.clock.set(t.clock.now() + 4_500);
  t.store.failNext("put", 1, () => new PreconditionFailedError("refused"), {
    match: (k) => k === CLOCK_PROBE_KEY,
  });
  await t.settle(t.waiter.acquire());
  assert.equal(JSON.parse(t.store.peekText(KEY)!).nonce, t.waiter.nonce);
  await t.waiter.release();
});

Deno.test("a clock probe that cannot reach the store takes nothing over: a waiter whose clock runs ahead waits, and the holder keeps its lock", async () => {
  const t = skewed(30_000);
  await t.settle(t.holder.acquire());
  t.store.failNext("put", 1_000, () => new UnreachableError("down"), {
    match: (k) => k === CLOCK_PROBE_KEY,
  });
  await assert.rejects(t.settle(t.waiter.acquire()), LockTimeoutError);
  assert.ok(t.holder.held && !t.holder.lost, "the holder keeps its lock");
  assert.ok(t.probes().length > 1, "the probe is tried again while the waiter waits");
  await t.holder.release();
});
