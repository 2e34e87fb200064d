import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";
import { baseDue, entry, NO_INDEX, writeAheadP } from "./manifest_race_kit.ts";

Deno.test("baseDue: the first process's next save writes a base, and the armed hook runs once inside it, after its take-in read the log", async () => {
  const race = await baseDue();
  assert.equal(race.ran, false);
  race.arm(() => writeAheadP(race, "written ahead"));
  await race.one.save(race.mine, race.many, NO_INDEX);
  assert.equal(race.ran, true, "a base was written");
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(race.dir).load(read)).kind, "read");
  assert.deepEqual(read.get("g0"), entry(1), "the changed records");
  assert.deepEqual(read.get("p"), entry(99), "the line written ahead, taken in");
  race.one.release();
  race.two.release();
});
