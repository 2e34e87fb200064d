import assert from "node:assert/strict";
import {
  emptyPushResult,
  mergeCommitResult,
  mergeSecondPass,
  noteUnpublished,
  unpublishedIn,
} from "./push_result.ts";

Deno.test("a two-phase push's result: a write another writer overwrote before the commit leaves uploaded", () => {
  const prepared = emptyPushResult();
  prepared.uploaded.push("a", "b");
  prepared.localDeletions.push("gone");
  prepared.bytes = 10;
  const done = emptyPushResult();
  done.uploaded.push("marker");
  done.overwritten.push("b");
  done.conflicts.push("b");
  const r = mergeCommitResult(prepared, done);
  assert.deepEqual(r.uploaded, ["a", "marker"]);
  assert.deepEqual(r.overwritten, ["b"]);
  assert.deepEqual(r.conflicts, ["b"]);
  assert.deepEqual(r.localDeletions, ["gone"], "the preparation's walk stands");
  assert.equal(r.bytes, 10);
});

Deno.test("files found in place and gone by the commit, and the marker held back with them: out of what was written, kept dirty, named in the warning", () => {
  const r = emptyPushResult();
  const FILE = "data/t/m/d/2/raw";
  const MARKER = "data/t/m/d/latest";
  r.identical.push(FILE, "notes/a.txt");
  r.uploaded.push(MARKER);
  const w = noteUnpublished(r, [FILE, MARKER])!;
  assert.equal(w.code, "unpublished_before_commit");
  assert.match(w.message, /data\/t\/m\/d\/latest, naming that version, was held back with them/);
  assert.match(w.message, /run `sluice push` again/);
  assert.deepEqual(r.identical, ["notes/a.txt"]);
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(unpublishedIn(r).sort(), [FILE, MARKER]);
  assert.ok(r.skipped.every((s) => s.keepDirty));
});

Deno.test("a marker held back alone (its version's files held back by another rule) is warned of by name, never with an empty list", () => {
  const r = emptyPushResult();
  const MARKER = "data/t/m/d/latest";
  r.uploaded.push(MARKER);
  const w = noteUnpublished(r, [MARKER])!;
  assert.match(w.message, /^data\/t\/m\/d\/latest was not published: it names a data version/);
  assert.doesNotMatch(w.message, /deleted before/);
  assert.equal(w.path, MARKER);
});

Deno.test("a second pass's result replaces what the first left out, and adds to the rest", () => {
  const first = emptyPushResult();
  first.uploaded.push("a");
  first.skipped.push({ path: "b", reason: "gone", keepDirty: true }, {
    path: "c",
    reason: "other",
    keepDirty: true,
  });
  first.bytes = 3;
  const second = emptyPushResult();
  second.uploaded.push("b");
  second.bytes = 4;
  const r = mergeSecondPass(first, second, ["b"]);
  assert.deepEqual(r.uploaded, ["a", "b"]);
  assert.deepEqual(r.skipped.map((s) => s.path), ["c"]);
  assert.equal(r.bytes, 7);
});
