import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { findStateDir } from "../transfer/cache_paths.ts";
import { clone, isIndexKey, processOver, put, quick, read } from "./clone_kit.ts";

/**
 * A peer published notes/n.md; two processes over one cache, both open
 * before the second one's pull of it.
 */
async function pulledElsewhere() {
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, "notes/n.md", "a file");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  const first = await processOver(store, cacheDir, 1);
  const second = await processOver(store, cacheDir, 2);
  await second.pullChanged();
  return { store, cacheDir, first };
}

Deno.test("a file another process over the cache pulled, replaced here by a directory of its name and pushed by name from a process that was open before that pull: the push deletes the file and publishes the directory's file, leaving no upload named by no index", async () => {
  const { store, cacheDir, first } = await pulledElsewhere();
  assert.equal(await read(first, "notes/n.md"), "a file");
  // The user replaces the file by a directory of its name and pushes it by
  // name through the first process.
  await Deno.remove(`${cacheDir}/notes/n.md`);
  await put(first, "notes/n.md/part.md", "under a directory", false);
  const warnings: string[] = [];
  first.events.on("warning", (w) => warnings.push(w.code));
  const r = await first.pushChanged({ only: ["notes/n.md"] });
  assert.deepEqual(r.skipped, []);
  assert.deepEqual(warnings, []);
  assert.deepEqual(r.uploaded, ["notes/n.md/part.md"]);
  assert.deepEqual(r.deleted, ["notes/n.md"]);
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index?.entries ?? {}).sort(), ["notes/n.md/part.md"]);
  // Nothing on the store the index does not name.
  const keys = store.keys().filter((k) => !isIndexKey(k) && !k.startsWith("."));
  assert.deepEqual(keys, ["notes/n.md/part.md"]);
});

Deno.test("a process that found the manifest's log torn at its start (a write cut off by a crash) still takes in the records another process's pull wrote since: its push by name of the file that pull fetched, replaced by a directory, deletes the file", async () => {
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, "notes/a.md", "first");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  const before = await processOver(store, cacheDir, 3);
  await before.pullChanged();
  before.state.exit();
  // A record written ahead by a process that died part way through it.
  await Deno.writeTextFile(`${findStateDir(cacheDir)}/manifest.log`, '{"g":0,"p":"notes/', {
    append: true,
  });
  await put(peer, "notes/n.md", "a file");
  await peer.pushChanged();
  const first = await processOver(store, cacheDir, 1);
  const second = await processOver(store, cacheDir, 2);
  await second.pullChanged();
  assert.equal(await read(first, "notes/n.md"), "a file");
  await Deno.remove(`${cacheDir}/notes/n.md`);
  await put(first, "notes/n.md/part.md", "under a directory", false);
  const r = await first.pushChanged({ only: ["notes/n.md"] });
  assert.deepEqual(r.skipped, []);
  assert.deepEqual(r.uploaded, ["notes/n.md/part.md"]);
  assert.deepEqual(r.deleted, ["notes/n.md"]);
  const index = await readIndex(store, quick.retry);
  assert.deepEqual(Object.keys(index?.entries ?? {}).sort(), ["notes/a.md", "notes/n.md/part.md"]);
});

Deno.test("the status of a process open before another process's pull over the cache plans over that pull's records, as a push now would: a file it fetched, edited here since, is to be uploaded, not left out as never synced", async () => {
  const { cacheDir, first } = await pulledElsewhere();
  await Deno.writeTextFile(`${cacheDir}/notes/n.md`, "edited here");
  const report = await first.statusReport({ walk: true });
  assert.deepEqual(report.entries.map((e) => [e.path, e.action]), [["notes/n.md", "put"]]);
  assert.deepEqual(report.leftBehind.left, []);
  const r = await first.pushChanged({ only: ["notes/n.md"] });
  assert.deepEqual(r.uploaded, ["notes/n.md"]);
});
