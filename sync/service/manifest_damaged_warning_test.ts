import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { openWatched, pushThreeDamageMiddle } from "./damaged_log_kit.ts";

Deno.test("a damaged line of the synced manifest's log that a process open since before it takes in (not at its open) is told, as at an open: its record is lost", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-damaged-" });
  // The long-lived process, open before the lines are written.
  const long = await openWatched(store, cacheDir, "long", 1);
  // Another process over the cache pushes three files, one at a time.
  const other = await openWatched(store, cacheDir, "other", 2);
  // Another process over the cache pushes three files; p.txt's record, a line of the log, is damaged on disk.
  const at = await pushThreeDamageMiddle(other.service, cacheDir);

  assert.equal(long.warnings.length, 0, "nothing told yet");
  // The long-lived process's next command takes the files in first.
  await long.service.status();
  assert.equal(long.service.state.synced("p.txt"), undefined, "p.txt's record is lost");
  assert.equal(long.service.state.synced("q.txt")?.version, (await store.head("q.txt"))?.version);
  assert.deepEqual(long.warnings.map((w) => w.code), ["state_unreadable"]);
  assert.match(long.warnings[0].message, new RegExp(`line ${at + 1} of its log .* damaged`));
});

Deno.test("a damaged line of the synced manifest's log is told with the command to run next, at an open and at a later take-in alike", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-damaged-" });
  const long = await openWatched(store, cacheDir, "long", 1);
  const other = await openWatched(store, cacheDir, "other", 2);
  await pushThreeDamageMiddle(other.service, cacheDir);
  await long.service.status();
  // A process opened after the damage tells it at its open.
  const late = await openWatched(store, cacheDir, "late", 3);
  const told = [...long.warnings, ...late.warnings];
  assert.deepEqual(told.map((w) => w.code), ["state_unreadable", "state_unreadable"]);
  for (const w of told) assert.match(w.message, /Run `sluice status`/, w.message);
});
