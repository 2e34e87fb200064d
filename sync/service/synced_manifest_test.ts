import assert from "node:assert/strict";
import { SyncedManifest } from "./synced_manifest.ts";

const past = Date.now() - 60_000;

Deno.test("the synced manifest saves only what changed, and reads back what it saved", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-synced-manifest-" });
  const m = new SyncedManifest(dir);
  assert.equal((await m.load()).kind !== "unreadable", true);
  assert.equal(m.nothingToSave(undefined), true, "nothing recorded: nothing to save");
  m.set("a.txt", { hash: "ha", version: "v1", size: 1, mtimeMs: past });
  m.set("b.txt", { hash: "hb", version: "v2", size: 2, mtimeMs: Date.now() });
  assert.equal(m.nothingToSave(undefined), false);
  await m.save("v1:idx");
  assert.equal(m.nothingToSave("v1:idx"), true, "saved");
  assert.equal(m.nothingToSave("v2:idx"), false, "another index version is a change");
  m.set("b.txt", undefined);

  const again = new SyncedManifest(dir);
  const loaded = await again.load();
  assert.equal(loaded.kind === "read" && loaded.indexVersion, "v1:idx");
  assert.deepEqual(again.paths().sort(), ["a.txt", "b.txt"], "the deletion was never saved");
  assert.equal(again.get("a.txt")?.mtimeMs, past, "a settled mtime is kept");
  assert.equal(again.get("b.txt")?.mtimeMs, undefined, "a racy one is not");
  assert.equal(again.nothingToSave("v1:idx"), true, "the index version read counts as saved");
  assert.equal(again.size, 2);
});

Deno.test("a record written ahead after another process's write ahead was cut off part way (its last line torn) leaves the manifest readable, with every record, to the next process that reads it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-synced-manifest-" });
  const m = new SyncedManifest(dir);
  await m.load();
  m.set("a.txt", { hash: "ha", version: "v1", size: 1, mtimeMs: past });
  await m.save(undefined);
  await m.ensureBase();
  m.note("b.txt", { hash: "hb", version: "v2", size: 2, mtimeMs: past });
  // Another process over the cache, its disk full, wrote part of a line.
  await Deno.writeTextFile(`${dir}/manifest.log`, '{"g":0,"p":"c.txt","e":{"h', {
    append: true,
  });
  m.note("d.txt", { hash: "hd", version: "v4", size: 4, mtimeMs: past });
  await m.save(undefined);

  const again = new SyncedManifest(dir);
  assert.equal((await again.load()).kind, "read");
  assert.deepEqual(again.paths().sort(), ["a.txt", "b.txt", "d.txt"]);
  assert.equal(again.get("d.txt")?.hash, "hd");
});

Deno.test("a record written ahead after another process's base replaced the manifest since this process's last write is kept, on disk and here, by the save after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-synced-manifest-" });
  const m = new SyncedManifest(dir);
  await m.load();
  m.set("a.txt", { hash: "ha", version: "v1", size: 1, mtimeMs: past });
  await m.save(undefined);
  await m.ensureBase();
  // Another process over the cache: its second save of as many records as
  // the manifest holds writes a base of the next generation.
  const other = new SyncedManifest(dir);
  await other.load();
  for (const round of [1, 2]) {
    for (let i = 0; i < 1100; i++) {
      other.set(`g${i}`, { hash: `h${round}`, version: `v${round}`, size: 1, mtimeMs: past });
    }
    await other.save(undefined);
  }
  // This process's pull records a file it fetched, written ahead.
  m.note("b.txt", { hash: "hb", version: "v2", size: 2, mtimeMs: past });
  await m.save(undefined);
  assert.equal(m.get("b.txt")?.hash, "hb", "in this process's records");

  const again = new SyncedManifest(dir);
  assert.equal((await again.load()).kind, "read");
  assert.equal(again.get("b.txt")?.hash, "hb", "on disk");
  assert.equal(again.get("g0")?.hash, "h2", "the other process's records");
});
