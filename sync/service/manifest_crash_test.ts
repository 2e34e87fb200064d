import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});
const none = { changed: false, version: undefined };

/**
 * Two processes over one cache: `one` saves enough lines at once that its
 * save writes a base; `two` writes a line (p) ahead after that base's
 * take-in read the log, and `ends` runs then (it ends `one` at a point of
 * its write of the base).
 */
async function baseRace(ends: (dir: string) => void) {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  let armed = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      if (!armed) return;
      armed = false;
      theirs.set("p", entry(99));
      assert.equal(two.writeAhead(theirs, ["p"]), true, "written ahead to the log in place");
      ends(dir);
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  // Twice as many lines as entries: the second save writes a base.
  const many: string[] = [];
  for (let i = 0; i < 1100; i++) {
    mine.set(`g${i}`, entry(i));
    many.push(`g${i}`);
  }
  await one.save(mine, many, none);
  await two.refresh(theirs, []);
  for (const p of many) mine.set(p, entry(Number(p.slice(1)) + 1));
  armed = true;
  const saved = await one.save(mine, many, none).then(() => true, () => false);
  assert.equal(armed, false, "a base's take-in read the log");
  return { dir, one, two, mine, theirs, saved };
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
  await two.save(theirs, [], none);
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
    await two.save(theirs, [], none);
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
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  let armed = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      if (!armed) return;
      armed = false;
      theirs.set("p", entry(99));
      assert.equal(two.writeAhead(theirs, ["p"]), true, "written ahead, the log created");
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  const many: string[] = [];
  for (let i = 0; i < 1100; i++) {
    mine.set(`g${i}`, entry(i));
    many.push(`g${i}`);
  }
  await one.save(mine, many, none);
  await two.refresh(theirs, []);
  // No log beside the base as the base's take-in reads (an older cache's,
  // or one whose emptied log was never put in place).
  await Deno.remove(`${dir}/manifest.log`);
  for (const p of many) mine.set(p, entry(Number(p.slice(1)) + 1));
  armed = true;
  await one.save(mine, many, none);
  assert.equal(armed, false, "a base was written");
  await two.save(theirs, [], none);
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
