/**
 * The records streamed downloads keep of their temporary files: written in
 * the state directory under a name of their own, whatever the path they
 * name, read back by another process's, and never by the process whose
 * download is under way.
 */
import assert from "node:assert/strict";
import { TEMP_RECORDS_DIR, TempRecords } from "./temp_records.ts";

const present = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test("a record names its path in its body, under a name of its own in the state directory; another process reads it back, its own does not", async () => {
  const stateDir = `${await Deno.makeTempDir()}/.sluice`;
  const mine = new TempRecords(stateDir);
  const odd = '../a b/"quoted"\n\\é.bin.sluice-0a1b2c3d4e.tmp';
  const drop = await mine.record(odd);
  const names = [...Deno.readDirSync(`${stateDir}/${TEMP_RECORDS_DIR}`)].map((e) => e.name);
  assert.equal(names.length, 1);
  assert.match(names[0], /^[0-9a-f]+\.json$/);
  assert.deepEqual(await mine.list(), [], "this process's download is under way");
  const theirs = await new TempRecords(stateDir).list();
  assert.equal(theirs.length, 1);
  assert.equal(theirs[0].path, odd);
  assert.equal(theirs[0].name, names[0]);
  await drop();
  assert.deepEqual(await new TempRecords(stateDir).list(), []);
});

Deno.test("no records: a list makes no directory; a record cut short is read as naming nothing", async () => {
  const stateDir = `${await Deno.makeTempDir()}/.sluice`;
  const records = new TempRecords(stateDir);
  assert.deepEqual(await records.list(), []);
  assert.equal(await present(stateDir), false);
  await Deno.mkdir(`${stateDir}/${TEMP_RECORDS_DIR}`, { recursive: true });
  await Deno.writeTextFile(`${stateDir}/${TEMP_RECORDS_DIR}/0a1b2c3d4e5f6a7b.json`, '{"pa');
  await Deno.writeTextFile(`${stateDir}/${TEMP_RECORDS_DIR}/notes.txt`, "not a record");
  const got = await records.list();
  assert.deepEqual(got.map((r) => [r.name, r.path]), [["0a1b2c3d4e5f6a7b.json", null]]);
  await records.drop("../notes.txt"); // not a record's name: nothing removed
  await records.drop("0a1b2c3d4e5f6a7b.json");
  assert.deepEqual(await records.list(), []);
  assert.equal(await present(`${stateDir}/${TEMP_RECORDS_DIR}/notes.txt`), true);
});
