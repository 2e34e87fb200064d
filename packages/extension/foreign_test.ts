import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { SluiceError, UnreachableError, UnsafePathError } from "../../sync/errors.ts";
import { createEmitter } from "../../sync/events.ts";
import { fetchForeignContent, FOREIGN_CATALOG_UNREADABLE, pullForeignCatalogs } from "./foreign.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";

const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);
const RETRY = { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 };

function extension(store: InMemoryStore, warnings: string[]) {
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "s@host", hostname: "host", pid: 1 },
    warn: (line) => warnings.push(line),
  });
  return ds.createProvider({ bucket: "mem" });
}

Deno.test("foreign catalogs through the extension: each namespace's export, one without an export left out, an unreadable one left out with a warning, nothing bound", async () => {
  const store = new InMemoryStore();
  store.seed("dev/.catalog-export.json", JSON.stringify([{ model: "a" }, { model: "b" }]));
  store.seed("bad/.catalog-export.json", "{ not json");
  store.seed("obj/.catalog-export.json", JSON.stringify({ rows: [] }));
  const warnings: string[] = [];
  const svc = extension(store, warnings).createSyncService(
    "/repo",
    await Deno.makeTempDir({ prefix: "sluice-foreign-" }),
  );
  const got = await svc.pullForeignCatalogs!(["dev", "qa", "bad", "obj"]);
  assert.deepEqual(got, [{ namespace: "dev", rows: [{ model: "a" }, { model: "b" }] }]);
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings[0], /namespace bad \(bad\/\.catalog-export\.json\) is not a JSON array/);
  assert.match(warnings[1], /namespace obj/);
  // Nothing was bound: this service still binds the namespace of its first sync.
  await svc.pullChanged({ namespace: "prod" });
  store.seed("dev/data/t/m/d/1/raw", "dev's bytes");
  assert.equal(dec(await svc.fetchForeignContent!("dev", "data/t/m/d/1/raw")), "dev's bytes");
  assert.equal(await svc.fetchForeignContent!("dev", "data/t/m/d/2/raw"), null);
  // And nothing of another namespace came into the cache.
  assert.deepEqual(store.keys("prod/"), []);
});

Deno.test("foreign reads refuse a name that is not a namespace and a path that leaves it, reading nothing", async () => {
  const store = new InMemoryStore();
  store.seed("secret.txt", "root file");
  const events = createEmitter();
  for (const ns of ["Prod", "../x", "", "a/b", "-dev"]) {
    await assert.rejects(
      () => pullForeignCatalogs(store, ["dev", ns], RETRY, events),
      (e) =>
        e instanceof SluiceError && e.code === "invalid_config" &&
        /not a namespace name/.test(e.message),
      ns,
    );
  }
  for (
    const p of [
      "../secret.txt",
      "/secret.txt",
      "a//b",
      "./x",
      "data/../../secret.txt",
      "",
      "_control/token-secrets/encryption-key",
      "_index/_meta.json",
      "data/t/m/.lock",
      ".sluice/vanished.json",
      "_control/.sluice/vanished.json",
    ]
  ) {
    await assert.rejects(() => fetchForeignContent(store, "dev", p, RETRY), UnsafePathError, p);
  }
  assert.equal(store.count("get"), 0);
});

Deno.test("foreign reads: a store that cannot be read fails the call after its retries, never passes for a namespace with nothing", async () => {
  const store = new InMemoryStore();
  store.seed("dev/.catalog-export.json", "[]");
  const events = createEmitter();
  const warned: string[] = [];
  events.on("warning", (w) => warned.push(w.code));
  store.failNext("get", 3, () => new UnreachableError("reset"));
  await assert.rejects(() => pullForeignCatalogs(store, ["dev"], RETRY, events), UnreachableError);
  store.failNext("get", 3, () => new UnreachableError("reset"));
  await assert.rejects(() => fetchForeignContent(store, "dev", "x", RETRY), UnreachableError);
  // One failure is retried.
  store.failNext("get", 1, () => new UnreachableError("reset"));
  assert.deepEqual(await pullForeignCatalogs(store, ["dev"], RETRY, events), [
    { namespace: "dev", rows: [] },
  ]);
  assert.deepEqual(warned, []);
  assert.equal(FOREIGN_CATALOG_UNREADABLE, "foreign_catalog_unreadable");
});
