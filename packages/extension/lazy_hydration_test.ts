/**
 * swamp's lazy hydration through the extension: a `metadataOnly` pull
 * leaves the data versions' `raw` files out (their directories made), and
 * `hydrateFile` fetches one when it is read; pushes delete none of them.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";

const RAW = "data/shell/cmd/m1/out/1/raw";
const META = "data/shell/cmd/m1/out/1/metadata.yaml";

function service(store: InMemoryStore, name: string, cache: string) {
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: `${name}@host`, hostname: "host", pid: name.charCodeAt(0) },
  });
  return ds.createProvider({ bucket: "mem" }).createSyncService(`/repo/${name}`, cache);
}

async function write(cache: string, rel: string, text: string) {
  const file = `${cache}/${rel}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}

const exists = (file: string) => Deno.stat(file).then(() => true, () => false);

Deno.test("lazy hydration: a metadataOnly pull skips raw files and makes their directories; hydrateFile fetches one; a push deletes none", async () => {
  const store = new InMemoryStore();
  const aDir = await Deno.makeTempDir({ prefix: "sluice-lazy-a-" });
  const a = service(store, "a", aDir);
  await a.markDirty({ relPath: "data/shell/cmd/m1/out" });
  await write(aDir, RAW, "the bytes");
  await write(aDir, META, "meta");
  await write(aDir, "data/shell/cmd/m1/out/latest", "1");
  await a.markDirty({ relPath: "data/shell/cmd/m1/out/1" });
  assert.equal(await a.pushChanged(), 3);

  const bDir = await Deno.makeTempDir({ prefix: "sluice-lazy-b-" });
  const b = service(store, "b", bDir);
  assert.equal(b.capabilities?.().lazyHydration, true);
  assert.equal(await b.pullChanged({ metadataOnly: true }), 2, "the metadata and the marker");
  assert.equal(await exists(`${bDir}/${RAW}`), false);
  assert.ok((await Deno.stat(`${bDir}/data/shell/cmd/m1/out/1`)).isDirectory);
  // A bulk push (the token commands) and a scoped one delete nothing remotely.
  await b.markDirty();
  assert.equal(await b.pushChanged(), 0);
  assert.equal(store.peekText(RAW), "the bytes");
  // Read: hydrated on demand.
  assert.equal(await b.hydrateFile?.(RAW), true);
  assert.equal(await Deno.readTextFile(`${bDir}/${RAW}`), "the bytes");
  assert.equal(await b.hydrateFile?.("data/shell/cmd/m1/out/9/raw"), false, "absent remotely");
  // Without metadataOnly, everything is pulled.
  const cDir = await Deno.makeTempDir({ prefix: "sluice-lazy-c-" });
  const c = service(store, "c", cDir);
  await c.pullChanged({ metadataOnly: true });
  assert.equal(await c.pullChanged(), 1, "the full pull after a lazy one fetches the raw file");
  assert.equal(await Deno.readTextFile(`${cDir}/${RAW}`), "the bytes");
});
