/**
 * `resolve --mine` of a data version's deletion publishes the `latest`
 * marker here with it; where that push holds the marker back (it meets a
 * newer marker of another client's, a new conflict of its own; or waits on
 * another writer's upload no index names), the answer says so: the
 * conflict of the deletion is gone (`resolved`), and `leftBehind` names the
 * marker, in conflict or left for a later push with the push's reason.
 */
import assert from "node:assert/strict";
import { MARKER, RAW } from "./resolve_under_marker_kit.ts";
import { markerMovedOn } from "./resolve_marker_left_kit.ts";

Deno.test("resolve --mine whose push meets a new conflict of the marker pushed with the deletion: the answer names that conflict as left behind", async () => {
  const { store, a } = await markerMovedOn("committed");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  assert.equal(store.peekText(MARKER), "3", "the marker not written over");
  assert.deepEqual(r.leftBehind?.conflicts, [MARKER], JSON.stringify(r));
  assert.deepEqual(r.leftBehind?.left, []);
  assert.deepEqual(a.conflicts().map((c) => c.path), [MARKER]);
});

Deno.test("resolve --mine whose push holds the marker pushed with the deletion (another writer's upload no index names): the answer names it left behind with the push's reason", async () => {
  const { store, a } = await markerMovedOn("uploaded");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  assert.deepEqual(r.leftBehind?.conflicts, []);
  const reason = r.push?.skipped.find((s) => s.path === MARKER)?.reason;
  assert.ok(reason, JSON.stringify(r.push));
  assert.deepEqual(r.leftBehind?.left, [{ path: MARKER, reason }]);
  assert.ok(a.state.dirtyPaths().includes(MARKER), "the marker stays dirty");
});

Deno.test("resolve --mine whose push publishes all it was to: nothing left behind", async () => {
  const { a } = await markerMovedOn("none");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(r.leftBehind, { conflicts: [], left: [] });
});
