import assert from "node:assert/strict";
import { BLOCKED_FILE, BlockedRecord } from "./blocked_record.ts";

Deno.test("the blocked record is kept between processes, replaced by each whole pull, and removed when empty", async () => {
  const dir = await Deno.makeTempDir();
  const r = await BlockedRecord.open(dir);
  assert.deepEqual(r.paths(), []);
  await r.update(["notes/a/b.txt", "data/x"]);
  assert.deepEqual((await BlockedRecord.open(dir)).paths(), ["data/x", "notes/a/b.txt"]);
  // A pull of some paths replaces only what lies under them.
  await r.update(["notes/c"], ["notes"]);
  assert.deepEqual((await BlockedRecord.open(dir)).paths(), ["data/x", "notes/c"]);
  await r.update([]);
  assert.deepEqual(r.paths(), []);
  await assert.rejects(Deno.lstat(`${dir}/${BLOCKED_FILE}`), Deno.errors.NotFound);
});

Deno.test("an unreadable blocked record is taken as empty (the next pull finds the paths again)", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/${BLOCKED_FILE}`, "{not json");
  assert.deepEqual((await BlockedRecord.open(dir)).paths(), []);
  await Deno.writeTextFile(`${dir}/${BLOCKED_FILE}`, JSON.stringify({ format: 9, paths: ["a"] }));
  assert.deepEqual((await BlockedRecord.open(dir)).paths(), []);
});

Deno.test("clashOf names the recorded path of the other shape: under the path, or a file above it; a shape this cache synced is none", async () => {
  const r = await BlockedRecord.open(await Deno.makeTempDir());
  await r.update(["notes/clash/f.txt", "logs/old"]);
  assert.equal(r.clashOf("notes/clash"), "notes/clash/f.txt");
  assert.equal(r.clashOf("notes"), "notes/clash/f.txt");
  assert.equal(r.clashOf("logs/old/new.txt"), "logs/old");
  assert.equal(r.clashOf("notes/clash2"), undefined);
  assert.equal(r.clashOf("notes/clash/f.txt"), undefined, "the path itself is no other shape");
  assert.equal(r.clashOf("notes/other.txt"), undefined);
  // A replacement of a shape this cache synced is the push's own (it deletes that shape).
  const synced = (p: string) => p === "notes/clash" || p === "logs/old";
  assert.equal(r.clashOf("notes/clash", synced), undefined);
  assert.equal(r.clashOf("logs/old/new.txt", synced), undefined);
});
