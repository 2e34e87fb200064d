/**
 * An update of a file this cache synced, whose push commit landed with its
 * answer lost, then deleted here, while a peer that synced the update
 * pulls inside this cache's withdrawal of it (the entry taken out, the
 * object still there: the pull keeps its record as a dropped entry to name
 * again) and uploads an edit before the withdrawal's delete. The deletion
 * is committed; the peer's edit must not be named over it.
 */
import assert from "node:assert/strict";
import { createAnswerLost, put, read } from "./clone_kit.ts";
import { hookedPair, NAMES_NOTHING, PATH } from "./unanswered_withdrawal_kit.ts";

Deno.test("a peer that pulls inside this cache's withdrawal of its own unanswered update, then edits and pushes, meets the committed deletion as a conflict", async () => {
  const pair = await hookedPair();
  const { store, a, b } = pair;
  await put(a, PATH, "one");
  await a.pushChanged();
  const v = await createAnswerLost(store, a, PATH, "a's update");
  assert.notEqual(a.state.synced(PATH)?.version, v, "the answer was lost: not synced here");
  await b.pullChanged();
  assert.equal(b.state.synced(PATH)?.version, v);

  // Just after a's push took out the entry naming its update, before its
  // delete of it: b pulls, edits the file and uploads its edit.
  const prepared = await pair.withdrawWhile(pair.peerPullsAndUploads);
  assert.ok(prepared, "b's upload was made inside a's withdrawal");
  assert.equal(await pair.indexEntry(), undefined, NAMES_NOTHING);

  const committed = await b.commitPush(prepared!);
  assert.deepEqual(
    [committed.uploaded, committed.conflicts],
    [[], [PATH]],
    JSON.stringify(committed),
  );
  assert.deepEqual(b.conflicts().map((c) => [c.path, c.theirs]), [[PATH, null]]);
  assert.equal(await read(b, PATH), "b's edit", "b's edit is kept locally");
  assert.equal(await pair.freshCloneReads(), undefined, "a fresh clone sees the deletion");
});
