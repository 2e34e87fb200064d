import assert from "node:assert/strict";
import { baseText, logLines, readBase, type SyncedEntry } from "./manifest_log.ts";
import { filesSnapshot, MANIFEST_FILE, MANIFEST_LOG } from "./manifest_disk.ts";
import { newManifestState } from "./manifest_state.ts";
import { takeIn } from "./manifest_take_in.ts";
import { writeBase } from "./manifest_base.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

Deno.test("base writer: a base numbered past every generation on disk, the log emptied, the files then this process's own", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  // A line of generation 6 with no readable base.
  await Deno.writeTextFile(
    `${dir}/${MANIFEST_LOG}`,
    `${logLines(new Map([["z", entry(9)]]), 6, ["z"])}\n`,
  );
  const s = newManifestState(dir);
  s.rewrite = true;
  const mine = new Map([["a", entry(1)]]);
  await writeBase(s, mine, "i1");
  const base = new Map<string, SyncedEntry>();
  const read = readBase(await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`), base);
  assert.deepEqual(read, { gen: 7, indexVersion: "i1" });
  assert.deepEqual(base, mine);
  assert.equal(await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`), "");
  assert.equal(s.gen, 7);
  assert.equal(s.hasBase, true);
  assert.equal(s.emptyBase, false);
  assert.equal(s.logLines, 0);
  assert.equal(s.rewrite, false);
  assert.equal(s.seen.matches(await filesSnapshot(dir)), true);
});

Deno.test("base writer: lines another process wrote ahead after the take-in read the log are taken in, except this process's own paths, and written again under the new base", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const theirs = new Map([["b", entry(2)], ["c", entry(3)], ["own", entry(4)]]);
  await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, baseText(new Map(), 0, undefined));
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, `${logLines(theirs, 0, ["b"])}\n`);
  const s = newManifestState(dir, {
    // Written ahead by the other process after the read, before the base.
    beforeBase: () =>
      Deno.writeTextFileSync(
        `${dir}/${MANIFEST_LOG}`,
        `${logLines(theirs, 0, ["c", "own"]).join("\n")}\n`,
        {
          append: true,
        },
      ),
  });
  const mine = new Map([["own", entry(40)]]);
  const own = new Set(["own"]);
  await takeIn(s, mine, own);
  await writeBase(s, mine, undefined, own);
  assert.deepEqual(mine.get("b"), entry(2));
  assert.deepEqual(mine.get("c"), entry(3), "taken in");
  assert.deepEqual(mine.get("own"), entry(40), "its own record stands");
  assert.equal(s.gen, 1);
  assert.equal(s.logLines, 1);
  const log = await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`);
  assert.equal(log, `${logLines(mine, 1, ["c"]).join("\n")}\n`, "written again under the new base");
  assert.equal(s.lateUnsaved.size, 0);
});
