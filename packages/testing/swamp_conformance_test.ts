/**
 * The extension conformance checks, run against the extension over the
 * in-memory store (lock and verifier), and shown to fail on shapes that break
 * a rule.
 */
import assert from "node:assert/strict";
import { AssertionError } from "node:assert";
import {
  assertSwampExportConformance,
  assertSwampLockConformance,
  assertSwampNamespaceConformance,
  assertSwampSyncServiceConformance,
  assertSwampVerifierConformance,
  type ConformingLock,
} from "./swamp_conformance.ts";
import { InMemoryStore } from "./in_memory_store.ts";
import { defineStoreDatastore } from "../extension/store_datastore.ts";
import { envFrom } from "../extension/env.ts";
import { createSluice } from "../../sluice.ts";
import { PrefixedStore } from "../extension/prefixed_store.ts";
import type { ObjectStore } from "../../sync/ports.ts";

function memoryDatastore(store: ObjectStore = new InMemoryStore()) {
  return defineStoreDatastore({ store, env: envFrom({}), createService: createSluice });
}

Deno.test("swamp conformance: the extension's lock passes", async () => {
  const p = memoryDatastore().createProvider({ bucket: "mem" });
  await assertSwampLockConformance(p.createLock("/tmp/ds", { lockKey: "conformance/a.lock" }));
  await assertSwampLockConformance(p.createLock("/tmp/ds"));
});

Deno.test("swamp conformance: the extension's verifier passes, healthy and not", async () => {
  const store = new InMemoryStore();
  const p = memoryDatastore(store).createProvider({ bucket: "mem" });
  await assertSwampVerifierConformance(p.createVerifier());
  assert.equal((await p.createVerifier().verify()).healthy, true);
  store.unreachable = true;
  const down = await p.createVerifier().verify();
  await assertSwampVerifierConformance({ verify: () => Promise.resolve(down) });
  assert.equal(down.healthy, false);
  assert.deepEqual(down.details, { bucket: "mem", code: "unreachable" });
  assert.equal(down.datastoreType, "@sluice/store-datastore");
});

Deno.test("swamp conformance: the extension's sync service passes", async () => {
  const cache = await Deno.makeTempDir();
  try {
    const p = memoryDatastore().createProvider({ bucket: "mem" });
    await assertSwampSyncServiceConformance(p.createSyncService("/tmp/repo", cache), {
      expectScopedSync: true,
    });
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("swamp conformance: the extension's namespace calls pass, also under a key prefix", async () => {
  for (const store of [new InMemoryStore(), new PrefixedStore(new InMemoryStore(), "team/ds")]) {
    const p = memoryDatastore(store).createProvider({ bucket: "mem" });
    await assertSwampNamespaceConformance(p, { datastorePath: p.resolveDatastorePath("/repo") });
    await assertSwampNamespaceConformance(p, {
      datastorePath: p.resolveDatastorePath("/repo"),
      namespace: "second",
    });
    assert.deepEqual(await p.listNamespaces("/repo/.swamp"), ["conformance-ns", "second"]);
  }
});

Deno.test("swamp conformance: each check fails on a shape that breaks its rule", async () => {
  const ds = memoryDatastore();
  assert.throws(
    () =>
      assertSwampExportConformance({ ...ds, type: "@9bad/x" }, { validConfigs: [{ bucket: "m" }] }),
    AssertionError,
  );
  assert.throws(
    () =>
      assertSwampExportConformance(ds, {
        validConfigs: [{ bucket: "m" }],
        invalidConfigs: [{ bucket: "ok" }],
      }),
    AssertionError,
  );
  const { configSchema: _dropped, ...noSchema } = ds;
  assert.throws(
    () => assertSwampExportConformance(noSchema, { validConfigs: [{}] }),
    AssertionError,
  );

  const lock = ds.createProvider({ bucket: "m" }).createLock("/tmp/ds", { lockKey: "c/b.lock" });
  const alwaysForce: ConformingLock = {
    acquire: () => lock.acquire(),
    release: () => lock.release(),
    withLock: (fn) => lock.withLock(fn),
    inspect: () => lock.inspect(),
    forceRelease: async () => {
      await lock.release();
      return true;
    },
  };
  await assert.rejects(assertSwampLockConformance(alwaysForce), AssertionError);
  await lock.release();
  await assert.rejects(
    assertSwampVerifierConformance({
      verify: () =>
        Promise.resolve({ healthy: true, message: "", latencyMs: -1, datastoreType: "x" }),
    }),
    AssertionError,
  );
  await assert.rejects(
    assertSwampSyncServiceConformance({
      pullChanged: () => Promise.resolve("3"),
      pushChanged: () => Promise.resolve(0),
      markDirty: () => Promise.resolve(),
    }),
    AssertionError,
  );

  const provider = ds.createProvider({ bucket: "m" });
  assert.throws(
    () =>
      assertSwampExportConformance({
        ...ds,
        createProvider: (c: Record<string, unknown>) =>
          Object.assign(ds.createProvider(c), { listNamespaces: "not a function" }),
      }, { validConfigs: [{ bucket: "m" }] }),
    AssertionError,
  );
  const taken = new Map<string, string>();
  const lastWriterWins = {
    registerNamespace: (_: string, ns: string, repoId: string) => {
      if (!/^[a-z0-9-]+$/.test(ns)) return Promise.reject(new Error("bad slug"));
      taken.set(ns, repoId);
      return Promise.resolve();
    },
    listNamespaces: () => Promise.resolve([...taken.keys()]),
  };
  const unlisted = {
    registerNamespace: provider.registerNamespace.bind(provider),
    listNamespaces: () => Promise.resolve([]),
  };
  const anyMessage = {
    registerNamespace: (_: string, ns: string, repoId: string) =>
      repoId === "conformance-repo-b"
        ? Promise.reject(new Error("taken"))
        : provider.registerNamespace("/ds", ns, repoId),
    listNamespaces: () => provider.listNamespaces("/ds"),
  };
  const broken = [lastWriterWins, unlisted, anyMessage, {}];
  for (const [i, shape] of broken.entries()) {
    await assert.rejects(
      assertSwampNamespaceConformance(shape, { datastorePath: "/ds", namespace: `broken-${i}` }),
      (e) => e instanceof AssertionError && !/not registered yet/.test(e.message),
    );
  }
});
