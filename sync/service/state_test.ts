/**
 * The synced state of a cache one process holds: the manifest's base and
 * log, their saves, folds and damage, and records noted ahead of a save.
 * The state of a cache processes share at once: `state_shared_test.ts`.
 */
import assert from "node:assert/strict";
import { SyncState } from "./state.ts";

const entry = (n: number) => ({ hash: `h${n}`, version: `v${n}`, size: n, mtimeMs: 1000 + n });

async function fresh() {
  const dir = await Deno.makeTempDir({ prefix: "sluice-state-" });
  const files = {
    base: `${dir}/.sluice/manifest.json`,
    log: `${dir}/.sluice/manifest.log`,
  };
  return { dir, files, open: () => SyncState.open(dir) };
}

/** A base holding `a` (version v1), then one log line moving it to v2. */
async function savedTwice() {
  const f = await fresh();
  const s = await f.open();
  s.setSynced("a", entry(1));
  await s.saveManifest();
  s.setSynced("a", entry(2));
  await s.saveManifest();
  return f;
}

function entries(s: SyncState) {
  return Object.fromEntries(s.syncedPaths().sort().map((p) => [p, s.synced(p)]));
}

async function lines(file: string): Promise<string[]> {
  return (await Deno.readTextFile(file).catch(() => "")).split("\n").filter((l) => l !== "");
}

Deno.test("a save appends the changed entries to the log and leaves the base alone", async () => {
  const { files, open } = await fresh();
  const s = await open();
  for (let i = 0; i < 3; i++) s.setSynced(`f${i}`, entry(i));
  s.indexVersion = "idx1";
  await s.saveManifest();
  const base = (await Deno.stat(files.base)).ino;
  s.setSynced("f1", entry(11));
  s.setSynced("f2", undefined);
  s.indexVersion = "idx2";
  await s.saveManifest();
  assert.equal((await Deno.stat(files.base)).ino, base);
  assert.equal((await lines(files.log)).length, 3);
  const again = await open();
  assert.deepEqual(entries(again), entries(s));
  assert.equal(again.indexVersion, "idx2");
  assert.deepEqual(again.loadWarnings, []);
});

Deno.test("the log is folded into a new base once it outgrows the manifest", async () => {
  const { files, open } = await fresh();
  const s = await open();
  for (let i = 0; i < 200; i++) s.setSynced(`f${i}`, entry(i));
  await s.saveManifest();
  const base = (await Deno.stat(files.base)).ino;
  let round = 0;
  while ((await Deno.stat(files.base)).ino === base) {
    round++;
    for (let i = 0; i < 200; i++) s.setSynced(`f${i}`, entry(i + 1000 * round));
    await s.saveManifest();
    assert.ok(round < 10, "the base was never rewritten");
  }
  // 1 024 lines is the smallest log that is folded: the sixth round of 200.
  assert.equal(round, 6);
  assert.deepEqual(await lines(files.log), []);
  assert.deepEqual(entries(await open()), entries(s));
});

Deno.test("a crash between a new base and emptying the log loses nothing", async () => {
  const { files, open } = await fresh();
  const s = await open();
  for (let i = 0; i < 200; i++) s.setSynced(`f${i}`, entry(i));
  await s.saveManifest();
  let oldLog = "";
  for (let round = 1; round <= 6; round++) {
    oldLog = (await Deno.readTextFile(files.log).catch(() => "")) || oldLog;
    for (let i = 0; i < 200; i++) s.setSynced(`f${i}`, entry(i + 1000 * round));
    await s.saveManifest();
  }
  assert.deepEqual(await lines(files.log), []);
  // The process died after renaming the new base into place, before the log was emptied.
  await Deno.writeTextFile(files.log, oldLog);
  const again = await open();
  assert.deepEqual(entries(again), entries(s));
  assert.equal(again.synced("f7")?.version, "v6007");
});

Deno.test("a last log line cut short is dropped and the next save writes a new base", async () => {
  const { files, open } = await savedTwice();
  // A crash in the middle of an append that was never acknowledged.
  await Deno.writeTextFile(files.log, '{"g":0,"p":"a","e":{"h":"h3"', { append: true });
  const again = await open();
  assert.deepEqual(again.loadWarnings, []);
  assert.equal(again.synced("a")?.version, "v2");
  const base = (await Deno.stat(files.base)).ino;
  again.setSynced("b", entry(4));
  await again.saveManifest();
  assert.notEqual((await Deno.stat(files.base)).ino, base, "nothing is appended after a torn line");
  const third = await open();
  assert.deepEqual(third.loadWarnings, []);
  assert.deepEqual(entries(third), { a: entry(2), b: entry(4) });
});

Deno.test("an unreadable log line before the last is passed over: every other record is kept, and the open says which line", async () => {
  const { files, open } = await savedTwice();
  const before = entries(await open());
  assert.ok(Object.keys(before).length > 0);
  await Deno.writeTextFile(files.log, `garbage\n${await Deno.readTextFile(files.log)}`);
  const again = await open();
  assert.equal(again.bulkPending(), false, "no walk: only that line's record is lost");
  assert.deepEqual(entries(again), before);
  assert.match(again.loadWarnings.join(), /line 1 of its log .* damaged and unreadable/);
});

Deno.test("a base without a generation (an older cache) is read and then appended to", async () => {
  const { dir, files, open } = await fresh();
  await Deno.mkdir(`${dir}/.sluice`);
  await Deno.writeTextFile(
    files.base,
    JSON.stringify({ format: 1, indexVersion: "i", entries: { a: { h: "h", v: "v", s: 1 } } }),
  );
  const s = await open();
  assert.equal(s.synced("a")?.version, "v");
  s.setSynced("b", entry(2));
  await s.saveManifest();
  assert.equal((await lines(files.log)).length, 1);
  assert.deepEqual(entries(await open()), entries(s));
});

Deno.test("a lost base voids the log, even if a crash keeps the log beside the next base", async () => {
  const { files, open } = await savedTwice();
  const staleLog = await Deno.readTextFile(files.log);
  await Deno.remove(files.base); // the manifest is lost: the next push walks
  const again = await open();
  assert.deepEqual(again.syncedPaths(), []);
  again.setSynced("b", entry(3));
  await again.saveManifest();
  // The process died after the new base, before the old log was emptied.
  await Deno.writeTextFile(files.log, staleLog);
  assert.deepEqual(entries(await open()), { b: entry(3) });
});

Deno.test("a manifest log that is a link is never followed: a walk, then a real file", async () => {
  const { files, open } = await fresh();
  const s = await open();
  s.setSynced("a", entry(1));
  await s.saveManifest();
  const outside = `${await Deno.makeTempDir()}/elsewhere.txt`;
  await Deno.writeTextFile(outside, ""); // empty: read through the link, it would look fine
  await Deno.remove(files.log).catch(() => {});
  await Deno.symlink(outside, files.log);
  const again = await open();
  assert.equal(again.bulkPending(), true);
  again.setSynced("b", entry(2));
  await again.saveManifest();
  again.setSynced("c", entry(3));
  await again.saveManifest();
  assert.equal(await Deno.readTextFile(outside), "");
  assert.equal((await Deno.lstat(files.log)).isSymlink, false);
  assert.deepEqual(entries(await open()), { b: entry(2), c: entry(3) });
});

Deno.test("syncedCount counts the paths recorded as synced, loaded or set", async () => {
  const f = await savedTwice();
  const s = await f.open();
  assert.equal(s.syncedCount, 1, "the loaded manifest holds a");
  s.setSynced("b", entry(3));
  assert.equal(s.syncedCount, 2);
  s.setSynced("a", undefined);
  assert.equal(s.syncedCount, 1);
});

Deno.test("untouched: only a cache with no manifest, no journal and no mark, also after a reopen", async () => {
  const f = await fresh();
  const s = await f.open();
  assert.equal(s.untouched, true);
  assert.equal((await f.open()).untouched, true);
  await s.markDirty("a");
  assert.equal(s.untouched, false);
  await s.commit(["a"], s.snapshot(), false);
  assert.deepEqual(s.dirtyPaths(), []);
  assert.equal((await f.open()).untouched, false, "an emptied journal still shows a past mark");
  const g = await fresh();
  const t = await g.open();
  t.setSynced("a", entry(1));
  await t.saveManifest();
  assert.equal(t.untouched, false);
  assert.equal((await g.open()).untouched, false);
});

Deno.test("a record noted during a pull is on disk at once, before any save: a dying process leaves it", async () => {
  const { files, open } = await fresh();
  const s = await open();
  s.noteSynced("early", entry(1));
  assert.deepEqual(await lines(files.log), [], "no base yet: left to the next save");
  await s.readyToNote();
  assert.deepEqual(entries(await open()), { early: entry(1) }, "the base holds it");
  s.noteSynced("a", entry(2));
  s.noteSynced("b", entry(3));
  s.release(); // the process dies: no save
  assert.deepEqual(entries(await open()), { early: entry(1), a: entry(2), b: entry(3) });
  assert.equal((await lines(files.log)).length, 2);
});

Deno.test("records noted ahead are saved once: the save that follows writes no line again", async () => {
  const { files, open } = await fresh();
  const s = await open();
  await s.readyToNote();
  s.noteSynced("a", entry(1));
  s.noteSynced("b", entry(2));
  await s.saveManifest();
  assert.equal((await lines(files.log)).length, 2);
  s.setSynced("c", entry(3));
  await s.saveManifest();
  assert.equal((await lines(files.log)).length, 3);
  const again = await open();
  assert.deepEqual(entries(again), entries(s));
  assert.deepEqual(again.loadWarnings, []);
});

Deno.test("a record noted after the log was folded into a new base goes to the new log", async () => {
  const { files, open } = await fresh();
  const s = await open();
  await s.readyToNote();
  for (let i = 0; i < 600; i++) s.setSynced(`f${i}`, entry(i));
  await s.saveManifest();
  const base = (await Deno.stat(files.base)).ino;
  s.noteSynced("a", entry(1)); // the log is held open for the next records
  for (let i = 0; i < 600; i++) s.setSynced(`f${i}`, entry(i + 1000));
  await s.saveManifest(); // more than the log may hold: a new base, and an empty log
  assert.notEqual((await Deno.stat(files.base)).ino, base);
  assert.deepEqual(await lines(files.log), []);
  s.noteSynced("b", entry(2));
  assert.equal(
    (await lines(files.log)).length,
    1,
    "written to the log that replaced the folded one",
  );
  s.release();
  assert.deepEqual(entries(await open()), entries(s));
});

Deno.test("a record noted while a save is under way is saved after that save's older line of its path", async () => {
  const { open } = await fresh();
  const s = await open();
  await s.readyToNote();
  s.setSynced("lock.json", entry(1));
  const saving = s.saveManifest();
  s.noteSynced("lock.json", entry(2)); // a pull fetched a newer copy meanwhile
  await saving;
  await s.saveManifest();
  assert.deepEqual((await open()).synced("lock.json"), entry(2));
});

Deno.test("a base asked for by a pull and a save made at once keep every record", async () => {
  const { open } = await fresh();
  const s = await open(); // never synced: no base yet
  const ready = s.readyToNote();
  const lock = s.recordSynced("lock.json", entry(9)); // a lockfile publish, say
  await ready;
  s.noteSynced("fetched", entry(1));
  await lock;
  await s.saveManifest();
  assert.deepEqual((await open()).syncedPaths().sort(), ["fetched", "lock.json"]);
});
