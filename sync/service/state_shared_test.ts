/**
 * The synced state of a cache that two or more processes share at once: the
 * journal's marks, the manifest's records and conflicts one process writes
 * are kept by the others, and an ended process's marks are taken over by
 * one process alone. The state of one process alone: `state_test.ts`.
 */
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

function entries(s: SyncState) {
  return Object.fromEntries(s.syncedPaths().sort().map((p) => [p, s.synced(p)]));
}

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
