/**
 * `resolve --theirs` while another process over the cache records a conflict
 * of the path before the resolution's clear (the clear keeps it) and then
 * replaces that record during the resolution's pull by one naming your edit
 * at the path: the pull puts the datastore's copy there, so the record names
 * your edit where it was set aside, and a later `--mine` publishes your
 * edit, never the datastore's bytes as yours.
 */
import assert from "node:assert/strict";
import { read } from "./clone_kit.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { hashOf, PATH, theirsThree } from "./resolve_theirs_two_kit.ts";

Deno.test("resolve --theirs whose kept newer record another process replaces during its pull, naming your edit at the path, names your edit where it was set aside: a later --mine publishes your edit", async () => {
  const { base, arm, cacheDir, a, b, three } = await theirsThree();
  const edit = await hashOf("a's edit");
  const byB = (at: number, reason: string): ConflictRecord => ({
    path: PATH,
    mine: { location: PATH, hash: edit, size: 8 },
    theirs: { version: three, hash: threeHash, size: 5 },
    foundBy: "pull",
    at,
    reason,
  });
  const threeHash = await hashOf("three");
  // b records its conflict as a's resolution clears its own record (the
  // clear keeps b's), then replaces it as a's pull begins.
  const conflicts = a.state.conflicts;
  const clear = conflicts.clear.bind(conflicts);
  let replaced = false;
  conflicts.clear = async (paths) => {
    conflicts.clear = clear;
    await b.state.conflicts.record([byB(7, "recorded by b")]);
    arm(async () => {
      replaced = true;
      await b.state.conflicts.takeIn();
      await b.state.conflicts.record([byB(8, "recorded by b again")]);
    });
    return await clear(paths);
  };
  const r = await a.resolveConflict(PATH, "theirs");
  assert.ok(replaced, "b replaced its record during the pull");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.equal(await read(a, PATH), "three", "the datastore's copy is at the path");
  const open = a.conflicts().find((c) => c.path === PATH);
  assert.equal(open?.reason, "recorded by b again");
  assert.notEqual(
    open?.mine?.location,
    PATH,
    `your edit named at the path: ${JSON.stringify(open)}`,
  );
  assert.equal(await Deno.readTextFile(`${cacheDir}/${open?.mine?.location}`), "a's edit");
  const mine = await a.resolveConflict(PATH, "mine");
  assert.equal(mine.resolved, true, JSON.stringify(mine));
  assert.equal(base.peekText(PATH), "a's edit", "--mine published your edit");
});
