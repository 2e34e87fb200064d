import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";
import { baseDue, entry, NO_INDEX, writeAheadP } from "./manifest_race_kit.ts";

/**
 * Two processes over one cache: `one` saves enough lines at once that its
 * save writes a base, its own record of `p` (1) among them; `two` writes
 * its record of `p` (99) ahead after that base's take-in read the log.
 * With `failLog`, `one`'s replacement of the log read fails (no space
 * left); the base is in place either way.
 */
async function ownRace(failLog: boolean) {
  const race = await baseDue();
  const { dir, one, two, mine, theirs, many } = race;
  const log = `${dir}/manifest.log`;
  mine.set("p", entry(1));
  race.arm(() => writeAheadP(race, "written ahead to the log in place"));
  const open = Deno.open;
  let failed = false;
  if (failLog) {
    Deno.open = ((path: string | URL, options?: Deno.OpenOptions) => {
      if (String(path).startsWith(log) && options?.createNew) {
        failed = true;
        return Promise.reject(new Error("No space left on device (os error 28)"));
      }
      return open(path, options);
    }) as typeof Deno.open;
  }
  try {
    await one.save(mine, [...many, "p"], NO_INDEX).catch(() => {});
  } finally {
    Deno.open = open;
  }
  assert.equal(race.ran, true, "a base's take-in read the log");
  assert.equal(failed, failLog);
  return { dir, one, two, mine, theirs };
}

async function loaded(dir: string): Promise<Map<string, SyncedEntry>> {
  const m = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(m)).kind, "read");
  return m;
}

Deno.test("ManifestFiles: a base writer's own record stands over a line another process wrote ahead of the same path after its take-in, its log replaced", async () => {
  const { dir, one, two, mine } = await ownRace(false);
  assert.deepEqual(mine.get("p"), entry(1));
  assert.deepEqual((await loaded(dir)).get("p"), entry(1), "on disk");
  await one.refresh(mine, []);
  assert.deepEqual(mine.get("p"), entry(1), "in the writer's records");
  one.release();
  two.release();
});

Deno.test("ManifestFiles: a base writer whose replacement of the log fails keeps its own record over a line another process wrote ahead of the same path after its take-in, as when it succeeds", async () => {
  const { dir, one, two, mine } = await ownRace(true);
  await one.refresh(mine, []);
  assert.deepEqual(mine.get("p"), entry(1), "in the writer's records");
  // The writer's next save, nothing new to record.
  await one.save(mine, [], NO_INDEX);
  await one.refresh(mine, []);
  assert.deepEqual(mine.get("p"), entry(1), "in the writer's records after its next save");
  assert.deepEqual((await loaded(dir)).get("p"), entry(1), "on disk after that save");
  one.release();
  two.release();
});

Deno.test("ManifestFiles: a base written before bases named the log they read (no carry) loads with its log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  await Deno.writeTextFile(
    `${dir}/manifest.json`,
    JSON.stringify({ format: 1, gen: 3, entries: { a: { h: "h1", v: "v1", s: 1 } } }),
  );
  await Deno.writeTextFile(
    `${dir}/manifest.log`,
    `${JSON.stringify({ g: 3, p: "b", e: { h: "h2", v: "v2", s: 2 } })}\n${
      JSON.stringify({ g: 2, p: "c", e: { h: "h3", v: "v3", s: 3 } })
    }\n`,
  );
  const m = await loaded(dir);
  assert.deepEqual([...m.keys()].sort(), ["a", "b"], "an older generation's line is not taken");
});

Deno.test("ManifestFiles: a carry whose log is no longer in place, or that reaches past the log's end, takes nothing in", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  await Deno.writeTextFile(
    `${dir}/manifest.log`,
    `${JSON.stringify({ g: 3, p: "b", e: { h: "h2", v: "v2", s: 2 } })}\n`,
  );
  const ino = (await Deno.lstat(`${dir}/manifest.log`)).ino;
  const base = (carry: unknown) =>
    Deno.writeTextFile(
      `${dir}/manifest.json`,
      JSON.stringify({ format: 1, gen: 4, entries: { a: { h: "h1", v: "v1", s: 1 } }, carry }),
    );
  await base({ g: 3, ino: (ino ?? 0) + 1, at: 0 });
  assert.deepEqual([...(await loaded(dir)).keys()], ["a"], "another log's inode");
  await base({ g: 3, ino, at: 1000 });
  assert.deepEqual([...(await loaded(dir)).keys()], ["a"], "past the log's end");
  await base({ g: 3, ino, at: 0 });
  assert.deepEqual([...(await loaded(dir)).keys()].sort(), ["a", "b"], "the log named");
});
