/**
 * Two processes sharing one cache, each with its own conflict records
 * (`ConflictSet`), each recording a conflict of the same path: the later
 * save keeps naming the copies the earlier record set aside, and never
 * names again a copy a resolution released, or dropped and is still to
 * release; a clear (or settle) of a path keeps a record another process
 * saved for it since this one last read it.
 */
import assert from "node:assert/strict";
import { type ConflictRecord, ConflictSet, type LocalSide, setAsideCopies } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideIn } from "../transfer/cache_state.ts";

const PATH = "notes/a.md";
const H = (c: string) => c.repeat(64);

/** A pull's conflict of PATH, its copy `mine`. */
const conflict = (mine: LocalSide, at: number): ConflictRecord => ({
  path: PATH,
  mine,
  theirs: { version: "v2", hash: H("b"), size: 6 },
  base: "v1",
  foundBy: "pull",
  at,
  reason: "both changed",
});

/** Writes `text` at PATH in `cacheDir` and sets it aside as a pull does, its conflict in its REASON.json. */
async function setAside(cacheDir: string, text: string, at: number): Promise<LocalSide> {
  await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${PATH}`, text);
  const side = { hash: H(String(at)), size: text.length };
  const location = await setAsideIn(defaultStateDir(cacheDir), `${cacheDir}/${PATH}`, PATH, {
    reason: "the pull found a local copy this cache never synced",
    at,
    conflict: { mine: side, theirs: { version: "v2", hash: H("b"), size: 6 }, reason: "both" },
  });
  return { location, ...side };
}

/** The record of PATH as saved (read from the file, not named again from a REASON.json). */
async function saved(cacheDir: string): Promise<ConflictRecord | undefined> {
  const file = JSON.parse(await Deno.readTextFile(`${defaultStateDir(cacheDir)}/conflicts.json`));
  return file.conflicts[PATH];
}

const locations = (rec: ConflictRecord | undefined) =>
  setAsideCopies(rec).map((c) => c.location).sort();

/** A conflict of another path `path`, its copy `path` itself. */
const otherPath = (path: string, hash: string, at: number): ConflictRecord => ({
  ...conflict({ location: path, hash, size: 1 }, at),
  path,
});

/** `rec` as a later pull records it, having found a newer version of theirs. */
const withNewerTheirs = (rec: ConflictRecord): ConflictRecord => ({
  ...rec,
  theirs: { version: "v3", hash: H("e"), size: 7 },
});

/** The second process sets aside what is at the path now and records it against a newer version of theirs. */
async function newerRecorded(dir: string, two: ConflictSet): Promise<LocalSide> {
  const newer = await setAside(dir, "edited meanwhile", 2);
  await two.record([withNewerTheirs(conflict(newer, 2))]);
  return newer;
}

/** Two processes' conflict records (`one`, `two`) over one new cache `dir`, removed after `body`. */
async function withTwoProcesses(
  body: (t: { dir: string; one: ConflictSet; two: ConflictSet }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await body({ dir, one: await ConflictSet.open(dir), two: await ConflictSet.open(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a conflict a second process over the cache records for a path the first one recorded keeps naming the first one's set-aside copy", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    // The first process's pull sets the user's copy aside in a conflict.
    const first = await setAside(dir, "mine", 1);
    await one.record([conflict(first, 1)]);
    // The second, its pull planned before that record, sets aside what is
    // at the path now (the user's merge) in a conflict of its own.
    const merge = await setAside(dir, "mine and theirs", 2);
    await two.record([conflict(merge, 2)]);
    const both = [first.location, merge.location].sort();
    assert.deepEqual(locations(await saved(dir)), both, "the saved record names both copies");
    assert.equal((await saved(dir))?.mine?.location, merge.location);
    assert.deepEqual(locations(two.get(PATH)), both);
    await one.refresh();
    assert.deepEqual(locations(one.get(PATH)), both);
    // A save of the first process's that follows, of another path, keeps it so.
    await one.record([otherPath("x", H("c"), 3)]);
    assert.deepEqual(locations(await saved(dir)), both);
  }));

Deno.test("a conflict recorded over one another process recorded since names it too even when this process had read it before, and names no copy a resolution released", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await one.record([conflict(first, 1)]);
    await two.refresh(); // the second process knows of the first copy
    // The first process records the path again, with another copy set aside.
    const again = await setAside(dir, "mine again", 2);
    await one.record([conflict(again, 2)]);
    // The second records it too: it names all three.
    const third = await setAside(dir, "mine, third", 3);
    await two.record([conflict(third, 3)]);
    assert.deepEqual(
      locations(await saved(dir)),
      [first.location, again.location, third.location].sort(),
    );
    // The first process resolves the path: its copies are released.
    await one.refresh();
    const resolved = one.get(PATH);
    assert.ok(resolved);
    await one.clear([PATH]);
    await one.release(resolved);
    // The second, not knowing of that, finds a new conflict of the path:
    // it stands, and names none of the released copies.
    const fourth = await setAside(dir, "mine, fourth", 4);
    await two.record([conflict(fourth, 4)]);
    assert.deepEqual(locations(await saved(dir)), [fourth.location]);
    assert.deepEqual(locations(two.get(PATH)), [fourth.location]);
    assert.deepEqual(locations((await ConflictSet.open(dir)).get(PATH)), [fourth.location]);
  }));

Deno.test("a resolution of this process that released the copies and then met a new conflict of the path does not name them again, nor does another process's record over it", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await one.record([conflict(first, 1)]);
    await two.refresh();
    // The first process resolves, releasing its copy, and records a new conflict.
    const rec = one.get(PATH);
    assert.ok(rec);
    await one.clear([PATH]);
    const next = await setAside(dir, "edited meanwhile", 2);
    await one.record([conflict(next, 2)]);
    await one.release(rec);
    await one.record([otherPath("y", H("d"), 2)]);
    assert.deepEqual(locations(await saved(dir)), [next.location]);
    // The second process, which knew the first copy, records the path too.
    const third = await setAside(dir, "mine, third", 3);
    await two.record([conflict(third, 3)]);
    assert.deepEqual(locations(await saved(dir)), [next.location, third.location].sort());
  }));

Deno.test("a clear of a path whose record another process saved anew since this one read it keeps that newer record, and the copy it set aside stays named", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh(); // the first process reads that record, to resolve it
    // The second process's pull finds a newer version of theirs meanwhile
    // and sets aside what is at the path now.
    const newer = await newerRecorded(dir, two);
    // The first process clears the record it read: the newer one stands.
    await one.clear([PATH]);
    const kept = await saved(dir);
    assert.ok(kept, "the newer record is still on disk");
    assert.equal(kept.theirs?.version, "v3");
    assert.equal(kept.mine?.location, newer.location);
    assert.deepEqual(locations(kept), [first.location, newer.location].sort());
    assert.ok(one.has(PATH), "the clearing process sees the path still in conflict");
    assert.equal(one.get(PATH)?.theirs?.version, "v3");
    assert.ok((await ConflictSet.open(dir)).has(PATH));
  }));

Deno.test("a settle of a path whose record another process saved anew since this one read it keeps that newer record", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    // A conflict with the copy in place (no copy set aside): a settle drops it.
    await two.record([conflict({ location: PATH, hash: H("a"), size: 4 }, 1)]);
    await one.refresh();
    const newer = await newerRecorded(dir, two);
    await one.settle([PATH]);
    assert.equal((await saved(dir))?.mine?.location, newer.location);
    assert.ok(one.has(PATH));
  }));

Deno.test("a clear of a path whose record is on disk as this process last read it deletes it, other paths' changes since notwithstanding", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh();
    // The second process records another path only.
    await two.record([otherPath("x", H("c"), 2)]);
    await one.clear([PATH]);
    assert.equal(await saved(dir), undefined, "the record read is deleted");
    assert.ok(!one.has(PATH));
    assert.ok(one.has("x"), "the other path's record is taken in");
    // And a record this process saved itself, unchanged since, is deleted too.
    await one.record([conflict(first, 3)]);
    await one.clear([PATH]);
    assert.equal(await saved(dir), undefined);
    // As is one the other process resolved meanwhile: it stays resolved.
    await one.record([conflict(first, 4)]);
    await two.refresh();
    await two.clear([PATH]);
    await one.clear([PATH]);
    assert.equal(await saved(dir), undefined);
    assert.ok(!one.has(PATH));
  }));

Deno.test("a clear of a path whose record this process saved over one another process saved since keeps that one, within the operation only", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh(); // a resolution begins, and reads that record
    const newer = await newerRecorded(dir, two);
    // The resolution saves its record of the path (its copy moved), then clears it.
    const moved = await setAside(dir, "mine, moved", 3);
    await one.record([conflict(moved, 3)]);
    await one.clear([PATH]);
    const kept = await saved(dir);
    assert.equal(kept?.theirs?.version, "v3", "the other process's record stands");
    assert.ok(locations(kept).includes(newer.location));
    assert.ok(one.has(PATH));
    // In a later operation, a record of this process's over none other is cleared as ever.
    await one.refresh();
    await one.record([conflict(moved, 4)]);
    await one.refresh();
    await one.clear([PATH]);
    assert.equal(await saved(dir), undefined);
  }));

Deno.test("a settle of a path this process saw with its copy in place keeps a record another process saved since, naming a copy it set aside", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    // The first process records a conflict whose copy is in place.
    await one.record([conflict({ location: PATH, hash: H("e"), size: 4 }, 1)]);
    await two.refresh();
    // The second's pull sets what is at the path aside (the user's merge).
    const merge = await setAside(dir, "mine and theirs", 2);
    await two.record([conflict(merge, 2)]);
    // The first, its view older, finds the sides agree: its settle deletes
    // only the record as it last read it, and the one saved since stands.
    await one.settle([PATH]);
    assert.deepEqual(locations(await saved(dir)), [merge.location]);
    assert.deepEqual(locations(one.get(PATH)), [merge.location]);
    assert.deepEqual(locations((await ConflictSet.open(dir)).get(PATH)), [merge.location]);
  }));

Deno.test("a conflict recorded between another process's resolution of the path and its release names none of the copies that resolution releases", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await one.record([conflict(first, 1)]);
    await two.refresh(); // the second process knows of the first copy
    // The first process resolves the path: the record cleared, its push on
    // its way, the copy released once it is done.
    const rec = one.get(PATH);
    assert.ok(rec);
    await one.clear([PATH]);
    // Meanwhile the second, its view older, finds a new conflict of the
    // path: its record must not name the copy the resolution dropped.
    const next = await setAside(dir, "mine, next", 2);
    await two.record([conflict(next, 2)]);
    await one.release(rec);
    assert.deepEqual(locations(await saved(dir)), [next.location]);
    assert.deepEqual(locations(two.get(PATH)), [next.location]);
  }));

Deno.test("a clear of a path keeps a newer record another process saved for it, taken in by a save of this process's of another path since it read the path", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh(); // a resolution begins, and reads that record
    // The second process's pull finds a newer version of theirs meanwhile
    // and sets aside what is at the path now.
    const newer = await newerRecorded(dir, two);
    // The first process saves a record of another path: the file it writes
    // holds the second's newer record of the path, which it takes in.
    await one.record([otherPath("x", H("c"), 3)]);
    assert.equal(one.get(PATH)?.theirs?.version, "v3");
    // Its resolution clears the record it read: the newer one stands.
    await one.clear([PATH]);
    const kept = await saved(dir);
    assert.equal(kept?.theirs?.version, "v3", "the newer record is still on disk");
    assert.equal(kept?.mine?.location, newer.location);
    assert.deepEqual(locations(kept), [first.location, newer.location].sort());
    assert.ok(one.has(PATH), "the clearing process sees the path still in conflict");
    assert.ok((await ConflictSet.open(dir)).has(PATH));
  }));

Deno.test("a settle of a path keeps a newer record another process saved for it, taken in by a save of this process's of another path since it read the path", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    // Conflicts with the copy in place (none set aside): a settle drops such a record.
    await two.record([conflict({ location: PATH, hash: H("a"), size: 4 }, 1)]);
    await one.refresh();
    await two.record([withNewerTheirs(conflict({ location: PATH, hash: H("f"), size: 5 }, 2))]);
    await one.record([otherPath("x", H("c"), 3)]);
    // The first process found the sides it read agreeing.
    await one.settle([PATH]);
    assert.equal((await saved(dir))?.theirs?.version, "v3", "the newer record is still on disk");
    assert.ok(one.has(PATH));
  }));

Deno.test("a clear of a path keeps a newer record another process saved for it, taken in by a save of another path, when this process saved its own record of the path over it since", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh(); // a resolution begins, and reads that record
    const newer = await newerRecorded(dir, two);
    await one.record([otherPath("x", H("c"), 3)]);
    // The resolution saves its record of the path (its copy moved), then clears it.
    const moved = await setAside(dir, "mine, moved", 4);
    await one.record([conflict(moved, 4)]);
    await one.clear([PATH]);
    const kept = await saved(dir);
    assert.equal(kept?.theirs?.version, "v3", "the other process's record stands");
    assert.ok(locations(kept).includes(newer.location));
    assert.ok(one.has(PATH));
  }));

Deno.test("a second clear of a path in one operation keeps the newer record another process saved for it, that the first clear left standing", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    await two.record([conflict({ location: PATH, hash: H("a"), size: 4 }, 1)]);
    await one.refresh();
    await two.record([withNewerTheirs(conflict({ location: PATH, hash: H("f"), size: 5 }, 2))]);
    // A pull cut off part way settles what it found agreeing as it goes, then again as it stops.
    await one.settle([PATH]);
    await one.record([otherPath("x", H("c"), 3)]);
    await one.settle([PATH]);
    assert.equal((await saved(dir))?.theirs?.version, "v3", "the newer record is still on disk");
    assert.ok(one.has(PATH));
    // The next operation reads it: a clear then deletes it.
    await one.refresh();
    await one.clear([PATH]);
    assert.equal(await saved(dir), undefined);
  }));

Deno.test("a reopen of a path this process cleared gives way to a record another process saved since, naming the reopened record's copies, and is not taken as read", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const first = await setAside(dir, "mine", 1);
    await two.record([conflict(first, 1)]);
    await one.refresh(); // a resolution begins, and reads that record
    const rec = one.get(PATH);
    assert.ok(rec);
    await one.clear([PATH]);
    // The second process's pull records a newer conflict of the path.
    const newer = await newerRecorded(dir, two);
    // The resolution did not resolve: it reopens the record it read, not knowing of the newer one.
    const moved = await setAside(dir, "mine, moved", 3);
    await one.reopen([{ ...rec, keptAside: [moved] }]);
    const kept = await saved(dir);
    assert.equal(kept?.theirs?.version, "v3", "the newer record stands");
    assert.equal(kept?.mine?.location, newer.location);
    assert.deepEqual(locations(kept), [first.location, moved.location, newer.location].sort());
    assert.equal(one.get(PATH)?.theirs?.version, "v3");
    // Not read by this process: a clear in the same operation keeps it.
    await one.clear([PATH]);
    assert.equal((await saved(dir))?.theirs?.version, "v3");
    // With no record saved since, a reopen records as ever.
    await one.refresh();
    await one.clear([PATH]);
    await one.reopen([{ ...rec, keptAside: [moved] }]);
    assert.equal((await saved(dir))?.theirs?.version, "v2");
    assert.deepEqual(locations(await saved(dir)), [first.location, moved.location].sort());
  }));

Deno.test("a record saved only over another process's record as it stands is saved while it stands, and not once that process resolved or replaced it", () =>
  withTwoProcesses(async ({ dir, one, two }) => {
    const inPlace = conflict({ location: PATH, hash: H("a"), size: 4 }, 1);
    const moved = { location: "elsewhere", hash: H("a"), size: 4 };
    await two.record([inPlace]);
    await one.refresh();
    const read = one.get(PATH)!;
    assert.equal(await one.recordOver(read, { ...read, mine: moved }), true);
    assert.equal((await saved(dir))?.mine?.location, "elsewhere");
    // Resolved by the other process since: it stays resolved.
    await two.refresh(); // its resolution reads the record, as named
    const named = two.get(PATH)!;
    await two.clear([PATH]);
    assert.equal(await one.recordOver(named, { ...named, at: 9 }), false);
    assert.equal(await saved(dir), undefined, "the resolved conflict stays resolved");
    assert.equal(one.has(PATH), false);
    // Replaced by the other process since: the newer record stands.
    await two.record([inPlace]);
    await one.takeIn();
    const again = one.get(PATH)!;
    await two.record([withNewerTheirs(inPlace)]);
    assert.equal(await one.recordOver(again, { ...again, mine: moved }), false);
    assert.equal((await saved(dir))?.theirs?.version, "v3", "the newer record stands");
    assert.equal((await saved(dir))?.mine?.location, PATH);
    assert.equal(one.get(PATH)?.theirs?.version, "v3");
  }));
