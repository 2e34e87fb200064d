import assert from "node:assert/strict";
import { logLines, type SyncedEntry } from "./manifest_log.ts";
import {
  diskGen,
  endsLine,
  filesSnapshot,
  lateLines,
  logMaxGen,
  logTorn,
  MANIFEST_FILE,
  MANIFEST_LOG,
  openLogIfSame,
  readLog,
  SeenFiles,
} from "./manifest_disk.ts";

Deno.test("manifest disk: no files read as absent; an append grows the log; a last line without its newline is torn", async () => {
  const dir = await Deno.makeTempDir();
  assert.deepEqual(await filesSnapshot(dir), { base: "-", log: null });
  assert.equal(await readLog(dir), undefined);
  assert.equal(await logTorn(dir), false);
  assert.equal(await logMaxGen(dir), -1);
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, '{"g":3,"p":"a","e":null}\n');
  const once = await filesSnapshot(dir);
  assert.equal(once.log?.size, 25);
  assert.equal(await logTorn(dir), false);
  assert.equal(await logMaxGen(dir), 3);
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, '{"g":4,"p":"b', { append: true });
  assert.equal((await filesSnapshot(dir)).log?.size, 25 + 13, "an append is seen");
  assert.equal(await logTorn(dir), true);
});

Deno.test("manifest disk: a log that is a symbolic link is never read", async () => {
  const dir = await Deno.makeTempDir();
  const elsewhere = await Deno.makeTempFile();
  await Deno.symlink(elsewhere, `${dir}/${MANIFEST_LOG}`);
  await assert.rejects(readLog(dir), /symbolic link/);
});

Deno.test("manifest disk: what was seen matches the files with this process's appends since, and no other change", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/${MANIFEST_LOG}`;
  const seen = new SeenFiles();
  assert.equal(seen.matches(await filesSnapshot(dir)), false, "nothing seen yet");
  seen.take(await filesSnapshot(dir));
  assert.equal(seen.matches(await filesSnapshot(dir)), true);
  await Deno.writeTextFile(log, "x\n");
  assert.equal(seen.matches(await filesSnapshot(dir)), false, "a log made since");
  seen.take(await filesSnapshot(dir));
  const ino = (await filesSnapshot(dir)).log?.ino;
  await Deno.writeTextFile(log, "yy\n", { append: true });
  seen.appended(ino, 3);
  assert.equal(seen.matches(await filesSnapshot(dir)), true, "its own append");
  await Deno.writeTextFile(log, "z\n", { append: true });
  assert.equal(seen.matches(await filesSnapshot(dir)), false, "another's append");
  seen.take(await filesSnapshot(dir));
  await Deno.writeTextFile(`${log}.new`, "x\nyy\nz\n");
  await Deno.rename(`${log}.new`, log);
  assert.equal(seen.matches(await filesSnapshot(dir)), false, "a log replaced, of the same size");
  seen.take(await filesSnapshot(dir));
  await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, "{}");
  assert.equal(seen.matches(await filesSnapshot(dir)), false, "a base written");
  seen.take(await filesSnapshot(dir));
  seen.appended(12345, 1);
  assert.equal(
    seen.matches(await filesSnapshot(dir)),
    false,
    "an append to another log: forgotten",
  );
});

Deno.test("manifest disk: a log opened only while it is the one read; the lines written past what was read, of its generation, taken in but this process's own", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/${MANIFEST_LOG}`;
  assert.equal(await diskGen(dir), undefined);
  await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, '{"format":1,"gen":7,"entries":{}}');
  assert.equal(await diskGen(dir), 7);
  const e = (n: number): SyncedEntry => ({ hash: `h${n}`, version: `v${n}`, size: n });
  const line = (p: string, n: number, gen = 7) =>
    `${logLines(new Map([[p, e(n)]]), gen, [p])[0]}\n`;
  await Deno.writeTextFile(log, line("a", 1));
  const read = (await Deno.stat(log)).size;
  const ino = (await Deno.stat(log)).ino;
  assert.equal(await openLogIfSame(dir, 12345), undefined, "another log than the one read");
  const f = await openLogIfSame(dir, ino);
  assert.ok(f);
  try {
    assert.equal(endsLine(f, read), true);
    await Deno.writeTextFile(
      log,
      line("b", 2) + line("mine", 3) + line("c", 4, 6) + '{"g":7,"p":"d"',
      {
        append: true,
      },
    );
    assert.equal(endsLine(f, (await Deno.stat(log)).size), false, "a torn last line");
    const manifest = new Map<string, SyncedEntry>([["mine", e(9)]]);
    const late = await lateLines(f, read, 7, manifest, new Set(["mine"]));
    assert.deepEqual(
      late,
      ["b"],
      "another generation's line, this process's own path and a torn line left out",
    );
    assert.deepEqual(manifest.get("b"), e(2));
    assert.deepEqual(manifest.get("mine"), e(9), "this process's record stands");
  } finally {
    f.close();
  }
});
