/**
 * The move to v2 as every caller runs it: a bucket another tool filled, with
 * no index yet, has its objects named in the shards, and the user is told.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { WarningEvent } from "../events.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, quick } from "./clone_kit.ts";
import { migrateIndex } from "./migrate.ts";

Deno.test("migrateIndex names another tool's objects in a bucket with no index, says so, and a pull brings them", async () => {
  const store = new InMemoryStore();
  store.seed("notes/readme.md", "copied in by hand");
  store.seed("data/t/m/out/1/raw", "another tool's output");
  const a = await clone(store, "a");
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const r = await migrateIndex(a);
  assert.equal(r.migrated, true);
  assert.equal(r.entries, 2);
  assert.deepEqual(warnings.map((w) => w.code), ["index_discovered"]);
  assert.match(warnings[0].message, /2 object\(s\) already there/);
  const index = await readIndex(store, quick.retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.deepEqual(Object.keys(index?.entries ?? {}).sort(), [
    "data/t/m/out/1/raw",
    "notes/readme.md",
  ]);
  const b = await clone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched.sort(), [
    "data/t/m/out/1/raw",
    "notes/readme.md",
  ]);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/notes/readme.md`), "copied in by hand");
});

Deno.test("migrateIndex of an empty bucket names nothing and tells nothing", async () => {
  const a = await clone(new InMemoryStore(), "a");
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const r = await migrateIndex(a);
  assert.equal(r.migrated, true);
  assert.equal(r.entries, 0);
  assert.deepEqual(warnings, []);
});
