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
