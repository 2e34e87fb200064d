/**
 * markDirty as the tool calls it: awaited before each cache write, so a
 * throw fails the user's write. A path Sluice cannot take as it is (one
 * leaving the cache, or with `.` or `..` segments) is a bulk mark, as the
 * existing extensions make it.
 */
import { writeAsTool } from "./checkout_kit.ts";
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";

const CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };

/** A cache already synced once (so a push walks only when marked to). */
async function synced(ns: string) {
  const store = new InMemoryStore();
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "a@host-a", hostname: "host-a", pid: 1 },
  });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-mark-" });
  const svc = ds.createProvider(CONFIG).createSyncService("/repo/a", cache);
  const at = (rel: string) => ns ? `${ns}/${rel}` : rel;
  const write = (rel: string, text: string) => writeAsTool(cache, at(rel), text);
  const options = ns ? { namespace: ns } : {};
  if (ns) await write(".namespace.json", "{}");
  await svc.markDirty({ relPath: at("data/t/m/d/1") });
  await write("data/t/m/d/1/raw", "one");
  assert.equal(await svc.pushChanged(options), 2); // its raw and metadata.yaml
  return { store, svc, at, write, options };
}

Deno.test("markDirty: a path leaving the cache or with . or .. segments is a bulk mark, never a throw", async () => {
  const escaping = [
    "../x",
    "../../etc/passwd",
    ".",
    "..",
    "data/../data/t/m/d/2/raw",
    "a/./b",
    "/abs/x",
  ];
  for (const ns of ["", "prod"]) {
    for (const relPath of escaping) {
      const t = await synced(ns);
      const path = ns && !relPath.startsWith("/") && !relPath.startsWith(".")
        ? t.at(relPath)
        : relPath;
      await t.svc.markDirty({ relPath: path }); // resolves, does not throw
      await t.write("data/t/m/d/2/raw", "two"); // not marked by name
      // The walk finds the version whole: its raw and its metadata.yaml.
      assert.equal(await t.svc.pushChanged(t.options), 2, `${JSON.stringify(path)} in "${ns}"`);
      assert.equal(t.store.peekText(t.at("data/t/m/d/2/raw")), "two");
      assert.equal(await t.svc.pushChanged(t.options), 0);
    }
  }
});

Deno.test("markDirty: a safe path is still marked alone (no walk)", async () => {
  const t = await synced("");
  await t.svc.markDirty({ relPath: "data/t/m/d/2" });
  await t.write("data/t/m/d/2/raw", "two");
  await t.write("data/t/m/d/3/raw", "three"); // not marked
  assert.equal(await t.svc.pushChanged(), 2); // d/2's raw and metadata.yaml
  assert.equal(t.store.peekText("data/t/m/d/3/raw"), undefined);
});
