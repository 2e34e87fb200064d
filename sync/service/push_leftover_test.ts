import assert from "node:assert/strict";
import type { PlanEntry, PushContext } from "../context.ts";
import { VersionConflictError } from "../errors.ts";
import {
  isLeftoverLoss,
  leaveLeftover,
  LEFTOVER_REASON,
  leftoverWarning,
} from "./push_leftover.ts";

const RAW = "data/shell/cmd/m1/out/2/raw";
const lost = new VersionConflictError([RAW], [".sluice/set-aside/a"], true, [
  ".sluice/set-aside/a",
]);

/** The parts of a push `isLeftoverLoss` reads: its locks, the run's written and preexisting directories. */
function pushOf(o: { locks?: number; written?: string[]; preexisting?: string[] }): PushContext {
  return {
    locks: Array.from({ length: o.locks ?? 1 }, () => ({})),
    written: o.written ?? [],
    preexisting: new Set(o.preexisting ?? []),
  } as unknown as PushContext;
}
const entryOf = (path: string) => ({ path, action: "put" }) as unknown as PlanEntry;

Deno.test("leftover: a version lost under a run's locks that was in the cache before the run, and is not among what it wrote, is a leftover", () => {
  const before = { preexisting: ["data/shell/cmd/m1/out/2"], written: ["data/shell/cmd/m1/out/3"] };
  assert.equal(isLeftoverLoss(pushOf(before), entryOf(RAW), lost), true);
  // The run's own version: refused as ever.
  assert.equal(
    isLeftoverLoss(
      pushOf({ ...before, written: ["data/shell/cmd/m1/out/2/"] }),
      entryOf(RAW),
      lost,
    ),
    false,
  );
  // Not there before the run, a push under no lock, another error: none is a leftover.
  assert.equal(isLeftoverLoss(pushOf({ ...before, preexisting: [] }), entryOf(RAW), lost), false);
  assert.equal(isLeftoverLoss(pushOf({ ...before, locks: 0 }), entryOf(RAW), lost), false);
  assert.equal(isLeftoverLoss(pushOf(before), entryOf(RAW), new Error("boom")), false);
  // A sibling directory whose name starts alike is not under it.
  assert.equal(
    isLeftoverLoss(
      pushOf({ preexisting: ["data/shell/cmd/m1/out/2"] }),
      entryOf("data/shell/cmd/m1/out/20/raw"),
      lost,
    ),
    false,
  );
});

Deno.test("leftover: left out of the push, unmarked, with its reason; the warning names the files, where they were set aside, and that the run goes on", () => {
  const entry = entryOf(RAW);
  leaveLeftover(entry);
  assert.deepEqual([entry.action, entry.keepDirty, entry.reason], ["skip", false, LEFTOVER_REASON]);
  assert.equal(leftoverWarning([]), undefined);
  const w = leftoverWarning([lost, lost])!;
  assert.equal(w.code, "version_exists");
  assert.equal(w.path, RAW);
  assert.match(w.message, /^Data version file data\/shell\/cmd\/m1\/out\/2\/raw is not this run's/);
  assert.match(w.message, /set aside in \.sluice\/set-aside\/a/);
  assert.match(w.message, /is not refused for this one/);
});
