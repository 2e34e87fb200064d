/**
 * A cache the tool fills without marks: `datastore setup extension` copies
 * the repository's files into a new cache, calls pushChanged() with no
 * markDirty, then deletes its copies. The push must walk the cache.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { checkout } from "./checkout_kit.ts";
import { createSluice } from "../../sluice.ts";

const fresh = (store: InMemoryStore) => checkout(store, "a", createSluice);

const FILES = {
  "data/shell/cmd/m1/out/1/raw": "one",
  "data/shell/cmd/m1/out/latest": "1",
  "definitions/shell/cmd/m1.yaml": "name: m1",
};

Deno.test("untouched cache: a push from a cache filled without marks uploads every file, then nothing", async () => {
  for (const ns of ["", "prod"]) {
    const store = new InMemoryStore();
    const a = await fresh(store);
    const at = (rel: string) => ns ? `${ns}/${rel}` : rel;
    for (const [rel, text] of Object.entries(FILES)) await a.write(at(rel), text);
    await a.write(at("data/shell/cmd/m1/.lock"), "{}"); // kept local, never walked up
    const options = ns ? { namespace: ns } : {};
    // The version's metadata.yaml too, written beside its raw as the tool does.
    assert.equal(await a.svc.pushChanged(options), 4, `namespace "${ns}"`);
    for (const [rel, text] of Object.entries(FILES)) assert.equal(store.peekText(at(rel)), text);
    assert.equal(store.peekText(at("data/shell/cmd/m1/.lock")), undefined);
    assert.equal(await a.svc.pushChanged(options), 0);
    assert.deepEqual(a.warnings, []);
  }
});

Deno.test("untouched cache: the two-phase push walks it too", async () => {
  const store = new InMemoryStore();
  const a = await fresh(store);
  for (const [rel, text] of Object.entries(FILES)) await a.write(rel, text);
  const manifest = await a.svc.preparePush();
  assert.equal(await a.svc.commitPush(manifest), 4);
  for (const [rel, text] of Object.entries(FILES)) assert.equal(store.peekText(rel), text);
  assert.equal(await a.svc.pushChanged(), 0);
});

Deno.test("untouched cache: an empty one writes no state; a synced one is not walked again", async () => {
  const store = new InMemoryStore();
  const a = await fresh(store);
  assert.equal(await a.svc.pushChanged(), 0);
  assert.equal(await Deno.stat(`${a.cache}/.sluice`).then(() => true, () => false), false);
  await a.write("data/t/m/d/1/raw", "one");
  assert.equal(await a.svc.pushChanged(), 2); // raw, metadata.yaml
  // Synced now: an unmarked file is a later write the tool did not announce, not walked for.
  await a.write("data/t/m/d/2/raw", "two");
  assert.equal(await a.svc.pushChanged(), 0);
  assert.equal(store.peekText("data/t/m/d/2/raw"), undefined);
});

Deno.test("untouched cache: a solo push beside namespace directories walks nothing and warns", async () => {
  const store = new InMemoryStore();
  const a = await fresh(store);
  await a.write("prod/.namespace.json", "{}");
  await a.write("prod/data/t/m/d/1/raw", "ns");
  await a.write("data/t/m/d/1/raw", "root");
  assert.equal(await a.svc.pushChanged(), 0);
  assert.deepEqual(store.keys(""), []);
  assert.deepEqual(a.warnings.map((w) => w.code), ["unsynced_cache_not_walked"]);
  assert.match(a.warnings[0].message, /namespace directories \(prod\)/);
});

Deno.test("untouched cache: a user's file named like a temp file is walked for and pushed; a temp file of Sluice's is not", async () => {
  const store = new InMemoryStore();
  const a = await fresh(store);
  await a.write("files/notes.tmp", "mine");
  await a.write("files/raw.sluice-0123456789ab.tmp", "a leftover");
  assert.equal(await a.svc.pushChanged(), 1);
  assert.equal(store.peekText("files/notes.tmp"), "mine");
  assert.equal(store.peekText("files/raw.sluice-0123456789ab.tmp"), undefined);
});
