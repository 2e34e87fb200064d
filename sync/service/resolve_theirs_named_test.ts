/**
 * `namedWhereMoved` (see `resolve_theirs_named.ts`): the record of the path
 * another process over the cache saved while a `resolve --theirs` ran is
 * named where the resolution moved your edit, only as that process left it:
 * one it resolved or replaced by the time the name is saved stays so, never
 * written back or over.
 */
import assert from "node:assert/strict";
import type { ConflictRecord } from "./conflicts.ts";
import { hashOf, PATH, saved, theirsThree } from "./resolve_theirs_two_kit.ts";

for (const how of ["resolved", "replaced"] as const) {
  Deno.test(`resolve --theirs naming your edit where it moved in the record another process saved during its pull leaves that record as the other process ${how} it meanwhile`, async () => {
    const { arm, cacheDir, a, b, three } = await theirsThree();
    const newer: ConflictRecord = {
      path: PATH,
      mine: { location: PATH, hash: await hashOf("a's edit"), size: 8 },
      theirs: { version: three, hash: await hashOf("three"), size: 5 },
      foundBy: "pull",
      at: 7,
      reason: "recorded by b",
    };
    const third: ConflictRecord = { ...newer, at: 9, reason: "recorded by b again" };
    // b records its conflict as a's pull begins; then, as a saves that
    // record naming your edit where it moved, b resolves or replaces it.
    arm(() => b.state.conflicts.record([newer]));
    const conflicts = a.state.conflicts;
    const record = conflicts.record.bind(conflicts);
    let fired = false;
    conflicts.record = async (records) => {
      if (!fired && records[0]?.reason === newer.reason && records[0].mine?.location !== PATH) {
        fired = true;
        await b.state.conflicts.takeIn();
        if (how === "resolved") await b.state.conflicts.clear([PATH]);
        else await b.state.conflicts.record([third]);
      }
      return await record(records);
    };
    await a.resolveConflict(PATH, "theirs");
    assert.ok(fired, "a named the record where your edit moved");
    const now = await saved(cacheDir);
    if (how === "resolved") {
      assert.equal(now, undefined, `the resolved conflict came back: ${JSON.stringify(now)}`);
    } else {
      assert.equal(
        now?.reason,
        third.reason,
        `b's newer record written over: ${JSON.stringify(now)}`,
      );
      assert.equal(now?.at, third.at);
      assert.notEqual(now?.mine?.location, PATH, "your edit is named where it moved");
    }
  });
}
