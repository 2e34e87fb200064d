/**
 * A file created here whose push commit landed with its answer lost, then
 * deleted here, while a peer that pulled it edits it: the peer's upload
 * lands over this cache's write after the deletion took out the entry
 * naming that write, before the delete of it (which then finds the peer's
 * upload there). The deletion is committed: the index names nothing at
 * the path. The peer's commit, based on a version no index names any
 * more, must not name the path again over that deletion: it is the peer's
 * conflict, as any edit that meets a committed deletion is.
 */
import assert from "node:assert/strict";
import { createAnswerLost, put, read } from "./clone_kit.ts";
import { hookedPair, NAMES_NOTHING, PATH } from "./unanswered_withdrawal_kit.ts";

Deno.test("a peer's edit uploaded while this cache withdraws its own unanswered create, committed after the withdrawal, is the peer's conflict: the deletion stands", async () => {
  const pair = await hookedPair();
  const { store, a, b } = pair;
  const v = await createAnswerLost(store, a, PATH, "a's file");
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  await b.pullChanged();
  assert.equal(await read(b, PATH), "a's file");
  assert.equal(b.state.synced(PATH)?.version, v);

  // b edits it; its upload lands just after a's push took out the entry
  // naming a's write, before a's delete of that write.
  await put(b, PATH, "b's edit");
  const prepared = await pair.withdrawWhile(() => b.preparePush());
  assert.ok(prepared, "b's upload was made inside a's withdrawal");
  assert.equal(store.peek(PATH), undefined, "b's upload went with a's withdrawal");
  assert.equal(await pair.indexEntry(), undefined, NAMES_NOTHING);

  // b's commit meets the committed deletion it never saw: a conflict.
  const committed = await b.commitPush(prepared!);
  assert.deepEqual(committed.uploaded, []);
  assert.deepEqual(committed.conflicts, [PATH]);
  assert.deepEqual(b.conflicts().map((c) => [c.path, c.theirs]), [[PATH, null]]);
  assert.equal(await read(b, PATH), "b's edit", "b's edit is kept locally");
  assert.equal(await pair.indexEntry(), undefined, "the deletion stands");
  assert.equal(await pair.freshCloneReads(), undefined, "a fresh clone sees the deletion");
});

/**
 * The same withdrawal, the peer pulling inside it before its edit: that
 * pull finds the entry gone while the store still holds the version it
 * synced, and keeps it as a dropped entry to name again (`republish`),
 * which the push's `namedBase` leaves out. The edit uploaded over that
 * version must still meet the committed deletion as a conflict.
 */
Deno.test("a peer that pulls inside this cache's withdrawal of its own unanswered create, then edits and pushes, meets the committed deletion as a conflict: the deletion stands", async () => {
  const pair = await hookedPair();
  const { store, a, b } = pair;
  const v = await createAnswerLost(store, a, PATH, "a's file");
  await b.pullChanged();
  assert.equal(b.state.synced(PATH)?.version, v);

  // Just after a's push took out the entry naming a's write, before a's
  // delete of it: b pulls (the entry gone, the store still holding the
  // version b synced), then edits the file and uploads its edit.
  const prepared = await pair.withdrawWhile(pair.peerPullsAndUploads);
  assert.ok(prepared, "b's upload was made inside a's withdrawal");
  assert.equal(store.peek(PATH), undefined, "b's upload went with a's withdrawal");
  assert.equal(await pair.indexEntry(), undefined, NAMES_NOTHING);

  // b's commit meets the committed deletion it never saw: a conflict.
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
