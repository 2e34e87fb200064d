import assert from "node:assert/strict";
import {
  type DatastoreProvider,
  type LockShape,
  parseProviderConfig,
  StoreProvider,
  type SyncServiceContract,
  verifyStore,
} from "./mod.ts";
import { createSyncService, SyncService } from "../../sync/service/service.ts";
import { StoreLock } from "../../sync/locks/lock_engine.ts";
import { ConfigError } from "../../sync/errors.ts";
import { LockBackendRegistry, storeLockFactory } from "../../sync/locks/lock_registry.ts";
import { FakeClock, InMemoryStore } from "../testing/mod.ts";
import { createS3Provider } from "../s3/provider.ts";
import { createGcsProvider } from "../gcs/provider.ts";
import { z } from "zod";

/** Compile-time: `T` is assignable to `U`. */
type Assignable<T extends U, U> = T;

// The engine's lock, the sync service and both providers have the shapes we declare.
type _LockFits = Assignable<StoreLock, LockShape>;
type _ServiceFits = Assignable<SyncService, SyncServiceContract>;
type _S3Fits = Assignable<ReturnType<typeof createS3Provider>, DatastoreProvider>;
type _GcsFits = Assignable<ReturnType<typeof createGcsProvider>, DatastoreProvider>;

const identity = { holder: "a@h", hostname: "h", pid: 1 };
const baseConfig = {
  prefix: "ds",
  conditionalWrites: "auto",
  concurrency: 2,
  requestTimeoutMs: 1_000,
  retry: {},
  lock: { backend: "store" },
  classifierRules: [],
} as const;

function memProvider(store = new InMemoryStore()) {
  return new StoreProvider({
    scheme: "mem",
    bucket: "b",
    config: baseConfig,
    store,
    createService: createSyncService,
    deps: { identity, clock: new FakeClock() },
  });
}

Deno.test("providers, SyncService and StoreLock satisfy the declared extension shapes", async () => {
  const s3 = createS3Provider({ bucket: "my-bucket", region: "eu-west-1" }, {
    credentials: { accessKeyId: "k", secretAccessKey: "s" },
    createService: createSyncService,
  }) satisfies DatastoreProvider;
  const gcs = createGcsProvider({ bucket: "my-bucket" }, {
    createService: createSyncService,
  }) satisfies DatastoreProvider;
  const mem = memProvider() satisfies DatastoreProvider;
  try {
    for (const p of [s3, gcs, mem]) {
      for (const m of ["createLock", "createVerifier", "createSyncService"] as const) {
        assert.equal(typeof p[m], "function");
      }
      assert.equal(typeof p.resolveDatastorePath("/r"), "string");
      assert.equal(typeof p.resolveCachePath("/r"), "string");
    }
    const lock = mem.createLock("mem://b/ds") satisfies LockShape;
    assert.ok(lock instanceof StoreLock);
    const svc = await mem.createSyncService(
      "/r",
      await Deno.makeTempDir(),
    ) satisfies SyncServiceContract;
    assert.ok(svc instanceof SyncService);
  } finally {
    s3.close();
    gcs.close();
  }
});

Deno.test("StoreProvider: paths, locks on its own datastore only, services sharing the lock backend", async () => {
  const store = new InMemoryStore();
  const p = memProvider(store);
  assert.equal(p.resolveDatastorePath("/repo"), "mem://b/ds");
  assert.equal(p.resolveCachePath("/repo/"), "/repo/.sluice-cache/mem/b/ds");
  assert.equal(p.resolveCachePath("/"), "/.sluice-cache/mem/b/ds");

  const err = (() => {
    try {
      p.createLock("mem://other/ds");
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof ConfigError);
  assert.equal(err.field, "datastorePath");

  const global = p.createLock("mem://b/ds/", { ttlMs: 5_000 });
  assert.equal(global.key, ".datastore.lock");
  await global.acquire();
  assert.equal((await global.inspect())?.holder, "a@h");
  await global.release();
  const model = p.createLock("mem://b/ds", {
    key: "data/t/m/.lock",
    identity: { ...identity, holder: "b@h" },
  });
  assert.equal(model.key, "data/t/m/.lock");

  const svc = await p.createSyncService("/repo", await Deno.makeTempDir());
  assert.equal(svc.lockBackend, p.lockBackend);
  assert.equal(svc.config.concurrency, 2);
  assert.equal(svc.identity, identity);
  assert.ok(svc.capabilities().locks);
});

Deno.test("StoreProvider: an unknown lock backend fails at setup, naming lock.backend", () => {
  const registry = new LockBackendRegistry().register("store", storeLockFactory);
  assert.throws(
    () =>
      new StoreProvider({
        scheme: "mem",
        bucket: "b",
        config: { ...baseConfig, lock: { backend: "nope" } },
        store: new InMemoryStore(),
        createService: createSyncService,
        deps: { lockRegistry: registry },
      }),
    (e) => e instanceof ConfigError && e.field === "lock.backend" && /"store"/.test(e.message),
  );
});

Deno.test("parseProviderConfig: names the field path, what is expected and what was given", () => {
  const schema = z.strictObject({
    a: z.string({ error: "a name" }),
    list: z.array(z.strictObject({ n: z.number({ error: "a number" }) })).default([]),
  });
  const fail = (input: unknown) => {
    try {
      parseProviderConfig(schema, input);
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e;
    }
    assert.fail("no error");
  };
  assert.deepEqual(parseProviderConfig(schema, { a: "x" }), { a: "x", list: [] });
  let e = fail({ a: 1 });
  assert.equal(e.field, "a");
  assert.match(e.message, /a name, got 1/);
  e = fail({ a: "x", list: [{ n: "2" }] });
  assert.equal(e.field, "list[0].n");
  e = fail({ a: "x", typo: 1 });
  assert.equal(e.field, "typo");
  assert.match(e.message, /no such setting/);
  e = fail("nope");
  assert.equal(e.field, "(root)");
  e = fail({});
  assert.match(e.message, /got nothing/);
});

Deno.test("verifyStore: latency and conditional-write support, by setting", async () => {
  const store = new InMemoryStore();
  let r = await verifyStore(store, "required");
  assert.equal(r.ok, true);
  assert.ok(r.latencyMs >= 0);
  assert.equal(r.conditionalWrites?.create, "honoured");
  assert.equal(r.conditionalWrites?.update, "honoured");
  assert.deepEqual(store.keys("_control/.sluice/"), [], "the probe cleaned up");

  store.conditionalMode = "ignore";
  r = await verifyStore(store, "auto");
  assert.equal(r.ok, true);
  assert.equal(r.conditionalWrites?.create, "ignored");
  assert.match(r.message, /check-then-write/);
  r = await verifyStore(store, "required");
  assert.equal(r.ok, false);
  assert.match(r.message, /requires conditional writes/);
  assert.equal(r.code, "conditional_writes_unsupported");

  store.conditionalMode = "refuse";
  r = await verifyStore(store, "required");
  assert.equal(r.ok, false);
  assert.equal(r.conditionalWrites?.create, "refused");

  r = await verifyStore(store, "off");
  assert.equal(r.ok, true);
  assert.equal(r.conditionalWrites, null);
  assert.equal(r.code, undefined, "no code when ok");

  store.unreachable = true;
  r = await verifyStore(store, "auto");
  assert.equal(r.ok, false);
  assert.equal(r.latencyMs, -1);
  assert.match(r.message, /did not answer/);
  assert.equal(r.code, "unreachable");
  assert.doesNotMatch(r.message, /\.\./, "no double period");
  assert.doesNotMatch(
    r.message,
    /run the sync again|Nothing was lost/,
    "a check keeps and pushes nothing",
  );
  store.unreachable = false;
  // Refused (credentials, a missing bucket): it answered, and says so.
  store.failNext(
    "head",
    1,
    () => new ConfigError("credentials", "credentials the endpoint accepts"),
  );
  r = await verifyStore(store, "auto");
  assert.equal(r.ok, false);
  assert.match(r.message, /refused the check \(invalid_config\)/);
  assert.equal(r.code, "invalid_config", "the code a command exits with");
  assert.doesNotMatch(r.message, /did not answer/);
});

Deno.test("verifyStore: a probe that fails with Sluice's own error gives its advice, not a guess", async () => {
  const missing = new InMemoryStore();
  missing.failNext("put", 1, () => new ConfigError("bucket", "a bucket that exists"));
  const r = await verifyStore(missing, "auto");
  assert.equal(r.ok, false);
  assert.match(r.message, /conditional-write probe failed: .*bucket/);
  assert.equal(r.code, "invalid_config");
  assert.doesNotMatch(r.message, /\.\./);
  assert.doesNotMatch(r.message, /write permission/);
  const denied = new InMemoryStore();
  denied.failNext("put", 1, () => new Error("AccessDenied."));
  const d = await verifyStore(denied, "auto");
  assert.match(d.message, /AccessDenied\. Check write permission on the bucket/);
  assert.equal(d.code, "internal");
});
