import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { UnreachableError, UnsafePathError } from "../../sync/errors.ts";
import { controlPlane } from "./control_plane.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);
const RETRY = { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 };

/** A new cache holding namespace `ns`'s directory with its `.namespace.json`, as the tool keeps it. */
async function cacheWithNamespace(ns: string): Promise<string> {
  const cache = await Deno.makeTempDir({ prefix: "sluice-cp-" });
  await Deno.mkdir(`${cache}/${ns}`);
  await Deno.writeTextFile(`${cache}/${ns}/.namespace.json`, JSON.stringify({ namespace: ns }));
  return cache;
}

/** The extension's datastore over `store`, as the tool loads it. */
function datastoreOver(store: InMemoryStore) {
  return defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "s@host", hostname: "host", pid: 1 },
  });
}

Deno.test("control plane: put and get round trip, a missing key is null, delete is idempotent, list strips the prefix", async () => {
  const store = new InMemoryStore();
  const cp = controlPlane(store, "", RETRY);
  await cp.put("heartbeats/i1", enc("one"));
  await cp.put("heartbeats/i2", enc("two"));
  await cp.put("pending-runs/r1", enc("run"));
  assert.equal(dec(await cp.get("heartbeats/i1")), "one");
  assert.equal(await cp.get("heartbeats/none"), null);
  assert.deepEqual(await cp.list("heartbeats/"), ["heartbeats/i1", "heartbeats/i2"]);
  assert.deepEqual(store.keys(), [
    "_control/heartbeats/i1",
    "_control/heartbeats/i2",
    "_control/pending-runs/r1",
  ]);
  await cp.delete("heartbeats/i1");
  await cp.delete("heartbeats/i1");
  assert.equal(await cp.get("heartbeats/i1"), null);
  assert.deepEqual(await cp.list("heartbeats/"), ["heartbeats/i2"]);
  // Sluice's own objects beside the records (its clock probe) are none of them.
  store.seed("_control/.sluice/clock", "clock probe\n");
  assert.deepEqual(await cp.list(""), ["heartbeats/i2", "pending-runs/r1"]);
  await assert.rejects(() => cp.put("../escape", enc("x")), UnsafePathError);
  await assert.rejects(() => cp.get("/abs"), UnsafePathError);
});

Deno.test("control plane: a namespace's records live under <ns>/_control/ and only it sees them", async () => {
  const store = new InMemoryStore();
  const solo = controlPlane(store, "", RETRY);
  const prod = controlPlane(store, "prod", RETRY);
  await solo.put("claims/a", enc("solo"));
  await prod.put("claims/a", enc("prod"));
  assert.deepEqual(store.keys(), ["_control/claims/a", "prod/_control/claims/a"]);
  assert.equal(dec(await prod.get("claims/a")), "prod");
  assert.deepEqual(await prod.list(""), ["claims/a"]);
  await prod.delete("claims/a");
  assert.equal(dec(await solo.get("claims/a")), "solo");
});

Deno.test("control plane: putIfAbsent creates once; of writers at once exactly one wins; true again after a delete", async () => {
  const store = new InMemoryStore();
  const cp = controlPlane(store, "", RETRY);
  assert.equal(await cp.putIfAbsent("claims/x", enc("first")), true);
  assert.equal(await cp.putIfAbsent("claims/x", enc("second")), false);
  assert.equal(dec(await cp.get("claims/x")), "first", "never overwritten");
  await cp.delete("claims/x");
  const won = await Promise.all(
    ["a", "b", "c", "d"].map((w) => cp.putIfAbsent("claims/x", enc(w))),
  );
  assert.equal(won.filter(Boolean).length, 1);
  // The same record again (same bytes) from another writer is not a win.
  const winner = dec(await cp.get("claims/x"))!;
  assert.equal(await cp.putIfAbsent("claims/x", enc(winner)), false);
});

Deno.test("control plane: a lost answer is retried, and a create that landed is this call's win, not a refusal", async () => {
  const store = new InMemoryStore();
  const cp = controlPlane(store, "", RETRY);
  store.failNext("put", 1, () => new UnreachableError("reset"), { afterEffect: true });
  assert.equal(await cp.putIfAbsent("claims/y", enc("mine")), true);
  store.failNext("get", 1);
  assert.equal(dec(await cp.get("claims/y")), "mine");
  store.failNext("put", 3);
  await assert.rejects(() => cp.put("claims/z", enc("z")), UnreachableError);
});

Deno.test("control plane through the extension: advertised, scoped by the bound namespace, never synced into the cache", async () => {
  const store = new InMemoryStore();
  const ds = datastoreOver(store);
  const cache = await Deno.makeTempDir({ prefix: "sluice-cp-" });
  const svc = ds.createProvider({ bucket: "mem" }).createSyncService("/repo", cache);
  assert.equal(svc.capabilities?.().controlPlane, true);
  const root = svc.controlPlaneStore!();
  await root.put("heartbeats/i1", enc("root"));
  await svc.pullChanged({ namespace: "prod" });
  const ns = svc.controlPlaneStore!();
  await ns.put("heartbeats/i1", enc("prod"));
  assert.equal(await ns.putIfAbsent!("migration/root-import-complete", enc("t")), true);
  assert.deepEqual(store.keys("prod/_control/"), [
    "prod/_control/heartbeats/i1",
    "prod/_control/migration/root-import-complete",
  ]);
  // Made before the binding: each call follows the namespace bound since.
  assert.equal(dec(await root.get("heartbeats/i1")), "prod");
  assert.equal(dec(await store.get("_control/heartbeats/i1").then((g) => g.body)), "root");
  assert.deepEqual(await root.list("heartbeats/"), ["heartbeats/i1"]);
  assert.deepEqual(await ns.list(""), ["heartbeats/i1", "migration/root-import-complete"]);
  // A pull and a push of the cache leave the control plane alone.
  await svc.markDirty();
  await svc.pushChanged({ namespace: "prod" });
  await svc.pullChanged({ namespace: "prod" });
  // The cache's `_control/` holds Sluice's sync state only, no key of the control plane.
  const files: string[] = [];
  for await (const e of Deno.readDir(`${cache}/_control`)) files.push(e.name);
  assert.deepEqual(files.filter((f) => f !== ".sluice" && f !== ".sluice-ns"), []);
  assert.equal(await Deno.stat(`${cache}/prod/_control`).then(() => true, () => false), false);
  assert.equal(dec(await ns.get("heartbeats/i1")), "prod");
});

Deno.test("control plane: a token command's store, made before its sync binds the namespace, keeps the key and the secret where a serve of that namespace reads them", async () => {
  const store = new InMemoryStore();
  const ds = datastoreOver(store);
  // A namespaced repository's cache: the tool keeps `<ns>/.namespace.json` there.
  const cacheCli = await cacheWithNamespace("prod");
  const cli = ds.createProvider({ bucket: "mem" }).createSyncService("/repo", cacheCli);
  // The tool's token command: its vault's store is made, the encryption key
  // read and created, then a scoped pull binds the namespace, then the
  // secret is written.
  const vault = cli.controlPlaneStore!();
  assert.equal(await vault.get("token-secrets/encryption-key"), null);
  assert.equal(await vault.putIfAbsent!("token-secrets/encryption-key", enc("K")), true);
  await cli.pullChanged({
    context: { models: [{ modelType: "swamp/server-token", modelId: "t1" }] },
    namespace: "prod",
  });
  await vault.put("token-secrets/values/t1", enc("rotated"));
  assert.deepEqual(store.keys("_control/"), []);
  assert.deepEqual(await vault.list("token-secrets/values/"), ["token-secrets/values/t1"]);
  // serve, in a process of its own, binds first and then makes its store.
  const serve = ds.createProvider({ bucket: "mem" }).createSyncService(
    "/repo",
    await Deno.makeTempDir({ prefix: "sluice-cp-serve-" }),
  );
  await serve.pullChanged({ namespace: "prod" });
  const served = serve.controlPlaneStore!();
  assert.equal(dec(await served.get("token-secrets/encryption-key")), "K");
  assert.equal(dec(await served.get("token-secrets/values/t1")), "rotated");
  await vault.delete("token-secrets/values/t1");
  assert.deepEqual(store.keys("prod/_control/token-secrets/values/"), []);
});

Deno.test("control plane: before any binding, a cache holding no namespace is solo", async () => {
  const store = new InMemoryStore();
  const ds = datastoreOver(store);
  const cache = await Deno.makeTempDir({ prefix: "sluice-cp-solo-" });
  const cp = ds.createProvider({ bucket: "mem" }).createSyncService("/repo", cache)
    .controlPlaneStore!();
  await cp.put("heartbeats/i1", enc("solo"));
  assert.deepEqual(store.keys(""), ["_control/heartbeats/i1"]);
  assert.deepEqual(await cp.list("heartbeats/"), ["heartbeats/i1"]);
});

Deno.test("control plane: a solo repository's cache beside a namespace directory left behind keeps a token command's key and secret solo", async () => {
  const store = new InMemoryStore();
  const ds = datastoreOver(store);
  const cache = await cacheWithNamespace("old");
  await Deno.mkdir(`${cache}/data/t/m/d/1`, { recursive: true });
  await Deno.writeTextFile(`${cache}/data/t/m/d/1/raw`, "solo data");
  const cli = ds.createProvider({ bucket: "mem" }).createSyncService("/repo", cache);
  const vault = cli.controlPlaneStore!();
  assert.equal(await vault.putIfAbsent!("token-secrets/encryption-key", enc("K")), true);
  await cli.pullChanged({
    context: { models: [{ modelType: "swamp/server-token", modelId: "t1" }] },
  });
  await vault.put("token-secrets/values/t1", enc("S"));
  assert.deepEqual(store.keys("old/"), []);
  assert.deepEqual(store.keys("_control/"), [
    "_control/token-secrets/encryption-key",
    "_control/token-secrets/values/t1",
  ]);
});
