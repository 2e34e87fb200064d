import assert from "node:assert/strict";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { ConfigError } from "../errors.ts";
import { createEmitter } from "../events.ts";
import { StoreLock, storeLockBackend } from "./lock_engine.ts";
import {
  conditionalLockBackend,
  defaultLockRegistry,
  type LockBackendContext,
  type LockBackendFactory,
  LockBackendRegistry,
  lockTimingsFromConfig,
  storeLockFactory,
} from "./lock_registry.ts";
import { ConditionalWrites, FALLBACK_WARNING } from "../transfer/conditional.ts";
import { LockTimeoutError } from "../lock_errors.ts";
import type { LockBackend, LockOptions } from "../ports.ts";

const ALICE = { holder: "alice@host-a", hostname: "host-a", pid: 1 };
const BOB = { holder: "bob@host-b", hostname: "host-b", pid: 2 };

function context(config: Record<string, unknown> = {}): LockBackendContext {
  const clock = new FakeClock();
  return { store: new InMemoryStore({ clock }), clock, config };
}

const isConfigError = (field: string, text: RegExp) => (e: unknown) =>
  e instanceof ConfigError && e.field === field && text.test(e.message);

Deno.test("a registry creates the backend registered under a name, with the context", () => {
  const registry = new LockBackendRegistry();
  let seen: LockBackendContext | undefined;
  registry.register("mine", (ctx) => {
    seen = ctx;
    return storeLockBackend(ctx.store, { name: "mine", clock: ctx.clock });
  });
  const ctx = context({ region: "x" });
  const backend = registry.create("mine", ctx);
  assert.equal(backend.name, "mine");
  assert.equal(seen, ctx);
  assert.deepEqual(registry.names(), ["mine"]);
  assert.ok(registry.has("mine") && !registry.has("store"));
});

Deno.test("an unknown name is a ConfigError at lock.backend listing the known names", () => {
  const registry = new LockBackendRegistry().register("b", storeLockFactory).register(
    "a",
    storeLockFactory,
  );
  assert.throws(
    () => registry.create("redis", context()),
    isConfigError("lock.backend", /registered lock backends \("a", "b"\), got "redis"/),
  );
  assert.throws(
    () => new LockBackendRegistry().create("store", context()),
    isConfigError("lock.backend", /\(none registered\)/),
  );
});

Deno.test("registering a taken name needs replace; bad names and factories are refused", () => {
  const registry = new LockBackendRegistry().register("store", storeLockFactory);
  assert.throws(() => registry.register("store", storeLockFactory), /already registered/);
  const other = (ctx: LockBackendContext) => storeLockBackend(ctx.store, { name: "other" });
  registry.register("store", other, { replace: true });
  assert.equal(registry.create("store", context()).name, "other");
  assert.throws(() => registry.register(" ", storeLockFactory), ConfigError);
  assert.throws(() => registry.register(" x", storeLockFactory), ConfigError);
  assert.equal(registry.unregister("store"), true);
  assert.equal(registry.unregister("store"), false);
});

Deno.test("a factory that returns no createLock is a ConfigError", () => {
  const registry = new LockBackendRegistry().register(
    "broken",
    () => ({ name: "broken" }) as unknown as LockBackend,
  );
  assert.throws(
    () => registry.create("broken", context()),
    isConfigError("lock.backend", /"broken" returned object/),
  );
});

Deno.test("the default registry has the engine as `store`, timings from config, events forwarded", async () => {
  assert.ok(defaultLockRegistry.has("store"));
  const events = createEmitter();
  const acquired: string[] = [];
  events.on("lock-acquired", (e) => acquired.push(e.key));
  const ctx = { ...context({ ttlMs: 6_000, retryDelayMs: 50 }), events };
  const backend = defaultLockRegistry.create("store", ctx);
  const lock = backend.createLock(".datastore.lock", ALICE);
  assert.ok(lock instanceof StoreLock);
  assert.deepEqual([lock.ttlMs, lock.heartbeatMs, lock.retryDelayMs], [6_000, 2_000, 50]);
  await lock.acquire();
  assert.deepEqual(acquired, [".datastore.lock"]);
  await lock.release();
});

Deno.test("lock timings from config: numbers only, ConfigError naming the field", () => {
  assert.deepEqual(lockTimingsFromConfig({ ttlMs: 1, backend: "store" }), { ttlMs: 1 });
  assert.throws(
    () => lockTimingsFromConfig({ maxWaitMs: "60s" }),
    isConfigError("lock.maxWaitMs", /a number of milliseconds, got "60s"/),
  );
});

Deno.test("conditionalLockBackend: the engine over the fallback, so an ignoring store still excludes", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  store.conditionalMode = "ignore"; // answers 2xx to a create that should have failed
  const events = createEmitter();
  const warnings: string[] = [];
  events.on("warning", (w) => warnings.push(w.code));
  const conditional = new ConditionalWrites();
  const backend = conditionalLockBackend(store, { conditional, clock, events });
  assert.equal(backend.name, "store");
  const a = backend.createLock(".datastore.lock", ALICE);
  const b = backend.createLock(".datastore.lock", BOB, { maxWaitMs: 0 });
  assert.ok(a instanceof StoreLock);
  await a.acquire();
  await assert.rejects(b.acquire(), LockTimeoutError);
  assert.ok(conditional.stats.fallbackWrites > 0);
  assert.deepEqual(warnings.filter((c) => c === FALLBACK_WARNING), [FALLBACK_WARNING]);
  await a.release();
});

Deno.test("conditionalLockBackend: the factory gets the wrapped store, clock, lock config and events", () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const events = createEmitter();
  let seen: LockBackendContext | undefined;
  const backend = conditionalLockBackend(store, {
    conditional: new ConditionalWrites(),
    setting: "required",
    clock,
    events,
    config: { backend: "mine", ttlMs: 6_000 },
    factory: (ctx) => {
      seen = ctx;
      return storeLockFactory(ctx);
    },
  });
  assert.notEqual(seen?.store, store, "the store behind the fallback, not the store itself");
  assert.equal(seen?.store.endpoint, store.endpoint);
  assert.equal(seen?.clock, clock);
  assert.equal(seen?.events, events);
  assert.deepEqual(seen?.config, { backend: "mine", ttlMs: 6_000 });
  assert.equal((backend.createLock("k", ALICE) as StoreLock).ttlMs, 6_000);
});

Deno.test("conditionalLockBackend: the config's timings reach a third-party backend's locks as defaults", () => {
  const got: LockOptions[] = [];
  const thirdParty: LockBackendFactory = (ctx) => {
    const inner = storeLockFactory(ctx);
    return {
      name: "theirs",
      createLock: (key, identity, options = {}) => {
        got.push(options);
        return inner.createLock(key, identity, options);
      },
    };
  };
  const backend = conditionalLockBackend(new InMemoryStore(), {
    conditional: new ConditionalWrites(),
    config: { backend: "theirs", ttlMs: 5_000, maxWaitMs: 9_000 },
    factory: thirdParty,
  });
  backend.createLock("k", ALICE);
  backend.createLock("k", ALICE, { maxWaitMs: 1 });
  assert.deepEqual(got, [{ ttlMs: 5_000, maxWaitMs: 9_000 }, { ttlMs: 5_000, maxWaitMs: 1 }]);
  assert.equal(backend.name, "theirs");
});

Deno.test("conditionalLockBackend: a caller's TTL the config's heartbeat does not fit in drops that heartbeat; undefined never overrides", () => {
  const got: LockOptions[] = [];
  const backend = conditionalLockBackend(new InMemoryStore(), {
    conditional: new ConditionalWrites(),
    config: { backend: "theirs", heartbeatMs: 10_000, maxWaitMs: 9_000 },
    factory: (ctx) => {
      const inner = storeLockFactory({ ...ctx, config: {} });
      return {
        name: "theirs",
        createLock: (key, identity, options = {}) => {
          got.push(options);
          return inner.createLock(key, identity, options);
        },
      };
    },
  });
  // A heartbeat of 10 s under a 5 s TTL would let the live lock go stale: the backend derives one.
  backend.createLock("k", ALICE, { ttlMs: 5_000 });
  // Under a longer TTL the config's heartbeat fits and stays; an undefined option changes nothing.
  backend.createLock("k", ALICE, { ttlMs: 60_000, maxWaitMs: undefined });
  assert.deepEqual(got, [
    { ttlMs: 5_000, maxWaitMs: 9_000 },
    { ttlMs: 60_000, heartbeatMs: 10_000, maxWaitMs: 9_000 },
  ]);
});

Deno.test("conditionalLockBackend: the engine lock takes a caller's short TTL beside a config heartbeat that does not fit it", () => {
  const backend = conditionalLockBackend(new InMemoryStore(), {
    conditional: new ConditionalWrites(),
    config: { backend: "store", heartbeatMs: 10_000 },
  });
  const lock = backend.createLock("k", ALICE, { ttlMs: 5_000 }) as StoreLock;
  assert.equal(lock.ttlMs, 5_000);
  // Beside a long TTL the config's heartbeat still holds.
  assert.doesNotThrow(() => backend.createLock("k", ALICE, { ttlMs: 60_000 }));
});
