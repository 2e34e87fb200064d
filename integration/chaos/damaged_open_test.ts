import assert from "node:assert/strict";
import { damagedLineOnDisk } from "./damaged_open.ts";
import { MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import { findStateDir } from "../../sync/transfer/cache.ts";

/** A cache whose manifest log holds `text`. */
async function cacheWithLog(text: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-damaged-open-" });
  const state = findStateDir(dir);
  await Deno.mkdir(state, { recursive: true });
  await Deno.writeTextFile(`${state}/${MANIFEST_LOG}`, text);
  return dir;
}

const line = (p: string) => JSON.stringify({ g: 2, p, e: { h: "00", v: "v1", s: 1, c: 0 } });

Deno.test("damagedLineOnDisk: a garbage line in the middle of the log is on disk, a readable one is not", async () => {
  const dir = await cacheWithLog(`${line("a")}\n${"\u0000".repeat(9)}\n${line("b")}\n`);
  try {
    assert.equal(damagedLineOnDisk(dir, 2), true);
    assert.equal(damagedLineOnDisk(dir, 1), false);
    assert.equal(damagedLineOnDisk(dir, 3), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("damagedLineOnDisk: a log of four whole lines has no fifth line, damaged or not (nothing after its last newline)", async () => {
  // A base written over the damaged line, then four records appended: the
  // line number the damage had is one past the log's last line.
  const dir = await cacheWithLog(["a", "b", "c", "d"].map((p) => `${line(p)}\n`).join(""));
  try {
    assert.equal(damagedLineOnDisk(dir, 5), false);
    assert.equal(damagedLineOnDisk(dir, 6), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
