import assert from "node:assert/strict";
import { baseText, logLines, type SyncedEntry } from "./manifest_log.ts";
import { MANIFEST_FILE, MANIFEST_LOG } from "./manifest_disk.ts";
import { newManifestState } from "./manifest_state.ts";
import { takeIn } from "./manifest_take_in.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

Deno.test("take-in: without a base nothing is taken in; with one, its log is applied under this process's own records, and what was read is kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const s = newManifestState(dir);
  const mine = new Map([["a", entry(1)]]);
  assert.equal(await takeIn(s, mine, new Set(["a"])), undefined);
  assert.deepEqual([...mine], [["a", entry(1)]], "unchanged");
  assert.equal(s.hasBase, false);
  assert.equal(s.rewrite, false);

  // Another process's base (b, c) and a line of its log (d).
  const theirs = new Map([["b", entry(2)], ["c", entry(3)], ["d", entry(4)]]);
  await Deno.writeTextFile(
    `${dir}/${MANIFEST_FILE}`,
    baseText(new Map([...theirs].slice(0, 2)), 4, "i"),
  );
  const line = `${logLines(theirs, 4, ["d"]).join("\n")}\n`;
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, line);
  mine.set("c", entry(30));
  mine.set("x", entry(5));
  const again = await takeIn(s, mine, new Set(["c"]));
  assert.deepEqual(again?.sort(), ["c"]);
  assert.deepEqual(mine.get("b"), entry(2));
  assert.deepEqual(mine.get("c"), entry(30), "its own record over theirs");
  assert.deepEqual(mine.get("d"), entry(4));
  assert.equal(mine.has("a"), false, "not unsaved: not kept");
  assert.equal(mine.has("x"), false);
  assert.equal(s.gen, 4);
  assert.equal(s.hasBase, true);
  assert.equal(s.logLines, 1);
  assert.equal(s.rewrite, false);
  assert.equal(typeof s.baseStamp, "string");
  assert.equal(s.readThrough?.size, new TextEncoder().encode(line).length);

  // A torn last line: taken in up to it, the next save writes a base.
  await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, '{"g":4,"p":"e","e":{"h', { append: true });
  assert.deepEqual(await takeIn(s, mine, new Set()), []);
  assert.equal(s.rewrite, true);
  assert.equal(
    s.readThrough?.size,
    new TextEncoder().encode(line).length,
    "up to the last whole line",
  );
});

Deno.test("take-in: a readable base whose log cannot be read takes nothing in, and the next save writes a base", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  await Deno.writeTextFile(
    `${dir}/${MANIFEST_FILE}`,
    baseText(new Map([["b", entry(2)]]), 0, undefined),
  );
  await Deno.mkdir(`${dir}/${MANIFEST_LOG}`);
  const s = newManifestState(dir);
  const mine = new Map([["a", entry(1)]]);
  assert.equal(await takeIn(s, mine, new Set(["a"])), undefined);
  assert.deepEqual([...mine], [["a", entry(1)]]);
  assert.equal(s.rewrite, true);
  assert.equal(s.hasBase, false);
});
