import assert from "node:assert/strict";
import { holdConflicted, nameHeldAgain, reportDryRun } from "./push_holds.ts";
import { ConflictSet } from "./conflicts.ts";
import { emptyPushResult } from "./push_result.ts";
import { conflictRecord, planEntry } from "../../packages/testing/mod.ts";

async function conflictsOn(paths: string[]) {
  const set = await ConflictSet.open(await Deno.makeTempDir({ prefix: "sluice-holds-" }));
  await set.record(paths.map(conflictRecord));
  return set;
}

Deno.test("a path with an open conflict is held back, but a data version or a snapshot is not", async () => {
  const set = await conflictsOn(["notes/a.md", "data/t/m/d/1/raw", "p/.catalog-export.json"]);
  const plan = [
    planEntry("notes/a.md", { class: "other" }),
    planEntry("data/t/m/d/1/raw", { class: "data-version" }),
    planEntry("p/.catalog-export.json", { class: "index", snapshot: true }),
    planEntry("notes/b.md", { class: "other" }),
  ];
  const result = emptyPushResult();
  holdConflicted(plan, set, result);
  assert.deepEqual(plan.map((e) => e.action), ["skip", "put", "put", "put"]);
  assert.equal(plan[0].keepDirty, true);
  assert.match(plan[0].reason!, /^unresolved conflict: run `sluice resolve/);
  assert.deepEqual(result.conflicts, ["notes/a.md"]);
});

Deno.test("a dry run reports what a push now would leave out, but not an open conflict", async () => {
  const set = await conflictsOn(["notes/a.md"]);
  const plan = [
    planEntry("notes/a.md", { action: "skip", keepDirty: true }),
    planEntry("notes/b.md", { action: "skip", keepDirty: true, reason: "held" }),
    planEntry("notes/c.md", { action: "skip", unpublished: true }),
    planEntry("notes/d.md", { action: "skip" }),
  ];
  const result = emptyPushResult();
  reportDryRun(plan, set, result);
  assert.deepEqual(result.skipped, [
    { path: "notes/b.md", reason: "held", keepDirty: true },
    { path: "notes/c.md", reason: "skipped", keepDirty: false, unpublished: true },
  ]);
});

Deno.test("an entry left out already at a path with an open conflict is held for it too, and named; one a preparation made is not named again", async () => {
  const set = await conflictsOn(["notes/a.md", "notes/b.md", "data/t/m/d/1/raw", "notes/c.md"]);
  const plan = [
    planEntry("notes/a.md", { action: "skip", strandedCheck: true, reason: "a check" }),
    planEntry("notes/b.md", { action: "skip", reason: "left out by a gate" }),
    planEntry("data/t/m/d/1/raw", { class: "data-version", action: "skip", keepDirty: true }),
    planEntry("notes/c.md", { action: "skip", keepDirty: true, prepared: true, reason: "done" }),
    planEntry("notes/d.md", { action: "skip", reason: "no conflict" }),
  ];
  const result = emptyPushResult();
  holdConflicted(plan, set, result);
  assert.deepEqual(result.conflicts, ["notes/a.md", "notes/b.md", "data/t/m/d/1/raw"]);
  for (const e of plan.slice(0, 3)) {
    assert.equal(e.keepDirty, true, e.path);
    assert.match(e.reason!, /^unresolved conflict: run `sluice resolve/);
  }
  assert.equal(plan[3].reason, "done");
  assert.equal(plan[4].reason, "no conflict");
  assert.equal(plan[4].keepDirty, undefined);
});

Deno.test("a held deletion whose entry was dropped is named again at the version synced, only while the store holds it", () => {
  const synced = { syncedVersion: "v3", syncedHash: "h3", syncedSize: 9 };
  const plan = [
    planEntry("data/t/m/d/1/raw", { action: "skip", keepDirty: true, nameSynced: true, ...synced }),
    planEntry("data/t/m/d/2/raw", { action: "skip", keepDirty: true, ...synced }),
    planEntry("data/t/m/d/3/raw", { action: "skip", nameSynced: true, prepared: true, ...synced }),
    planEntry("data/t/m/d/4/raw", { action: "skip", nameSynced: true }),
  ];
  const set = {};
  const check: string[] = [];
  nameHeldAgain(plan, set, check);
  assert.deepEqual(set, { "data/t/m/d/1/raw": { v: "v3", h: "h3", s: 9 } });
  assert.deepEqual(check, ["data/t/m/d/1/raw"]);
});
