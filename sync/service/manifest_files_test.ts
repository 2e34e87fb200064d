import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

/**
 * ManifestFiles over `dir` whose next write ahead, once `tear()` is called,
 * follows another process's line cut off part way (its disk full: part of a
 * line naming `who`, no newline).
 */
function tearing(dir: string, who: string): { files: ManifestFiles; tear: () => void } {
  let armed = false;
  const files = new ManifestFiles(dir, {
    beforeAheadWrite: () => {
      if (!armed) return;
      armed = false;
      Deno.writeTextFileSync(`${dir}/manifest.log`, `{"g":0,"p":"${who}","e":{"h`, {
        append: true,
      });
    },
  });
  return { files, tear: () => (armed = true) };
}

/**
 * A process with a base (a) and a line written ahead (b), whose next line
 * (c) is written ahead right after another process's torn one: glued to it,
 * refused, left to its save.
 */
async function gluedToTorn(): Promise<
  { dir: string; files: ManifestFiles; mine: Map<string, SyncedEntry> }
> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const { files, tear } = tearing(dir, "theirs");
  const mine = new Map([["a", entry(1)]]);
  await files.load(new Map());
  await files.ensureBase(mine, undefined);
  mine.set("b", entry(2));
  assert.equal(files.writeAhead(mine, ["b"]), true);
  tear();
  mine.set("c", entry(3));
  assert.equal(files.writeAhead(mine, ["c"]), false, "glued to the torn line");
  return { dir, files, mine };
}

Deno.test("ManifestFiles: no line is written ahead while a write is queued or under way; the caller's next save writes it, after the older lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map([["a", entry(1)]]);
  assert.equal(files.writeAhead(manifest, ["a"]), false, "no base to append to yet");
  await files.ensureBase(manifest, undefined);
  manifest.set("b", entry(2));
  assert.equal(files.writeAhead(manifest, ["b"]), true);
  assert.equal(files.aheadUnsynced, true);
  manifest.set("c", entry(3));
  const saving = files.save(manifest, ["c"], { changed: false, version: undefined });
  manifest.set("c", entry(4));
  assert.equal(files.writeAhead(manifest, ["c"]), false, "refused while the save waits");
  await saving;
  assert.equal(files.aheadUnsynced, false, "the save synced b's line");
  assert.equal(files.writeAhead(manifest, ["c"]), true, "written once the save is done");
  await files.save(manifest, [], { changed: false, version: undefined });
  assert.equal(files.aheadUnsynced, false);
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read, manifest);
});

Deno.test("ManifestFiles: two bases asked for at once are written one after the other, the later numbered past the earlier", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map([["a", entry(1)]]);
  const first = files.ensureBase(manifest, undefined);
  manifest.set("b", entry(2));
  const second = files.save(manifest, ["b"], { changed: true, version: "t1" });
  await Promise.all([first, second]);
  const read = new Map<string, SyncedEntry>();
  assert.deepEqual(await new ManifestFiles(dir).load(read), { kind: "read", indexVersion: "t1" });
  assert.deepEqual(read, manifest);
});

Deno.test("ManifestFiles: a base that records nothing, with no line after it, is not a sync state", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map<string, SyncedEntry>();
  await files.ensureBase(manifest, undefined);
  assert.equal(files.seen, false);
  const again = new ManifestFiles(dir);
  await again.load(new Map());
  assert.equal(again.seen, false, "nor once read back");
  manifest.set("a", entry(1));
  assert.equal(again.writeAhead(manifest, ["a"]), true);
  assert.equal(again.seen, true);
});

Deno.test("ManifestFiles: this process's own writes (a base, a log append, a line written ahead) are not taken for another's; another process's are, and a refresh takes them in", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const one = new ManifestFiles(dir);
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  assert.equal(await one.changedOnDisk(), false, "its own base");
  mine.set("b", entry(2));
  await one.save(mine, ["b"], { changed: true, version: "t1" });
  assert.equal(await one.changedOnDisk(), false, "its own append");
  mine.set("c", entry(3));
  assert.equal(one.writeAhead(mine, ["c"]), true);
  assert.equal(await one.changedOnDisk(), false, "its own line written ahead");
  await one.save(mine, [], { changed: false, version: undefined });
  assert.equal(await one.changedOnDisk(), false, "its own sync of that line");

  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  theirs.set("d", entry(4));
  assert.equal(two.writeAhead(theirs, ["d"]), true);
  assert.equal(await one.changedOnDisk(), true, "another's line written ahead");
  mine.set("e", entry(5));
  assert.equal(one.writeAhead(mine, ["e"]), true, "a line of its own after the other's");
  assert.equal(await one.changedOnDisk(), true, "still another's line among them");
  await one.refresh(mine, ["e"]);
  assert.deepEqual(mine.get("d"), entry(4), "taken in");
  assert.deepEqual(mine.get("e"), entry(5), "its own kept");
  assert.equal(await one.changedOnDisk(), false);

  theirs.set("f", entry(6));
  await two.save(theirs, ["f"], { changed: false, version: undefined });
  assert.equal(await one.changedOnDisk(), true, "another's append");
  await one.refresh(mine, []);
  assert.deepEqual(mine.get("f"), entry(6));
  // Twice as many lines as entries: the second save writes a base.
  for (const round of [1, 2]) {
    for (let i = 0; i < 1100; i++) theirs.set(`g${i}`, entry(i + round));
    await two.save(theirs, [...theirs.keys()].filter((p) => p.startsWith("g")), {
      changed: false,
      version: undefined,
    });
  }
  assert.equal(await one.changedOnDisk(), true, "another's base");
  await one.refresh(mine, []);
  assert.deepEqual(mine, theirs, "the other's base taken in (with this one's lines it took in)");
  assert.equal(await one.changedOnDisk(), false);
});

Deno.test("ManifestFiles: a line another process writes ahead while this one writes a base (after its take-in read the log) is in the files after, and in both processes' records", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  // The other process (its pull) writes a record ahead, without the lock,
  // just before this one's base replaces the files.
  let wroteAhead = false;
  let armed = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      if (!armed || wroteAhead) return;
      theirs.set("p", entry(99));
      wroteAhead = two.writeAhead(theirs, ["p"]);
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  // As many lines as entries and more: the second save writes a base.
  const many = () => [...mine.keys()].filter((p) => p.startsWith("g"));
  for (let i = 0; i < 1100; i++) mine.set(`g${i}`, entry(i));
  await one.save(mine, many(), { changed: false, version: undefined });
  await two.refresh(theirs, []);
  for (let i = 0; i < 1100; i++) mine.set(`g${i}`, entry(i + 1));
  armed = true;
  await one.save(mine, many(), { changed: false, version: undefined });
  assert.equal(wroteAhead, true);
  await two.save(theirs, [], { changed: false, version: undefined });
  await two.refresh(theirs, []);
  await one.refresh(mine, []);
  const disk = new Map<string, SyncedEntry>();
  await new ManifestFiles(dir).load(disk);
  assert.deepEqual(disk.get("p"), entry(99), "on disk");
  assert.deepEqual(mine.get("p"), entry(99), "in the base writer's records");
  assert.deepEqual(theirs.get("p"), entry(99), "in the writer's own records");
  assert.deepEqual(disk, mine);
});

Deno.test("ManifestFiles: a line written ahead to a log another process's base replaced between the look and the write (after that process read its last lines) is left to the save, which writes it under that base", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const log = `${dir}/manifest.log`;
  let replaceNow = false;
  const two = new ManifestFiles(dir, {
    // Another process's base lands here: a new log in place, the old one's
    // last lines read before this write (none of them is this one).
    beforeAheadWrite: () => {
      if (!replaceNow) return;
      replaceNow = false;
      Deno.writeTextFileSync(
        `${dir}/manifest.json`,
        '{"format":1,"gen":5,"entries":{},"indexVersion":null}',
      );
      Deno.writeTextFileSync(`${log}.new`, "");
      Deno.renameSync(`${log}.new`, log);
    },
  });
  const theirs = new Map([["a", entry(1)]]);
  await two.load(new Map());
  await two.ensureBase(theirs, undefined);
  theirs.set("b", entry(2));
  assert.equal(two.writeAhead(theirs, ["b"]), true, "the log held open");
  replaceNow = true;
  theirs.set("c", entry(3));
  assert.equal(two.writeAhead(theirs, ["c"]), false, "its line went to the replaced log");
  // The caller leaves c to its save, which takes the other base in first.
  await two.save(theirs, ["c"], { changed: false, version: undefined });
  const disk = new Map<string, SyncedEntry>();
  await new ManifestFiles(dir).load(disk);
  assert.deepEqual(disk.get("c"), entry(3), "written under the other process's base");
});

Deno.test("ManifestFiles: a line written ahead right after another process's line cut off part way between the look and the write is told torn: the save replaces the log with a base, and every record reads back", async () => {
  const { dir, files, mine } = await gluedToTorn();
  assert.equal(files.mustRewrite, true);
  // The caller leaves c to its save.
  await files.save(mine, ["c"], { changed: false, version: undefined });
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read, mine);
});

Deno.test("ManifestFiles: a line written ahead glued to another process's torn line, its writer gone before its save, leaves the manifest readable to the next process, with every whole record", async () => {
  const { dir, files, mine } = await gluedToTorn();
  // The process ends before its save.
  files.release();
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(
    read,
    mine,
    "the base's record, the line before the torn one and the one glued to it",
  );
});

Deno.test("ManifestFiles: the base written after a line glued to a torn one keeps what other processes saved or wrote ahead to that log since its writer last read it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  // A third process's write ahead tears before two's.
  const { files: two, tear } = tearing(dir, "third");
  const one = new ManifestFiles(dir);
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  // One's save, acknowledged, after two read the files.
  mine.set("p", entry(2));
  await one.save(mine, ["p"], { changed: false, version: undefined });
  tear();
  theirs.set("q", entry(3));
  assert.equal(two.writeAhead(theirs, ["q"]), false, "glued to the torn line");
  assert.equal(two.mustRewrite, true);
  // The log ends in a whole line again: one writes ahead after it.
  mine.set("r", entry(4));
  assert.equal(one.writeAhead(mine, ["r"]), true);
  // Two's save replaces the log with a base.
  await two.save(theirs, ["q"], { changed: false, version: undefined });
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read.get("p"), entry(2), "one's save");
  assert.deepEqual(read.get("r"), entry(4), "one's line written ahead");
  assert.deepEqual(read.get("q"), entry(3), "two's own");
  assert.deepEqual(read.get("a"), entry(1));
});

Deno.test("ManifestFiles: a line written ahead to the log held open after another process's base, whose writer ended before it replaced the log, is left to the save, which writes it under that base", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const mine = new Map([["a", entry(1)]]);
  await files.load(new Map());
  await files.ensureBase(mine, undefined);
  mine.set("b", entry(2));
  assert.equal(files.writeAhead(mine, ["b"]), true, "the log held open");
  // Another process's base, over the log it read (b's line in it); that
  // process ends before it replaces the log.
  Deno.writeTextFileSync(
    `${dir}/manifest.json.new`,
    JSON.stringify({
      format: 1,
      gen: 5,
      entries: { a: { h: "h1", v: "v1", s: 1, m: 1 }, b: { h: "h2", v: "v2", s: 2, m: 2 } },
    }),
  );
  Deno.renameSync(`${dir}/manifest.json.new`, `${dir}/manifest.json`);
  mine.set("c", entry(3));
  const wrote = files.writeAhead(mine, ["c"]);
  // The caller leaves c to its save unless it was written ahead.
  await files.save(mine, wrote ? [] : ["c"], { changed: false, version: undefined });
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read.get("c"), entry(3), "on disk");
  assert.deepEqual(mine.get("c"), entry(3), "in the writer's records");
  assert.deepEqual(read, mine);
});

Deno.test("ManifestFiles: a line another process was writing ahead as a base's take-in read the log (its first part there, its end not yet) is in the files after, and in the base writer's records", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const log = `${dir}/manifest.log`;
  const line = `${JSON.stringify({ g: 0, p: "p", e: { h: "h9", v: "v9", s: 9, m: 9 } })}\n`;
  const cut = 20;
  // The other process's write ends after the take-in read its first part.
  let armed = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      if (!armed) return;
      armed = false;
      Deno.writeTextFileSync(log, line.slice(cut), { append: true });
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  // The other process's line, written ahead after a whole line (none here):
  // the take-in reads while only its first part is in the log.
  Deno.writeTextFileSync(log, line.slice(0, cut), { append: true });
  armed = true;
  mine.set("b", entry(2));
  await one.save(mine, ["b"], { changed: false, version: undefined });
  assert.equal(armed, false, "a base was written");
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read.get("p"), entry(9), "on disk");
  assert.deepEqual(mine.get("p"), entry(9), "in the base writer's records");
  assert.deepEqual(read, mine);
});

Deno.test("ManifestFiles: a line another process wrote ahead while this one wrote a base, whose append under that base failed (its disk full), is in the files after this process's next save", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const log = `${dir}/manifest.log`;
  const open = Deno.open;
  // The write of the lines taken in under the new base (the log that
  // replaces the one read) fails: no space left.
  let failed = false;
  const fullDisk = () => {
    Deno.open = ((path: string | URL, options?: Deno.OpenOptions) => {
      if (String(path).startsWith(log) && (options?.append || options?.createNew)) {
        failed = true;
        return Promise.reject(new Error("No space left on device (os error 28)"));
      }
      return open(path, options);
    }) as typeof Deno.open;
  };
  let armed = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      if (!armed) return;
      armed = false;
      theirs.set("p", entry(99));
      assert.equal(two.writeAhead(theirs, ["p"]), true);
      fullDisk();
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  // As many lines as entries and more: the second save writes a base.
  const many = () => [...mine.keys()].filter((k) => k.startsWith("g"));
  for (let i = 0; i < 1100; i++) mine.set(`g${i}`, entry(i));
  await one.save(mine, many(), { changed: false, version: undefined });
  await two.refresh(theirs, []);
  for (let i = 0; i < 1100; i++) mine.set(`g${i}`, entry(i + 1));
  armed = true;
  try {
    await one.save(mine, many(), { changed: false, version: undefined });
  } catch {
    // The disk was full: the caller saves again.
  } finally {
    Deno.open = open;
  }
  assert.equal(armed, false, "a base was written");
  assert.equal(failed, true, "the write of the lines taken in failed");
  await one.save(mine, [], { changed: false, version: undefined });
  const disk = new Map<string, SyncedEntry>();
  await new ManifestFiles(dir).load(disk);
  assert.deepEqual(disk.get("p"), entry(99), "on disk");
  assert.deepEqual(mine.get("p"), entry(99), "in the base writer's records");
  await two.save(theirs, [], { changed: false, version: undefined });
  await two.refresh(theirs, []);
  assert.deepEqual(theirs.get("p"), entry(99), "in the writer's own records");
});
