/**
 * Two caches that share a writer id (copied before ids were bound to their
 * state directory): a mark here of a path this cache never wrote nor
 * synced, absent here, never deletes the other cache's committed file.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

Deno.test("a mark of a path never written here deletes no committed file of a cache sharing the writer id", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "seed.txt", "seed");
  await a.pushChanged();
  // Copied before ids were bound: the id kept without its home.
  const kept = JSON.parse(await Deno.readTextFile(`${a.cacheDir}/.sluice/writer.json`));
  const cDir = await Deno.makeTempDir({ prefix: "sluice-c-" });
  await Deno.mkdir(`${cDir}/.sluice`);
  await Deno.writeTextFile(`${cDir}/.sluice/writer.json`, JSON.stringify({ id: kept.id }));
  await Deno.writeTextFile(
    `${a.cacheDir}/.sluice/writer.json`,
    JSON.stringify({ id: kept.id }),
  );
  const a2 = await clone(store, "a", a.cacheDir);
  const c = await clone(store, "c", cDir);
  await put(a2, "notes/a.txt", "a's file");
  await a2.pushChanged();
  // The user of c names a path it never had (a typo, a script).
  await c.markDirty({ relPath: "notes/a.txt" });
  await c.pushChanged();
  assert.equal(store.peekText("notes/a.txt"), "a's file", "a's committed file kept");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, "notes/a.txt"), "a's file");
});
