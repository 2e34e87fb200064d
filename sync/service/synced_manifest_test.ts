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
