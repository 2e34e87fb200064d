import assert from "node:assert/strict";
import type { PendingCommit } from "./push_commit.ts";
import { mergePending } from "./push_commit_now.ts";

const snapshot = (n: number) => ({ paths: new Map([[`p${n}`, n]]), bulkSeq: -1 });

function pending(tag: string, n: number, walkDone: boolean): PendingCommit {
  return {
    set: { [`${tag}.txt`]: { v: `v${n}`, h: "h", s: 1 } },
    remove: [`${tag}-gone.txt`],
    base: { [`${tag}.txt`]: null },
    baseHash: {},
    baseSize: {},
    check: [`${tag}.txt`],
    baseGone: [],
    foundGone: [],
    synced: { [`${tag}.txt`]: { hash: "h", version: `v${n}`, size: 1 } },
    handled: [`${tag}.txt`],
    deferredDirs: [`${tag}/`],
    snapshot: snapshot(n),
    walkDone,
  };
}

Deno.test("mergePending: this pass's commit alone as it is; beside a prepared push's, both, with the prepared snapshot", () => {
  const own = pending("own", 2, true);
  assert.equal(mergePending(undefined, own, true), own, "no copy without a prior commit");
  const prior = pending("prior", 1, true);
  const merged = mergePending(prior, own, true);
  assert.deepEqual(Object.keys(merged.set).sort(), ["own.txt", "prior.txt"]);
  assert.deepEqual(merged.remove, ["prior-gone.txt", "own-gone.txt"]);
  assert.deepEqual(merged.handled, ["prior.txt", "own.txt"]);
  assert.deepEqual(merged.deferredDirs, ["own/"], "this pass's deferred directories");
  assert.equal(merged.snapshot, prior.snapshot, "the snapshot the preparation took");
  assert.equal(merged.walkDone, true);
  assert.equal(
    mergePending(prior, own, false).walkDone,
    false,
    "a pass that failed leaves the walk",
  );
});
