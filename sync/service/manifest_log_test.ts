import assert from "node:assert/strict";
import {
  baseText,
  logLines,
  maxLogGen,
  readBase,
  replayLog,
  type SyncedEntry,
} from "./manifest_log.ts";

const e = (v: string): SyncedEntry => ({ hash: "h", version: v, size: 1, mtimeMs: 5 });

Deno.test("manifest: a base and its log read back as written; a torn last line is reported, older lines skipped", () => {
  const m = new Map([["a", e("1")], ["b", e("1")]]);
  const read = new Map<string, SyncedEntry>();
  assert.deepEqual(readBase(baseText(m, 2, "t1"), read), { gen: 2, indexVersion: "t1" });
  assert.deepEqual(read, m);
  m.set("a", e("2"));
  m.delete("b");
  const old = logLines(new Map([["c", e("9")]]), 1, ["c"]).join("\n");
  const lines = logLines(m, 2, ["a", "b"], { version: "t2" });
  const r = replayLog(`${old}\n${lines.join("\n")}\n{"g":2,"p":"x"`, 2, read);
  assert.deepEqual(r, {
    applied: 3,
    torn: true,
    glued: false,
    damaged: [],
    index: { version: "t2" },
  });
  assert.deepEqual(read, m);
  // A line cut off part way, a whole line glued on after it: that line is read.
  const glued = replayLog(`${lines[0]}\n{"g":2,"p":"x","e":{"h${lines[1]}\n`, 2, read);
  assert.deepEqual(glued, {
    applied: 2,
    torn: false,
    glued: true,
    damaged: [],
    index: undefined,
  });
  assert.deepEqual(read, m);
  // A damaged line (not the last) is passed over, its number reported.
  assert.deepEqual(replayLog(`{"g":2,"p":"x"}garbage\n`, 2, read).damaged, [1]);
  assert.equal(maxLogGen(`${old}\n${lines[0]}\nnot json`), 2);
  const damaged = replayLog(
    `not json\n${lines[0]}\n{"g":2}\n{"g":2,"p":"a","e":{"h":1}}\n`,
    2,
    read,
  );
  assert.deepEqual(damaged.damaged, [1, 3, 4]);
  assert.equal(damaged.applied, 1);
  assert.deepEqual(read, m);
  assert.throws(() => replayLog(`${lines[0]}\n`, 1, read), /newer than its base/);
  assert.throws(() => readBase('{"format":2,"entries":{}}', read), /unknown format/);
});

Deno.test("manifest: a record made without an mtime (a racy one) reads back without one, as it was made", () => {
  const m = new Map<string, SyncedEntry>([["a", { hash: "h", version: "1", size: 1 }]]);
  const read = new Map<string, SyncedEntry>();
  readBase(baseText(m, 1, undefined), read);
  assert.deepEqual(read, m);
  assert.ok(!Object.hasOwn(read.get("a")!, "mtimeMs"));
  const log = new Map<string, SyncedEntry>();
  replayLog(`${logLines(m, 1, ["a"]).join("\n")}\n`, 1, log);
  assert.ok(!Object.hasOwn(log.get("a")!, "mtimeMs"));
});
