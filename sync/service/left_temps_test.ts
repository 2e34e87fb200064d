/**
 * Temporary files interrupted transfers left in the cache: a push's walk
 * removes Sluice's own once untouched for an hour, leaves younger ones and
 * every other name, and tells of both.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  clearLeftTemps,
  clearRecordedTemps,
  isLeftTempPath,
  LEFT_TEMP_AGE_MS,
} from "./left_temps.ts";
import { TEMP_RECORDS_DIR, TempRecords } from "../transfer/temp_records.ts";
import { createEmitter } from "../events.ts";
import { LocalCache } from "../transfer/cache.ts";

const identity = { holder: "sluice@host", hostname: "host", pid: 1 };
const OLD = "data/big/m1/blob.bin.sluice-d1911a984514.tmp";
const YOUNG = "data/big/m1/other.bin.sluice-0a1b2c3d4e.tmp";
const TOOLS = "data/big/m1/.0b6f2c1e-1d2a-4c3b-9e8f-123456789abc.tmp";
const USERS = "notes/notes.tmp";

async function cacheWithTemps() {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-temps-" });
  const svc = await createSluice({ cacheDir, store, identity });
  const enc = new TextEncoder();
  await svc.cache.write("data/big/m1/blob.bin", enc.encode("whole\n"));
  for (const p of [OLD, YOUNG, TOOLS, USERS]) {
    await Deno.mkdir(`${cacheDir}/${p.slice(0, p.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeFile(`${cacheDir}/${p}`, enc.encode("half a dow"));
  }
  const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  for (const p of [OLD, TOOLS, USERS]) await Deno.utime(`${cacheDir}/${p}`, hoursAgo, hoursAgo);
  const warnings: { code: string; message: string }[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  return { store, cacheDir, svc, warnings };
}

const present = (dir: string, p: string) => Deno.lstat(`${dir}/${p}`).then(() => true, () => false);

Deno.test("a push's walk removes Sluice's temporary files untouched for an hour, and says so; younger ones and other names stay", async () => {
  const { store, cacheDir, svc, warnings } = await cacheWithTemps();
  await svc.markDirty();
  const r = await svc.pushChanged();
  assert.deepEqual(r.uploaded.slice().sort(), ["data/big/m1/blob.bin", USERS]);
  assert.equal(await present(cacheDir, OLD), false, "left by a cut-off transfer: removed");
  assert.equal(await present(cacheDir, YOUNG), true, "a transfer may still write it");
  assert.equal(await present(cacheDir, TOOLS), true, "the tool's own temporary file");
  assert.equal(await present(cacheDir, USERS), true, "a user's file named .tmp");
  assert.equal(store.peekText(USERS), "half a dow", "a user's .tmp file is pushed as any file");
  const told = warnings.filter((w) => w.code === "temp_files_left");
  assert.equal(told.length, 1);
  assert.match(told[0].message, /Removed 1 temporary file .*blob\.bin\.sluice-d1911a984514\.tmp/);
  assert.match(told[0].message, /Left 1 temporary file written to within the hour .*other\.bin/);
  assert.equal(store.peekText(OLD), undefined, "never pushed");
});

Deno.test("a dry run of a push removes no temporary file, and says what a push would do", async () => {
  const { cacheDir, svc, warnings } = await cacheWithTemps();
  await svc.markDirty();
  await svc.pushChanged({ dryRun: true });
  assert.equal(await present(cacheDir, OLD), true);
  assert.match(
    warnings.find((w) => w.code === "temp_files_left")?.message ?? "",
    /A push would remove 1 temporary file/,
  );
});

Deno.test("clearLeftTemps: a temporary file written to since the walk saw it is left", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-temps-" });
  const cache = new LocalCache(dir);
  const name = "a.sluice-0123456789.tmp";
  await Deno.writeTextFile(`${dir}/${name}`, "x");
  const old = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  await Deno.utime(`${dir}/${name}`, old, old);
  const seen = { path: name, size: 1, mtimeMs: old.getTime() };
  // Written to again after the walk.
  await Deno.writeTextFile(`${dir}/${name}`, "xy");
  const r = await clearLeftTemps(cache, [seen], Date.now(), createEmitter(), false);
  assert.deepEqual(r, { removed: [], young: [name] });
  assert.equal(await present(dir, name), true);
  assert.equal(isLeftTempPath(`d/${name}`), true);
  assert.equal(isLeftTempPath("d/report.20241231.tmp"), false);
});

Deno.test("clearLeftTemps: a temporary file beside a file whose path is near the longest a cache path may be is removed once an hour untouched, not told as written to within the hour", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-temps-" });
  const cache = new LocalCache(dir);
  const parent = Array.from({ length: 12 }, () => "d".repeat(80)).join("/");
  // The file itself is a path the cache takes (1020 characters); its temp name is longer.
  const file = `${parent}/${"f".repeat(1020 - parent.length - 1)}`;
  const name = `${file}.sluice-0123456789ab1.tmp`;
  assert.ok(name.length > 1024);
  await Deno.mkdir(`${dir}/${parent}`, { recursive: true });
  await Deno.writeTextFile(`${dir}/${name}`, "half");
  const old = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  await Deno.utime(`${dir}/${name}`, old, old);
  const events = createEmitter();
  const warnings: string[] = [];
  events.on("warning", (w) => warnings.push(w.message));
  const seen = { path: name, size: 4, mtimeMs: old.getTime() };
  const r = await clearLeftTemps(cache, [seen], Date.now(), events, false);
  assert.deepEqual(r, { removed: [name], young: [] });
  assert.equal(await present(dir, name), false);
  assert.equal(await present(dir, "d"), false, "its emptied directories go with it");
  assert.doesNotMatch(warnings.join("\n"), /within the hour/);
});

Deno.test("the temporary files downloads recorded: an old one removed with its record, a young one told of and kept, a gone one's record dropped, a record naming no temporary file touches nothing", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-recorded-" });
  const cacheDir = `${root}/cache`;
  const cache = new LocalCache(cacheDir);
  const killed = new TempRecords(cache.stateDir); // the records of a process killed part way
  const enc = new TextEncoder();
  for (const p of [OLD, YOUNG, "notes/a.txt", "../outside.bin.sluice-0a1b2c3d4e.tmp"]) {
    await Deno.mkdir(`${cacheDir}/${p.slice(0, p.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeFile(`${cacheDir}/${p}`, enc.encode("half a dow"));
  }
  const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  for (const p of [OLD, "notes/a.txt", "../outside.bin.sluice-0a1b2c3d4e.tmp"]) {
    await Deno.utime(`${cacheDir}/${p}`, hoursAgo, hoursAgo);
  }
  for (
    const p of [
      OLD,
      YOUNG,
      "gone/x.bin.sluice-0a1b2c3d4e.tmp",
      "notes/a.txt",
      "../outside.bin.sluice-0a1b2c3d4e.tmp",
      ".sluice/manifest.json.sluice-0a1b2c3d4e.tmp",
    ]
  ) await killed.record(p);
  const warnings: { code: string; message: string }[] = [];
  const events = createEmitter();
  events.on("warning", (w) => void warnings.push(w));
  // An hour and more after the records were written (a record whose file is not there yet is kept a minute).
  const later = Date.now() + 2 * 60 * 1000;
  const r = await clearRecordedTemps(cache, later, events);
  assert.deepEqual(r, { removed: [OLD], young: [YOUNG] });
  assert.equal(await present(cacheDir, OLD), false);
  assert.equal(await present(cacheDir, YOUNG), true);
  assert.equal(await present(cacheDir, "notes/a.txt"), true, "not a temporary file: never removed");
  assert.equal(await present(root, "outside.bin.sluice-0a1b2c3d4e.tmp"), true, "outside the cache");
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].code, "temp_files_left");
  assert.match(
    warnings[0].message,
    /Removed 1 temporary file .*blob\.bin\.sluice-d1911a984514\.tmp/,
  );
  assert.match(warnings[0].message, /Left 1 temporary file .*a pull or push after that hour/);
  const left = await new TempRecords(cache.stateDir).list();
  assert.deepEqual(left.map((x) => x.path), [YOUNG], "only the young file's record is kept");
});

Deno.test("a dry run of the recorded temporary files removes nothing, neither file nor record; none recorded: nothing read, nothing told", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-recorded-" });
  const cache = new LocalCache(cacheDir);
  const events = createEmitter();
  const warnings: string[] = [];
  events.on("warning", (w) => void warnings.push(w.code));
  assert.deepEqual(await clearRecordedTemps(cache, Date.now(), events), { removed: [], young: [] });
  assert.deepEqual(warnings, []);
  await Deno.mkdir(`${cacheDir}/data/big/m1`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${OLD}`, "half a dow");
  const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  await Deno.utime(`${cacheDir}/${OLD}`, hoursAgo, hoursAgo);
  await new TempRecords(cache.stateDir).record(OLD);
  const r = await clearRecordedTemps(cache, Date.now(), events, true);
  assert.deepEqual(r, { removed: [OLD], young: [] });
  assert.equal(await present(cacheDir, OLD), true);
  assert.equal((await new TempRecords(cache.stateDir).list()).length, 1);
});

Deno.test("a push clears the temporary files downloads recorded; after its walk, which clears them itself, it tells of them once and drops the records of those gone", async () => {
  const { cacheDir, svc, warnings } = await cacheWithTemps();
  const stateDir = svc.cache.stateDir;
  const killed = new TempRecords(stateDir);
  await killed.record(OLD);
  await killed.record(YOUNG);
  const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  for (const e of Deno.readDirSync(`${stateDir}/${TEMP_RECORDS_DIR}`)) {
    await Deno.utime(`${stateDir}/${TEMP_RECORDS_DIR}/${e.name}`, hoursAgo, hoursAgo);
  }
  await svc.markDirty();
  await svc.pushChanged();
  assert.equal(await present(cacheDir, OLD), false);
  assert.equal(warnings.filter((w) => w.code === "temp_files_left").length, 1);
  assert.deepEqual((await new TempRecords(stateDir).list()).map((r) => r.path), [YOUNG]);

  // A push of marked paths only (no walk): the records find what is left.
  const later = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  await Deno.utime(`${cacheDir}/${YOUNG}`, later, later);
  await svc.cache.write("notes/new.txt", new TextEncoder().encode("new"));
  await svc.markDirty({ relPath: "notes/new.txt" });
  warnings.length = 0;
  await svc.pushChanged();
  assert.equal(await present(cacheDir, YOUNG), false);
  const told = warnings.filter((w) => w.code === "temp_files_left");
  assert.equal(told.length, 1);
  assert.match(told[0].message, /Removed 1 temporary file .*other\.bin/);
  assert.deepEqual(await new TempRecords(stateDir).list(), []);
});
