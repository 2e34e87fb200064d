import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";
import { baseDue, entry, NO_INDEX, writeAheadP } from "./manifest_race_kit.ts";

/**
 * Two processes over one cache: `one` saves enough lines at once that its
 * save writes a base; `two` writes a line (p) ahead after that base's
 * take-in read the log, and `ends` runs then (it ends `one` at a point of
 * its write of the base).
 */
async function baseRace(ends: (dir: string) => void) {
  const r = await baseDue();
  r.arm(() => {
    writeAheadP(r, "written ahead to the log in place");
    ends(r.dir);
  });
  const saved = await r.one.save(r.mine, r.many, NO_INDEX).then(() => true, () => false);
  assert.equal(r.ran, true, "a base's take-in read the log");
  return { dir: r.dir, one: r.one, two: r.two, mine: r.mine, theirs: r.theirs, saved };
}

Deno.test("ManifestFiles: a base's writer that ends after its take-in read the log, before its base is in place, leaves every record to the next process, a line written ahead meanwhile among them", async () => {
  const { dir, one, two, theirs, saved } = await baseRace(() => {
    throw new Error("the process ended");
  });
  assert.equal(saved, false);
  one.release();
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read.get("p"), entry(99), "the line written ahead");
  assert.deepEqual(read.get("a"), entry(1), "the base before");
  assert.deepEqual(read.get("g0"), entry(0), "the save before");
  await two.save(theirs, [], NO_INDEX);
  const after = new Map<string, SyncedEntry>();
  await new ManifestFiles(dir).load(after);
  assert.deepEqual(after.get("p"), entry(99));
  two.release();
});

Deno.test("ManifestFiles: a base's writer that ends once its base is in place, before it replaced the log, loses no line another process wrote ahead after its take-in read the log", async () => {
  const rename = Deno.rename;
  try {
    const { dir, one, two, theirs, saved } = await baseRace((dir) => {
      // The process ends right after its base is renamed into place.
      Deno.rename = async (from: string | URL, to: string | URL) => {
        await rename(from, to);
        if (String(to) === `${dir}/manifest.json`) {
          Deno.rename = rename;
          throw new Error("the process ended");
        }
      };
    });
    Deno.rename = rename;
    assert.equal(saved, false);
    one.release();
    const read = new Map<string, SyncedEntry>();
    assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
    assert.deepEqual(read.get("g0"), entry(1), "the ended process's base");
    assert.deepEqual(read.get("p"), entry(99), "the next process reads the line written ahead");
    // The writer of that line saves (nothing of its own left to save) and
    // takes the files in again: its record stands.
    await two.save(theirs, [], NO_INDEX);
    await two.refresh(theirs, []);
    assert.deepEqual(theirs.get("p"), entry(99), "in the writer's own records");
    const after = new Map<string, SyncedEntry>();
    await new ManifestFiles(dir).load(after);
    assert.deepEqual(after.get("p"), entry(99), "on disk after its save");
    two.release();
  } finally {
    Deno.rename = rename;
  }
});

Deno.test("ManifestFiles: a line another process writes ahead to a log it creates after a base's take-in found none is in the files after that base, and in both processes' records", async () => {
  const race = await baseDue();
  const { dir, one, two, mine, theirs, many } = race;
  race.arm(() => writeAheadP(race, "written ahead, the log created"));
  // No log beside the base as the base's take-in reads (an older cache's,
  // or one whose emptied log was never put in place).
  await Deno.remove(`${dir}/manifest.log`);
  await one.save(mine, many, NO_INDEX);
  assert.equal(race.ran, true, "a base was written");
  await two.save(theirs, [], NO_INDEX);
  await two.refresh(theirs, []);
  await one.refresh(mine, []);
  const read = new Map<string, SyncedEntry>();
  await new ManifestFiles(dir).load(read);
  assert.deepEqual(read.get("p"), entry(99), "on disk");
  assert.deepEqual(mine.get("p"), entry(99), "in the base writer's records");
  assert.deepEqual(theirs.get("p"), entry(99), "in the writer's own records");
  one.release();
  two.release();
});
