import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { SluiceError } from "../../sync/errors.ts";
import { STORE_RECORD } from "../../sync/store_record.ts";
import { PutModes } from "../../sync/ports.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { memoryS3Datastore } from "./memory_datastore_kit.ts";
import { refuseOtherStore } from "./store_binding.ts";

const rec = (url: string, identity = url.replace(/\?.*$/, "")) => ({
  format: 1 as const,
  url,
  identity,
});

async function stateWith(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-binding-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

Deno.test("a cache with sync records of another bucket, prefix or endpoint is refused; one without, or of the same, is not", async () => {
  const one = rec("s3://b/one?endpoint=http://127.0.0.1:9000");
  const synced = await stateWith({ [STORE_RECORD]: JSON.stringify(one), "manifest.json": "{}" });
  await refuseOtherStore("/c", synced, one);
  await refuseOtherStore("/c", synced, rec("s3://b/one?endpoint=http://127.0.0.1:9000/"));
  for (
    const other of [
      rec("s3://b/two?endpoint=http://127.0.0.1:9000"),
      rec("s3://c/one?endpoint=http://127.0.0.1:9000"),
      rec("s3://b/one?endpoint=http://127.0.0.1:9001"),
      rec("s3://b/one"),
    ]
  ) {
    const err = await refuseOtherStore("/c", synced, other, "/repo").then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err instanceof SluiceError, other.url);
    assert.equal(err.code, "invalid_config");
    assert.equal(err.exitCode, 78);
    assert.match(err.message, /^The cache \/c mirrors s3:\/\/b\/one/);
    assert.match(err.message, /Nothing was changed/);
    assert.match(err.message, /`npx sluice status --cache \/c --store 's3:\/\/b\/one\?endpoint=/);
    assert.match(err.message, /`mv \/repo \/repo\.old`/);
  }
  // Never synced a file (the record, an empty dirty set): the new datastore is taken.
  const fresh = await stateWith({ [STORE_RECORD]: JSON.stringify(one), "dirty.log": "" });
  await refuseOtherStore("/c", fresh, rec("s3://b/two"));
  // Nothing recorded (or no state at all): nothing to refuse.
  await refuseOtherStore("/c", await stateWith({ "manifest.json": "{}" }), rec("s3://b/two"));
  await refuseOtherStore("/c", "/nonexistent/state", rec("s3://b/two"));
});

Deno.test("a cache with sync records whose record of its store cannot be read is refused, whatever the datastore; one that synced nothing is not", async () => {
  for (const broken of ["{bad", JSON.stringify({ format: 2, url: "s3://b/one" })]) {
    const synced = await stateWith({ [STORE_RECORD]: broken, "manifest.json": "{}" });
    const err = await refuseOtherStore("/c", synced, rec("s3://b/two"), "/repo").then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err instanceof SluiceError, broken);
    assert.equal(err.code, "invalid_config");
    assert.match(err.message, new RegExp(`${STORE_RECORD.replace(".", "\\.")}\\) cannot be read`));
    assert.match(err.message, /Nothing was changed/);
    assert.equal(await Deno.readTextFile(`${synced}/${STORE_RECORD}`), broken, "left as it is");
    const fresh = await stateWith({ [STORE_RECORD]: broken, "dirty.log": "" });
    await refuseOtherStore("/c", fresh, rec("s3://b/two"));
  }
});

Deno.test("through the extension: a configuration changed to another prefix is refused, and the cache keeps its files", async () => {
  const stores = { "mem/one": new InMemoryStore(), "mem/two": new InMemoryStore() };
  const [storeOne, storeTwo] = [stores["mem/one"], stores["mem/two"]];
  const ds = memoryS3Datastore(stores, createSluice);
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-binding-" });
  const open = (_store: InMemoryStore, prefix: string) =>
    ds.createProvider({ bucket: `mem/${prefix}`, lock: { backend: "store", ttlMs: 30_000 } })
      .createSyncService("/repo/a", cache);
  const first = open(storeOne, "one");
  await first.markDirty({ relPath: "notes/a.txt" });
  await writeAsTool(cache, "notes/a.txt", "mine");
  assert.equal(await first.pushChanged(), 1);
  // The other prefix holds another datastore's files.
  await storeTwo.put("other/o.txt", new TextEncoder().encode("theirs"), PutModes.overwrite);

  const second = open(storeTwo, "two");
  const err = await second.pullChanged().then(() => undefined, (e) => e);
  // Without the refusal the pull removes notes/a.txt here, taking its sync record for the new datastore's.
  assert.equal(await Deno.readTextFile(`${cache}/notes/a.txt`), "mine");
  assert.ok(err instanceof Error);
  assert.match(err.message, /mirrors s3:\/\/mem\/one, not s3:\/\/mem\/two/);
  await assert.rejects(Deno.stat(`${cache}/other/o.txt`));
  await assert.rejects(second.pushChanged(), /mirrors s3:\/\/mem\/one/);
  const record = JSON.parse(await Deno.readTextFile(`${cache}/_control/.sluice/${STORE_RECORD}`));
  assert.equal(record.identity, "s3://mem/one", "the record still names the first datastore");
  // Set back, the cache syncs as before.
  assert.equal(await open(storeOne, "one").pullChanged(), 0);
});

Deno.test("the service's own endpoint spelled out in the configuration is the same datastore: not refused", async () => {
  // GCS's own JSON API endpoint, which a configuration may name or leave out alike.
  const synced = await stateWith({
    [STORE_RECORD]: JSON.stringify(rec("gs://b/p")),
    "manifest.json": "{}",
  });
  await refuseOtherStore("/c", synced, rec("gs://b/p?endpoint=https://storage.googleapis.com"));
  await refuseOtherStore("/c", synced, rec("gs://b/p?endpoint=https://storage.googleapis.com/"));
});

Deno.test("through the extension: a cache that only ever pushed and pulled nothing takes a changed configuration", async () => {
  const stores = { "mem/one": new InMemoryStore(), "mem/two": new InMemoryStore() };
  const ds = memoryS3Datastore(stores, createSluice);
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-binding-" });
  const open = (prefix: string) =>
    ds.createProvider({ bucket: `mem/${prefix}`, lock: { backend: "store", ttlMs: 30_000 } })
      .createSyncService("/repo/a", cache);
  // A mistyped, empty prefix: the tool's push and pull there sync nothing.
  const first = open("one");
  assert.equal(await first.pushChanged(), 0);
  assert.equal(await first.pullChanged(), 0);
  // The configuration fixed: the datastore it names is taken, its files pulled.
  await stores["mem/two"].put("notes/n.txt", new TextEncoder().encode("n"), PutModes.overwrite);
  assert.equal(await open("two").pullChanged(), 1);
  assert.equal(await Deno.readTextFile(`${cache}/notes/n.txt`), "n");
});
