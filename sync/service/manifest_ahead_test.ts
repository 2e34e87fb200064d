import assert from "node:assert/strict";
import { AheadLog } from "./manifest_ahead.ts";
import { filesSnapshot, MANIFEST_LOG, SeenFiles } from "./manifest_disk.ts";

const line = (s: string) => new TextEncoder().encode(`${s}\n`);

Deno.test("ahead log: writes to the log it holds open and tells them as its own; a log replaced, before the write or since, or ending in a torn line, is told", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/${MANIFEST_LOG}`;
  const seen = new SeenFiles();
  seen.take(await filesSnapshot(dir));
  const ahead = new AheadLog(dir);
  assert.equal(ahead.write(line("a"), seen), "written");
  assert.equal(ahead.created, true);
  assert.equal(ahead.unsynced, true);
  seen.take(await filesSnapshot(dir));
  assert.equal(ahead.write(line("b"), seen), "written");
  assert.equal(seen.matches(await filesSnapshot(dir)), true, "its own bytes");
  await ahead.sync();
  assert.equal(ahead.unsynced, false);
  assert.equal(await Deno.readTextFile(log), "a\nb\n");

  // Another process's base replaced the log since the last write.
  assert.equal(ahead.write(line("c"), seen), "written");
  await Deno.writeTextFile(`${log}.new`, "");
  await Deno.rename(`${log}.new`, log);
  assert.equal(ahead.write(line("d"), seen), "replaced");
  assert.equal(await Deno.readTextFile(log), "", "nothing written to the log in place");

  // Replaced between its look and its write.
  const racing = new AheadLog(dir);
  const replaced = racing.write(line("e"), seen, () => {
    Deno.writeTextFileSync(`${log}.new`, "");
    Deno.renameSync(`${log}.new`, log);
  });
  assert.equal(replaced, "replaced");

  // Another process's line cut off part way.
  await Deno.writeTextFile(log, '{"g":1', { append: true });
  const torn = new AheadLog(dir);
  assert.equal(torn.write(line("f"), seen), "torn");
  assert.equal(await Deno.readTextFile(log), '{"g":1', "nothing written after it");
  for (const a of [ahead, racing, torn]) a.release();
});

Deno.test("ahead log: after its own write, another process's torn line is still found before the next write, and a whole line appended between the look and the write is not taken for a torn one", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/${MANIFEST_LOG}`;
  const seen = new SeenFiles();
  seen.take(await filesSnapshot(dir));
  const ahead = new AheadLog(dir);
  assert.equal(ahead.write(line("a"), seen), "written");
  // Another process's whole line, appended between the look and the write.
  const between = () => Deno.writeTextFileSync(log, "x\n", { append: true });
  assert.equal(ahead.write(line("b"), seen, between), "written");
  assert.equal(ahead.write(line("c"), seen), "written", "after another's whole line");
  assert.equal(await Deno.readTextFile(log), "a\nx\nb\nc\n");
  // Another process's line cut off part way, after this one's own write.
  await Deno.writeTextFile(log, '{"g":1', { append: true });
  assert.equal(ahead.write(line("d"), seen), "torn");
  assert.equal(await Deno.readTextFile(log), 'a\nx\nb\nc\n{"g":1', "nothing written after it");
  ahead.release();

  // Cut off part way between the look and the write: the line is told glued.
  const dir2 = await Deno.makeTempDir();
  const log2 = `${dir2}/${MANIFEST_LOG}`;
  const glued = new AheadLog(dir2);
  assert.equal(glued.write(line("a"), seen), "written");
  const tear = () => Deno.writeTextFileSync(log2, '{"g":1', { append: true });
  assert.equal(glued.write(line("b"), seen, tear), "torn");
  glued.release();
});
