import assert from "node:assert/strict";
import { SyncState } from "./state.ts";

const entry = (v: string) => ({ hash: "h".repeat(64), version: v, size: 1 });

Deno.test("synced records: a refresh takes in what another process over the cache saved since, with this process's own unsaved records over it", async () => {
  const dir = await Deno.makeTempDir();
  const one = await SyncState.open(dir);
  const two = await SyncState.open(dir);
  await one.recordSynced("a", entry("1"));
  await one.recordSynced("b", entry("1"));
  two.setSynced("b", entry("2")); // two's own, not saved yet
  await two.refreshSynced();
  assert.deepEqual(two.synced("a"), entry("1"), "taken in");
  assert.deepEqual(two.synced("b"), entry("2"), "its own unsaved record stands");
  await two.saveManifest();
  const fresh = await SyncState.open(dir);
  assert.deepEqual(fresh.syncedPaths().sort(), ["a", "b"]);
  assert.deepEqual(fresh.synced("b"), entry("2"));
  await one.forget(["a"]);
  await two.refreshSynced();
  assert.equal(two.synced("a"), undefined, "a deletion elsewhere taken in too");
  for (const s of [one, two, fresh]) s.exit();
});
