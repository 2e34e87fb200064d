/**
 * A streamed download's record of its temporary file: there while the file
 * is written, naming it (cache-relative), and gone once the file is renamed
 * into place or removed.
 */
import assert from "node:assert/strict";
import { LocalCache } from "./cache.ts";
import { TempRecords } from "./temp_records.ts";
import { waitFor } from "../../packages/testing/mod.ts";
import { sha256Hex } from "../hash.ts";

const enc = new TextEncoder();

function controlled() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  return { stream, ctl };
}

Deno.test("a streamed download records its temporary file while it writes it, and drops the record once the file is in place", async () => {
  const dir = await Deno.makeTempDir();
  const cache = new LocalCache(dir);
  const other = new TempRecords(cache.stateDir); // another process's view
  const { stream, ctl } = controlled();
  const body = enc.encode("0123456789");
  let written = 0;
  const done = cache.writeStream("data/big.bin", stream, {
    size: body.length,
    sha256: await sha256Hex(body),
  }, (n) => void (written = n));
  ctl.enqueue(body.subarray(0, 4));
  await waitFor(() => written === 4);
  const seen = await other.list();
  assert.equal(seen.length, 1);
  assert.match(seen[0].path ?? "", /^data\/big\.bin\.sluice-[0-9a-f]+\.tmp$/);
  assert.equal((await Deno.readFile(`${dir}/${seen[0].path}`)).length, 4);
  assert.deepEqual(await cache.tempRecords.list(), [], "its own download: not read back");
  ctl.enqueue(body.subarray(4));
  ctl.close();
  await done;
  assert.equal(await Deno.readTextFile(`${dir}/data/big.bin`), "0123456789");
  assert.deepEqual(await other.list(), []);
});

Deno.test("a streamed download that fails drops its record with its temporary file", async () => {
  const dir = await Deno.makeTempDir();
  const cache = new LocalCache(dir);
  const { stream, ctl } = controlled();
  const done = cache.writeStream("big.bin", stream, { size: 10 });
  ctl.enqueue(enc.encode("short"));
  ctl.close();
  await assert.rejects(done, /does not match the remote index/);
  assert.deepEqual(
    [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== ".sluice"),
    [],
  );
  assert.deepEqual(await new TempRecords(cache.stateDir).list(), []);
});
