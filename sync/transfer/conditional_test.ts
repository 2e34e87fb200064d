import assert from "node:assert/strict";
import {
  type ConditionalMode,
  FakeClock,
  hookedStore,
  InMemoryStore,
  waitFor,
} from "../../packages/testing/mod.ts";
import {
  checkThenDelete,
  checkThenPut,
  type ConditionalEnv,
  ConditionalWrites,
  FALLBACK_WARNING,
  PROBE_PREFIX,
  PROBE_STATE_FILE,
  type ProbeCache,
  probeConditionalWrites,
  withConditionalFallback,
} from "./conditional.ts";
import { LocalCache } from "./cache.ts";
import {
  AbortedError,
  AlreadyExistsError,
  ConditionalWritesUnsupportedError,
  NotImplementedError,
  PreconditionFailedError,
  UnreachableError,
} from "../errors.ts";
import { LockTimeoutError } from "../lock_errors.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { PutModes } from "../ports.ts";
import type { Identity } from "../ports.ts";
import { storeLockBackend } from "../locks/lock_engine.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const ALICE: Identity = { holder: "alice@host-a", hostname: "host-a", pid: 1 };
const BOB: Identity = { holder: "bob@host-b", hostname: "host-b", pid: 2 };

function memStore(mode: ConditionalMode, clock = new FakeClock()) {
  const store = new InMemoryStore({ clock });
  store.conditionalMode = mode;
  return store;
}

const probeRequests = (s: InMemoryStore) =>
  s.log.filter((r) => r.key.startsWith(PROBE_PREFIX)).length;

async function env(clock: FakeClock, extra: Partial<ConditionalEnv> = {}) {
  const cache = new LocalCache(
    await Deno.makeTempDir({ prefix: "sluice-cond-" }),
    () => clock.now(),
  );
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const e: ConditionalEnv = { cache, now: () => clock.now(), ttlMs: 60_000, events, ...extra };
  return { env: e, cache, warnings };
}

Deno.test("the probe tells honoured, ignored and refused endpoints apart and cleans up", async () => {
  const cases: [ConditionalMode, string, number][] = [
    ["honour", "honoured", 5], // create, create (refused), overwrite, stale update (refused), delete
    ["ignore", "ignored", 4], // create, create (landed), stale update (landed), delete
    ["refuse", "refused", 5], // create (refused), overwrite, overwrite, update (refused), delete
  ];
  for (const [mode, expected, requests] of cases) {
    const store = memStore(mode);
    const r = await probeConditionalWrites(store, { now: () => 42 });
    assert.deepEqual(r, { create: expected, update: expected, checkedAt: 42 }, mode);
    assert.deepEqual(store.keys(PROBE_PREFIX), [], `${mode}: probe key removed`);
    assert.equal(probeRequests(store), requests, mode);
    assert.equal(store.count(), requests, `${mode}: nothing outside the probe prefix`);
  }
});

Deno.test("the probe removes its key also when a step fails, and the error propagates", async () => {
  const store = memStore("honour");
  // The first create lands, then its response is lost.
  store.failNext("put", 1, () => new UnreachableError("injected"), { afterEffect: true });
  const err = await probeConditionalWrites(store).catch((e) => e);
  assert.ok(err instanceof UnreachableError);
  assert.equal(store.log.filter((r) => r.op === "delete").length, 1);
  assert.deepEqual(store.keys(PROBE_PREFIX), []);
});

Deno.test("a cancelled probe still removes its key, and says it was cancelled", async () => {
  const inner = memStore("honour");
  const cancel = new AbortController();
  // Ctrl-C lands right after the probe's first write.
  const store = hookedStore(inner, { after: () => cancel.abort() });
  const err = await probeConditionalWrites(store, { signal: cancel.signal }).catch((e) => e);
  assert.ok(err instanceof AbortedError, String(err));
  assert.deepEqual(inner.keys(PROBE_PREFIX), [], "the probe key was deleted");
  assert.deepEqual(inner.keys(), [], "nothing left in the store");
});

Deno.test("the probe runs once per endpoint per registry, also under concurrent callers", async () => {
  const clock = new FakeClock();
  const store = memStore("ignore", clock);
  const { env: e } = await env(clock);
  const registry = new ConditionalWrites();
  const all = await Promise.all(
    Array.from({ length: 5 }, () => registry.decide(store, "create", "auto", e)),
  );
  assert.deepEqual(all, Array(5).fill("fallback"));
  await registry.decide(store, "update", "auto", e);
  assert.equal(registry.stats.probeRuns, 1);
  assert.equal(probeRequests(store), 4);
});

Deno.test("a fresh cached probe result is used without probing; an expired one is re-probed", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e, cache } = await env(clock);
  const first = new ConditionalWrites();
  assert.equal(await first.decide(store, "create", "auto", e), "native");
  assert.equal(first.stats.probeRuns, 1);
  const saved = await cache.readState<{ endpoints: Record<string, unknown> }>(PROBE_STATE_FILE);
  assert.ok(saved?.endpoints[store.endpoint]);

  store.resetLog();
  const second = new ConditionalWrites(); // a new process, same cache dir
  assert.equal(await second.decide(store, "create", "auto", e), "native");
  assert.equal(second.stats.probeRuns, 0);
  assert.equal(second.stats.probeCacheHits, 1);
  assert.equal(probeRequests(store), 0);

  await clock.advance(60_000);
  const third = new ConditionalWrites();
  await third.decide(store, "create", "auto", e);
  assert.equal(third.stats.probeRuns, 1);
  assert.equal(probeRequests(store), 5);
});

Deno.test("the probe result is cached without syncing it to disk (a crash may lose it: the next process probes again)", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const writes: Array<{ name: string; durable?: boolean }> = [];
  const saved = new Map<string, unknown>();
  const cache: ProbeCache = {
    readState: <T>(name: string) => Promise.resolve((saved.get(name) ?? null) as T | null),
    writeState: (name, value, options) => {
      writes.push({ name, durable: options?.durable });
      saved.set(name, value);
      return Promise.resolve();
    },
  };
  const registry = new ConditionalWrites();
  assert.equal(
    await registry.decide(store, "create", "auto", { cache, now: () => clock.now() }),
    "native",
  );
  assert.deepEqual(writes, [{ name: PROBE_STATE_FILE, durable: false }]);
  // Read back by the next process as before.
  const next = new ConditionalWrites();
  assert.equal(
    await next.decide(store, "create", "auto", { cache, now: () => clock.now() }),
    "native",
  );
  assert.equal(next.stats.probeCacheHits, 1);
});

Deno.test("a failed probe is not remembered: the next decision probes again", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e } = await env(clock);
  const registry = new ConditionalWrites();
  store.unreachable = true;
  await assert.rejects(registry.decide(store, "create", "auto", e), UnreachableError);
  store.unreachable = false;
  assert.equal(await registry.decide(store, "create", "auto", e), "native");
  assert.equal(registry.stats.probeRuns, 2);
});

Deno.test("decide: one warning per endpoint under auto, refusal under required, silence under off", async () => {
  const clock = new FakeClock();
  for (const mode of ["ignore", "refuse"] as const) {
    const store = memStore(mode, clock);
    const { env: e, warnings } = await env(clock);
    const registry = new ConditionalWrites();
    for (let i = 0; i < 3; i++) {
      assert.equal(await registry.decide(store, "create", "auto", e), "fallback");
    }
    assert.equal(await registry.decide(store, "update", "auto", e), "fallback");
    assert.equal(warnings.length, 1, mode);
    assert.equal(warnings[0].code, FALLBACK_WARNING);
    assert.match(warnings[0].message, new RegExp(store.endpoint));
    assert.match(warnings[0].message, mode === "ignore" ? /silently ignores/ : /refuses/);
    assert.match(warnings[0].message, /narrows but cannot close the race/);
    assert.match(warnings[0].message, /conditionalWrites: "required"/);
    assert.match(warnings[0].message, /conditionalWrites: "off"/);
    const err = await registry.decide(store, "create", "required", e).catch((x) => x);
    assert.ok(err instanceof ConditionalWritesUnsupportedError);
    assert.equal(err.code, "conditional_writes_unsupported");
    assert.equal(err.endpoint, store.endpoint);

    const off = new ConditionalWrites();
    const quiet = await env(clock);
    store.resetLog();
    assert.equal(await off.decide(store, "create", "off", quiet.env), "fallback");
    assert.equal(store.count(), 0);
    assert.equal(off.stats.probeRuns, 0);
    assert.deepEqual(quiet.warnings, []);
  }
});

Deno.test("demote switches an endpoint the probe trusted to the fallback and updates the cache", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e, cache, warnings } = await env(clock);
  const registry = new ConditionalWrites();
  assert.equal(await registry.decide(store, "create", "auto", e), "native");
  await registry.demote(store, "create", "auto", e);
  assert.equal(await registry.decide(store, "create", "auto", e), "fallback");
  assert.equal(await registry.decide(store, "update", "auto", e), "native");
  assert.equal(warnings.length, 1);
  const saved = await cache.readState<{ endpoints: Record<string, { create: string }> }>(
    PROBE_STATE_FILE,
  );
  assert.equal(saved?.endpoints[store.endpoint].create, "refused");
  await assert.rejects(
    registry.demote(store, "create", "required", e),
    ConditionalWritesUnsupportedError,
  );
});

Deno.test("honoursNow answers native only once the probe settled on honoured, and follows a demote", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e } = await env(clock);
  const registry = new ConditionalWrites();
  assert.equal(registry.honoursNow(store.endpoint, "create", "auto"), false);
  assert.equal(await registry.decide(store, "create", "auto", e), "native");
  assert.equal(registry.honoursNow(store.endpoint, "create", "auto"), true);
  assert.equal(registry.honoursNow(store.endpoint, "update", "required"), true);
  assert.equal(registry.honoursNow(store.endpoint, "create", "off"), false);
  assert.equal(registry.honoursNow("memory://elsewhere", "create", "auto"), false);
  await registry.demote(store, "create", "auto", e);
  assert.equal(registry.honoursNow(store.endpoint, "create", "auto"), false);
  assert.equal(registry.honoursNow(store.endpoint, "update", "auto"), true);
  for (const mode of ["ignore", "refuse"] as const) {
    const other = memStore(mode, clock);
    const r = new ConditionalWrites();
    assert.equal(await r.decide(other, "create", "auto", e), "fallback");
    assert.equal(r.honoursNow(other.endpoint, "create", "auto"), false, mode);
  }
  // A failed probe leaves nothing known.
  const down = memStore("honour", clock);
  const r = new ConditionalWrites();
  down.unreachable = true;
  await assert.rejects(r.decide(down, "create", "auto", e), UnreachableError);
  assert.equal(r.honoursNow(down.endpoint, "create", "auto"), false);
});

Deno.test("check-then-write keeps create-only and compare-and-swap semantics on an ignoring store", async () => {
  const store = memStore("ignore");
  const a = await checkThenPut(store, "k", enc("a"), PutModes.create);
  await assert.rejects(checkThenPut(store, "k", enc("b"), PutModes.create), AlreadyExistsError);
  await assert.rejects(
    checkThenPut(store, "k", enc("b"), PutModes.update("stale")),
    PreconditionFailedError,
  );
  await assert.rejects(
    checkThenPut(store, "nope", enc("b"), PutModes.update("v1")),
    PreconditionFailedError,
  );
  const b = await checkThenPut(store, "k", enc("b"), PutModes.update(a.version));
  assert.equal(store.peekText("k"), "b");
  await assert.rejects(
    checkThenDelete(store, "k", { ifVersion: a.version }),
    PreconditionFailedError,
  );
  await checkThenDelete(store, "k", { ifVersion: b.version });
  assert.equal(store.peek("k"), undefined);
  await checkThenDelete(store, "k"); // absent, unconditional: fine
});

Deno.test("the store wrapper passes conditional writes through where honoured: one request", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e } = await env(clock);
  const registry = new ConditionalWrites();
  const wrapped = withConditionalFallback(store, { ...e, registry });
  assert.equal(wrapped.endpoint, store.endpoint);
  await wrapped.put("warm", enc("x"), PutModes.overwrite);
  await wrapped.put("warm", enc("y"), PutModes.create).catch(() => {}); // runs the probe
  store.resetLog();
  await wrapped.put("k", enc("a"), PutModes.create);
  assert.deepEqual(store.log.map((r) => [r.op, r.mode]), [["put", "create"]]);
  assert.equal(registry.stats.fallbackWrites, 0);
});

Deno.test("the store wrapper falls back on ignoring and refusing stores, with one warning", async () => {
  for (const mode of ["ignore", "refuse"] as const) {
    const clock = new FakeClock();
    const store = memStore(mode, clock);
    const { env: e, warnings } = await env(clock);
    const registry = new ConditionalWrites();
    const wrapped = withConditionalFallback(store, { ...e, registry });
    const a = await wrapped.put("k", enc("a"), PutModes.create);
    await assert.rejects(wrapped.put("k", enc("b"), PutModes.create), AlreadyExistsError);
    await assert.rejects(
      wrapped.put("k", enc("b"), PutModes.update("stale")),
      PreconditionFailedError,
    );
    await assert.rejects(wrapped.delete("k", { ifVersion: "stale" }), PreconditionFailedError);
    assert.equal(store.peekText("k"), "a");
    await wrapped.delete("k", { ifVersion: a.version });
    assert.equal(store.peek("k"), undefined);
    assert.equal(warnings.length, 1, mode);
    assert.equal(registry.stats.probeRuns, 1);

    const strict = withConditionalFallback(store, { ...e, registry, setting: "required" });
    await assert.rejects(
      strict.put("k", enc("c"), PutModes.create),
      ConditionalWritesUnsupportedError,
    );
    assert.equal(store.peek("k"), undefined);
  }
});

Deno.test("the store wrapper switches to the fallback when a trusted endpoint refuses a write", async () => {
  const clock = new FakeClock();
  const store = memStore("honour", clock);
  const { env: e, warnings } = await env(clock);
  const registry = new ConditionalWrites();
  const wrapped = withConditionalFallback(store, { ...e, registry });
  await wrapped.put("k", enc("a"), PutModes.create);
  store.conditionalMode = "refuse"; // e.g. a proxy in front of the bucket changed
  await wrapped.put("k2", enc("b"), PutModes.create);
  await assert.rejects(wrapped.put("k2", enc("c"), PutModes.create), AlreadyExistsError);
  assert.equal(store.peekText("k2"), "b");
  assert.equal(warnings.length, 1);
  assert.equal(registry.stats.probeRuns, 1);
});

function lockSetup(mode: ConditionalMode, wrap: boolean) {
  const clock = new FakeClock();
  const store = memStore(mode, clock);
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const registry = new ConditionalWrites();
  const target = wrap
    ? withConditionalFallback(store, { registry, events, now: () => clock.now() })
    : store;
  const backend = storeLockBackend(target, { clock, random: () => 0.5, events });
  const lock = (id: Identity) =>
    backend.createLock("data/t/m/.lock", id, { ttlMs: 3_000, retryDelayMs: 100, maxWaitMs: 500 });
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await waitFor(() => done, { clock, timeoutMs: 60_000, stepMs: 50 });
    return await p;
  };
  return { clock, store, registry, warnings, lock, settle };
}

Deno.test("lock engine over an ignoring store: without the wrapper two holders, with it one", async () => {
  const bare = lockSetup("ignore", false);
  await bare.lock(ALICE).acquire();
  const bob = bare.lock(BOB);
  await bare.settle(bob.acquire());
  assert.ok(bob.held, "the loss: the create-only acquire was ignored and Bob took a held lock");

  const t = lockSetup("ignore", true);
  const alice = t.lock(ALICE);
  await alice.acquire();
  const err = await t.settle(t.lock(BOB).acquire()).catch((e) => e);
  assert.ok(err instanceof LockTimeoutError);
  assert.ok(alice.held);
  assert.equal(t.warnings.filter((w) => w.code === FALLBACK_WARNING).length, 1);
  assert.equal(t.registry.stats.probeRuns, 1);
});

Deno.test("lock engine over an ignoring store: the CAS heartbeat never overwrites a new holder", async () => {
  const body = JSON.stringify({
    ...BOB,
    acquiredAt: "2026-01-01T00:00:00.000Z",
    ttlMs: 3_000,
    nonce: "bob",
  });
  const bare = lockSetup("ignore", false);
  await bare.lock(ALICE).acquire();
  bare.store.seed("data/t/m/.lock", body); // a breakglass and a takeover
  await bare.clock.advance(1_000);
  assert.match(
    bare.store.peekText("data/t/m/.lock")!,
    /alice/,
    "the loss: the heartbeat overwrote Bob",
  );

  const t = lockSetup("ignore", true);
  const alice = t.lock(ALICE);
  await alice.acquire();
  t.store.seed("data/t/m/.lock", body);
  await waitFor(() => alice.lost === true, { clock: t.clock });
  assert.equal(t.store.peekText("data/t/m/.lock"), body);
  assert.equal(alice.loss?.kind, "taken");
});

Deno.test("lock engine over a refusing store: fails without the wrapper, works with it", async () => {
  const bare = lockSetup("refuse", false);
  await assert.rejects(bare.lock(ALICE).acquire(), NotImplementedError);

  const t = lockSetup("refuse", true);
  const alice = t.lock(ALICE);
  await alice.acquire();
  await t.clock.advance(1_000); // a heartbeat through the fallback
  assert.ok(alice.held && !alice.lost);
  const err = await t.settle(t.lock(BOB).acquire()).catch((e) => e);
  assert.ok(err instanceof LockTimeoutError);
  await alice.release();
  assert.equal(t.store.peek("data/t/m/.lock"), undefined);
  assert.equal(t.warnings.filter((w) => w.code === FALLBACK_WARNING).length, 1);
});
