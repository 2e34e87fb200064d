/**
 * A cache that is only ever pulled (a reader's clone) and the temporary file
 * a pull killed part way left there: a later pull removes it once it is an
 * hour old, and says so. A pull walks no cache: the streamed download that
 * wrote the file recorded it in the state directory before it made it
 * (`temp_records.ts`), and a download killed part way leaves that record
 * too, by which the pull finds the file.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore, writeAndMark } from "../../packages/testing/mod.ts";
import { LEFT_TEMP_AGE_MS } from "./left_temps.ts";
import { TEMP_RECORDS_DIR, TempRecords } from "../transfer/temp_records.ts";

const LEFT = "notes/big.bin.sluice-d1911a984514.tmp";

/** A writer that pushed notes/big.bin (v1), and a reader cache that pulled it. */
async function writerAndReader() {
  const store = new InMemoryStore();
  const writer = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-writer-" }),
    store,
    identity: { holder: "w@host", hostname: "host", pid: 1 },
  });
  await writeAndMark(writer, "notes/big.bin", "v1");
  await writer.pushChanged();
  const readerDir = await Deno.makeTempDir({ prefix: "sluice-reader-" });
  const reader = await createSluice({
    cacheDir: readerDir,
    store,
    identity: { holder: "r@host", hostname: "host", pid: 2 },
  });
  await reader.pullChanged();
  return { store, writer, reader, readerDir };
}

Deno.test({
  name:
    "a pull-only cache: a temporary file a killed pull left, hours old, is removed (or told of) by a later pull",
  fn: async () => {
    const { writer, reader, readerDir } = await writerAndReader();
    // A pull of the next version killed part way left its download there,
    // two hours ago, with the record its download wrote first (another
    // process's: that pull's).
    await new TempRecords(reader.cache.stateDir).record(LEFT);
    await Deno.writeTextFile(`${readerDir}/${LEFT}`, "half a dow");
    const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
    await Deno.utime(`${readerDir}/${LEFT}`, hoursAgo, hoursAgo);
    const warnings: string[] = [];
    reader.events.on("warning", (w) => void warnings.push(w.code));

    await writeAndMark(writer, "notes/big.bin", "v2");
    await writer.pushChanged();
    const r = await reader.pullChanged();
    assert.deepEqual(r.fetched, ["notes/big.bin"]);
    assert.equal(await Deno.readTextFile(`${readerDir}/notes/big.bin`), "v2");
    const left = await Deno.lstat(`${readerDir}/${LEFT}`).then(() => true, () => false);
    assert.ok(
      !left || warnings.includes("temp_files_left"),
      `${LEFT} is still in the cache and the pull said nothing of it (warnings: ${
        warnings.join(", ")
      })`,
    );
  },
});

Deno.test("a pull with nothing new clears an hour-old temporary file a killed download recorded; with none recorded it reads one directory and makes none", async () => {
  const { reader, readerDir } = await writerAndReader();
  assert.ok((await reader.pullChanged()).unchanged);
  const records = `${reader.cache.stateDir}/${TEMP_RECORDS_DIR}`;
  assert.equal(await Deno.lstat(records).then(() => true, () => false), false);

  await new TempRecords(reader.cache.stateDir).record(LEFT);
  await Deno.writeTextFile(`${readerDir}/${LEFT}`, "half a dow");
  const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
  await Deno.utime(`${readerDir}/${LEFT}`, hoursAgo, hoursAgo);
  const warnings: string[] = [];
  reader.events.on("warning", (w) => void warnings.push(w.message));
  const r = await reader.pullChanged();
  assert.ok(r.unchanged);
  assert.equal(await Deno.lstat(`${readerDir}/${LEFT}`).then(() => true, () => false), false);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /Removed 1 temporary file .*big\.bin\.sluice-d1911a984514\.tmp/);
  assert.deepEqual([...Deno.readDirSync(records)], [], "its record dropped");
});

Deno.test("two processes over one cache: a pull leaves the temporary file of the other's download under way, and tells of it", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-shared-" });
  const one = await createSluice({
    cacheDir,
    store,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
  });
  await writeAndMark(one, "notes/a.txt", "a");
  await one.pushChanged();
  // The other process's download, under way: its record (live there), its file being written.
  const other = new TempRecords(one.cache.stateDir);
  const drop = await other.record(LEFT);
  await Deno.writeTextFile(`${cacheDir}/${LEFT}`, "half a dow");
  const warnings: string[] = [];
  one.events.on("warning", (w) => void warnings.push(w.message));
  await one.pullChanged();
  assert.equal(await Deno.readTextFile(`${cacheDir}/${LEFT}`), "half a dow");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /Left 1 temporary file written to within the hour .*big\.bin/);
  await drop();
});
