import assert from "node:assert/strict";
import { emptyPushResult, mergeCommitResult } from "./push_result.ts";

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
