import assert from "node:assert/strict";
import { conflictRecord } from "../../packages/testing/mod.ts";
import { ownerLockHeld, OWNERS_DIR, SyncState } from "./state.ts";

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

/** Two processes' states over one cache (swamp runs models of one repository at once). */
async function sharedBy2() {
  const f = await fresh();
  return { ...f, one: await f.open(), two: await f.open() };
}

Deno.test("a commit keeps the marks another process sharing the cache made since it loaded, and never pushes them", async () => {
  const { open, one, two } = await sharedBy2();
  await two.markDirty("m2/raw");
  await one.markDirty("m1/raw");
  assert.deepEqual(
    one.dirtyPaths(),
    ["m1/raw"],
    "the other process's mark is not this one's to push",
  );
  await one.commit(["m1/raw"], one.snapshot(), false);
  assert.deepEqual((await open()).dirtyPaths(), ["m2/raw"], "a fresh process pushes it");
  await two.commit(["m2/raw"], two.snapshot(), false);
  assert.deepEqual((await open()).dirtyPaths(), []);
});

Deno.test("a journal another process compacted keeps this process's marks and takes in its own, the bulk mark and uploads about to be written among them", async () => {
  const { open, one, two } = await sharedBy2();
  await one.markDirty("a");
  await two.markDirty("b");
  await two.markDirty();
  await two.markAttempted(["c"]);
  // The other process compacts (its push of nothing of its own).
  await one.commit([], one.snapshot(), false);
  await two.markDirty("d");
  await two.commit(["b"], two.snapshot(), false);
  await one.commit(["a"], one.snapshot(), false);
  const three = await open();
  assert.deepEqual(three.dirtyPaths(), ["d"]);
  assert.equal(three.bulkPending(), true, "the other process's walk is still due");
  assert.deepEqual(three.attemptedPaths(), ["c"]);
});

Deno.test("a path another process marks again after this one's push read it stays dirty", async () => {
  const { open, one, two } = await sharedBy2();
  await one.markDirty("x");
  const snap = one.snapshot();
  await two.markDirty("x"); // written again by the other process after the push's read
  await one.commit(["x"], snap, false);
  assert.deepEqual((await open()).dirtyPaths(), ["x"]);
});

Deno.test("a path another process marks again after this one's push read it stays dirty, also when a third process compacts the journal in between", async () => {
  const { open, one, two } = await sharedBy2();
  const four = await open();
  await one.markDirty("p");
  const snap = one.snapshot();
  await two.markDirty("p"); // and exits before its push
  await four.markDirty("r");
  await four.commit(four.dirtyPaths(), four.snapshot(), false); // rewrites the journal
  await one.commit(["p"], snap, false);
  assert.deepEqual((await open()).dirtyPaths(), ["p"]);
});

Deno.test("a walk another process asks for after this one's walk began stays due, also across a compaction in between", async () => {
  const { open, one, two } = await sharedBy2();
  await one.markDirty();
  const snap = one.snapshot();
  await two.markDirty();
  await two.markDirty("q");
  await two.commit(["q"], two.snapshot(), false);
  await one.commit([], snap, true);
  assert.equal((await open()).bulkPending(), true);
});

Deno.test("a journal rewritten twice by another process (its inode may be the one this process last saw) is read as rewritten", async () => {
  const { open, one, two } = await sharedBy2();
  await two.markDirty("x");
  await one.markDirty("a");
  await one.commit([], one.snapshot(), false);
  await two.commit(["x"], two.snapshot(), false);
  await two.markDirty("b");
  await two.markDirty("c");
  await two.commit(["c"], two.snapshot(), false);
  // two exits with b due.
  await one.markDirty("d");
  await one.commit(["a", "d"], one.snapshot(), false);
  assert.deepEqual(
    (await open()).dirtyPaths(),
    ["b"],
    "the other process's mark of b, and no other",
  );
});

Deno.test("a process that writes the manifest's base keeps the records another process sharing the cache saved since it loaded", async () => {
  const { open, one, two } = await sharedBy2();
  one.setSynced("a", entry(1));
  await one.saveManifest(); // the first base: a
  two.setSynced("b", entry(2));
  await two.saveManifest(); // two loaded no base: it writes one, over what is there now
  assert.deepEqual(entries(await open()), { a: entry(1), b: entry(2) });
  // one appends to its log: the base is two's now, and one's line goes under it.
  one.setSynced("c", entry(3));
  await one.saveManifest();
  assert.deepEqual(entries(await open()), { a: entry(1), b: entry(2), c: entry(3) });
  assert.deepEqual(entries(one), { a: entry(1), b: entry(2), c: entry(3) }, "one took two's in");
});

Deno.test("records one process wrote ahead under a base another process replaced since are written again at its save", async () => {
  const { open, one, two } = await sharedBy2();
  one.setSynced("a", entry(1));
  await one.saveManifest();
  await one.readyToNote();
  one.noteSynced("p", entry(4)); // a pull's record, on disk at once
  two.setSynced("b", entry(2));
  await two.saveManifest(); // a new base (two had none), which takes p in too
  two.setSynced("b", entry(5));
  await two.saveManifest();
  await one.saveManifest();
  assert.deepEqual(entries(await open()), { a: entry(1), b: entry(5), p: entry(4) });
});

Deno.test("a save after another process's write ahead was cut off part way keeps the manifest readable", async () => {
  const { files, open } = await fresh();
  const one = await open();
  one.setSynced("a", entry(1));
  await one.saveManifest();
  const two = await open();
  // A third process's write ahead failed part way (a full disk, say): part of a line.
  await Deno.writeTextFile(files.log, '{"g":0,"p":"x","e":{"h":"h9"', { append: true });
  two.setSynced("b", entry(2));
  await two.saveManifest();
  const after = await open();
  assert.deepEqual(after.loadWarnings, []);
  assert.deepEqual(entries(after), { a: entry(1), b: entry(2) });
});

Deno.test("records written ahead under a base another process replaced are written again by the next save", async () => {
  const { open, one, two } = await sharedBy2();
  one.setSynced("a", entry(1));
  await one.saveManifest();
  await one.readyToNote();
  one.noteSynced("p", entry(4));
  two.setSynced("b", entry(2));
  await two.saveManifest(); // a new base (two had none), the log replaced
  one.noteSynced("q", entry(5)); // not written into the replaced log: left to the save
  await one.readyToNote();
  await one.saveManifest();
  assert.deepEqual(entries(await open()), { a: entry(1), b: entry(2), p: entry(4), q: entry(5) });
});

Deno.test("a process that loaded a log cut off part way writes its base over what the files hold, and with a generation no other base had", async () => {
  const { files, open, one, two: late } = await sharedBy2();
  one.setSynced("a", entry(1));
  await one.saveManifest();
  const whole = await Deno.readTextFile(files.log);
  await Deno.writeTextFile(files.log, '{"g":0,"p":"x","e":{"h":"h9"', { append: true });
  const two = await open(); // sees another's write ahead half done
  await Deno.writeTextFile(files.log, whole);
  await Deno.writeTextFile(files.log, '{"g":0,"p":"x","e":{"h":"h9","v":"v9","s":9}}\n', {
    append: true,
  });
  late.setSynced("b", entry(2));
  await late.saveManifest(); // a new base: a, b, x
  one.setSynced("c", entry(3));
  await one.saveManifest();
  two.setSynced("d", entry(4));
  await two.saveManifest();
  one.setSynced("e", entry(5));
  await one.saveManifest();
  assert.deepEqual(Object.keys(entries(await open())), ["a", "b", "c", "d", "e", "x"]);
});

Deno.test("conflicts two processes sharing the cache record are both kept, and one resolved stays resolved", async () => {
  const { open, one, two } = await sharedBy2();
  const conflict = conflictRecord;
  await one.conflicts.record([conflict("x"), conflict("z")]);
  await two.conflicts.record([conflict("y")]);
  assert.deepEqual((await open()).conflicts.list().map((c) => c.path), ["x", "y", "z"]);
  // Resolved by two, in an operation that read it first (each operation starts by reading the records).
  await two.conflicts.refresh();
  await two.conflicts.clear(["x"]);
  await one.conflicts.record([conflict("w")]);
  assert.deepEqual((await open()).conflicts.list().map((c) => c.path), ["w", "y", "z"]);
});

Deno.test("an upload this process records again is on disk though a process that took the first record over cleared it", async () => {
  const { open, one } = await sharedBy2();
  await one.markAttempted(["p"]);
  const two = await open(); // takes ?p over at its start
  await two.commit(["p"], two.snapshot(), false); // pushed p and committed it: its record cleared
  await one.markAttempted(["p"]); // one's next push is about to write p again
  assert.deepEqual((await open()).attemptedPaths(), ["p"]);
});

for (const later of ["recorded again", "forgotten"] as const) {
  Deno.test(`a record one process wrote ahead and a third ${later} since is not brought back when a second process's base came in between`, async () => {
    const { open, one, two } = await sharedBy2();
    one.setSynced("a", entry(1));
    await one.saveManifest();
    await one.readyToNote();
    one.noteSynced("p", entry(4)); // one's pull
    const three = await open();
    if (later === "recorded again") await three.recordSynced("p", entry(5));
    else await three.forget(["p"]);
    two.setSynced("b", entry(2));
    await two.saveManifest(); // two had no base: a base over what the files hold
    await one.saveManifest(); // one's pull ends
    assert.deepEqual(entries(await open()), {
      a: entry(1),
      b: entry(2),
      ...(later === "recorded again" ? { p: entry(5) } : {}),
    });
  });
}

Deno.test("a mark of a process that still runs is carried, never taken over, by a process that opens the cache; once it ends, the next one takes it over", async () => {
  const { dir, open, one } = await sharedBy2();
  await one.markDirty("run/1/raw"); // one's run, under way
  const runs = await SyncState.open(dir, undefined, { ownerRuns: () => true });
  assert.deepEqual(runs.dirtyPaths(), [], "not this process's to push");
  await runs.markDirty("mine");
  await runs.commit(["mine"], runs.snapshot(), false); // its own push rewrites the journal
  const gone = await SyncState.open(dir, undefined, { ownerRuns: () => false });
  assert.deepEqual(gone.dirtyPaths(), ["run/1/raw"], "carried: the next process takes it over");
  assert.deepEqual((await open()).dirtyPaths(), ["run/1/raw"]);
});

Deno.test("a process holds its owner lock from its first write of the journal until it exits", async () => {
  const { dir, one } = await sharedBy2();
  const owners = () => {
    try {
      return [...Deno.readDirSync(`${dir}/.sluice/${OWNERS_DIR}`)].map((e) =>
        e.name.slice(0, -".lock".length)
      );
    } catch {
      return [];
    }
  };
  assert.deepEqual(owners(), [], "nothing written yet");
  await one.markDirty("a");
  const [owner] = owners();
  assert.equal(ownerLockHeld(`${dir}/.sluice`, owner), true);
  one.exit();
  assert.equal(ownerLockHeld(`${dir}/.sluice`, owner), false);
});

Deno.test("the marks of a process that ended are taken over by one process alone: a second process opening the cache at once carries them as the first's", async () => {
  const { dir } = await fresh();
  await Deno.mkdir(`${dir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/.sluice/dirty.log`,
    '@9.dead "run/1/raw"\n@9.dead ?"notes/n.md"\n',
  );
  // Every process but the one that wrote those lines still runs.
  const runs = (owner: string) => owner !== "9.dead";
  const first = await SyncState.open(dir, undefined, { ownerRuns: runs });
  const second = await SyncState.open(dir, undefined, { ownerRuns: runs });
  assert.deepEqual(first.dirtyPaths(), ["run/1/raw"]);
  assert.deepEqual(first.attemptedPaths(), ["notes/n.md"]);
  assert.deepEqual(second.dirtyPaths(), [], "the first process's to push");
  assert.deepEqual(second.attemptedPaths(), [], "the first process's to settle");
  assert.deepEqual([...await second.markedElsewhere()], ["run/1/raw"]);
  first.exit();
  // Once the first ends too, the next process takes them over.
  const third = await SyncState.open(dir, undefined, { ownerRuns: () => false });
  assert.deepEqual(third.dirtyPaths(), ["run/1/raw"]);
  assert.deepEqual(third.attemptedPaths(), ["notes/n.md"]);
});

Deno.test("the marks of an ended process whose id this process has again (a container's process ids) are taken over by one process alone", async () => {
  const { dir } = await fresh();
  await Deno.mkdir(`${dir}/.sluice`, { recursive: true });
  // An earlier process of this very id ended with marks, its upload among them.
  const dead = `${Deno.pid}.dead`;
  await Deno.writeTextFile(
    `${dir}/.sluice/dirty.log`,
    `@${dead} "run/1/raw"\n@${dead} ?"notes/n.md"\n`,
  );
  const first = await SyncState.open(dir);
  assert.deepEqual(first.dirtyPaths(), ["run/1/raw"]);
  assert.deepEqual(first.attemptedPaths(), ["notes/n.md"]);
  // Another process opening the cache while the first runs.
  const second = await SyncState.open(dir, undefined, { ownerRuns: (o) => o !== dead });
  assert.deepEqual(second.dirtyPaths(), [], "the first process's to push");
  assert.deepEqual(second.attemptedPaths(), [], "the first process's to settle");
  first.exit();
  second.exit();
});
