/**
 * A check of an earlier push's upload held back for an open conflict at its
 * path is reported. This cache's new file, whose commit landed with its
 * answer lost, is deleted here and pushed by name while a peer commits an
 * edit of it: the deletion is kept as a conflict (mine: the deletion), its
 * mark dirty. The peer then replaces the file by a directory of its name; a
 * pull here brings the file under it. The next push plans only the check of
 * the earlier upload at the name, which waits on the conflict: the mark
 * stays dirty, and the push must name the conflict (or the path, left out
 * with a reason), never answer as a clean push.
 */
import assert from "node:assert/strict";
import { checkHeldByConflict, read } from "./clone_kit.ts";
import { pushLeftBehind } from "./push_result.ts";

const PATH = "notes/shared-1.md";
const UNDER = `${PATH}/part-26.md`;

Deno.test("a push whose only entry is a held check of an earlier push's upload at a path with an open conflict names that conflict", async () => {
  const { a, deleted } = await checkHeldByConflict(PATH, "part-26.md");
  // The deletion pushed by name met the peer's edit: a conflict, its mark kept.
  assert.deepEqual(deleted.conflicts, [PATH], JSON.stringify(deleted));
  assert.equal(await read(a, UNDER), "a part", "the pull brought the peer's directory");
  assert.deepEqual(a.conflicts().map((c) => [c.path, c.mine]), [[PATH, null]]);
  assert.ok(a.state.snapshot().paths.has(PATH), "the deletion's mark stays");

  const pushed = await a.pushChanged();
  assert.ok(a.state.snapshot().paths.has(PATH), "the mark stays dirty");
  const left = pushLeftBehind(pushed);
  assert.ok(
    left.conflicts.includes(PATH) || left.left.some((l) => l.path === PATH),
    `the push kept ${PATH} dirty with an open conflict and reported ${JSON.stringify(pushed)}`,
  );
  assert.ok(pushed.conflicts.includes(PATH), JSON.stringify(pushed));
  const skipped = pushed.skipped.find((s) => s.path === PATH);
  assert.ok(skipped?.keepDirty && skipped.reason, JSON.stringify(pushed.skipped));
  // Again: still held, still named, until its resolution.
  const again = await a.pushChanged();
  assert.deepEqual(again.conflicts, [PATH], JSON.stringify(again));
});
