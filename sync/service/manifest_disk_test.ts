import assert from "node:assert/strict";
import { filesSignature, logMaxGen, logTorn, MANIFEST_LOG, readLog } from "./manifest_disk.ts";

Deno.test("manifest disk: no files read as absent; an append moves the signature; a last line without its newline is torn", async () => {
  const dir = await Deno.makeTempDir();
  assert.equal(await filesSignature(dir), "-/-");
  assert.equal(await readLog(dir), undefined);
  assert.equal(await logTorn(dir), false);
  assert.equal(await logMaxGen(dir), -1);
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, '{"g":3,"p":"a","e":null}\n');
  const once = await filesSignature(dir);
  assert.notEqual(once, "-/-");
  assert.equal(await logTorn(dir), false);
  assert.equal(await logMaxGen(dir), 3);
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, '{"g":4,"p":"b', { append: true });
  assert.notEqual(await filesSignature(dir), once, "an append is seen");
  assert.equal(await logTorn(dir), true);
});

Deno.test("manifest disk: a log that is a symbolic link is never read", async () => {
  const dir = await Deno.makeTempDir();
  const elsewhere = await Deno.makeTempFile();
  await Deno.symlink(elsewhere, `${dir}/${MANIFEST_LOG}`);
  await assert.rejects(readLog(dir), /symbolic link/);
});
