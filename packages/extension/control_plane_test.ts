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
  await assert.rejects(() => cp.put("../escape", enc("x")), UnsafePathError);
  assert.throws(() => void cp.get("/abs"), UnsafePathError);
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
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "s@host", hostname: "host", pid: 1 },
  });
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
  assert.equal(dec(await root.get("heartbeats/i1")), "root", "made before the binding: solo");
  // A pull and a push of the cache leave the control plane alone.
  await svc.markDirty();
  await svc.pushChanged({ namespace: "prod" });
  await svc.pullChanged({ namespace: "prod" });
  const files: string[] = [];
  for await (const e of Deno.readDir(cache)) files.push(e.name);
  assert.ok(!files.includes("_control"), files.join(","));
  assert.equal(await Deno.stat(`${cache}/prod/_control`).then(() => true, () => false), false);
  assert.equal(dec(await ns.get("heartbeats/i1")), "prod");
});
