import assert from "node:assert/strict";
import { keptCopies, parseRecords, sameRecord } from "./conflict_file.ts";

const H = (c: string) => c.repeat(64);

const rec = (path: string, keptAside?: unknown) => ({
  path,
  mine: { location: path, hash: H("a"), size: 1 },
  theirs: { version: "v2", hash: H("b"), size: 2 },
  foundBy: "pull",
  at: 1,
  reason: "both changed",
  ...(keptAside === undefined ? {} : { keptAside }),
});

Deno.test("conflict file: records keyed by their own path, a malformed list of earlier copies dropped and not the record", () => {
  const good = { location: ".sluice/set-aside/x/a", hash: H("c"), size: 3 };
  const text = JSON.stringify({
    format: 1,
    conflicts: {
      a: rec("a", [good, { location: 7 }]),
      b: rec("b", "not a list"),
      c: rec("elsewhere"),
    },
  });
  const out = parseRecords(text);
  assert.deepEqual([...out.keys()], ["a", "b"]);
  assert.deepEqual(out.get("a")?.keptAside, [good]);
  assert.equal("keptAside" in out.get("b")!, false);
  assert.throws(() => parseRecords(JSON.stringify({ format: 2, conflicts: {} })), /unknown format/);
  assert.throws(() => parseRecords("{"));
});

Deno.test("conflict file: records compare by their saved form; keptCopies keeps only well-formed copies", () => {
  const a = parseRecords(JSON.stringify({ format: 1, conflicts: { a: rec("a") } })).get("a");
  assert.ok(sameRecord(a, { ...a! }));
  assert.ok(sameRecord(undefined, undefined));
  assert.ok(!sameRecord(a, undefined));
  assert.ok(!sameRecord(a, { ...a!, at: 2 }));
  assert.deepEqual(keptCopies(undefined), []);
  assert.deepEqual(keptCopies([{ location: "x", hash: "h", size: "1" }]), []);
  assert.deepEqual(keptCopies([{ location: "x", hash: "h", size: 1 }]), [
    { location: "x", hash: "h", size: 1 },
  ]);
});
