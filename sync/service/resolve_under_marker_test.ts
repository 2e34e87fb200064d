/**
 * `resolve --mine` of a conflict whose side here is the deletion of a data
 * version file while the `latest` marker here names that version: no push
 * deletes such a version (`version-under-marker`), so the deletion cannot
 * be published as asked.
 */
import assert from "node:assert/strict";
import { read } from "./clone_kit.ts";
import { deletedUnderMarker, RAW, THEIRS } from "./resolve_under_marker_kit.ts";

Deno.test("resolve --mine of a deletion here of a version its marker here names: the conflict is dropped and the deletion is never published", async () => {
  const { store, a } = await deletedUnderMarker();
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.equal(r.deleted, false);
  assert.match(r.push?.skipped.find((s) => s.path === RAW)?.reason ?? "", /names this version/);
  assert.deepEqual(a.conflicts(), [], "the conflict is gone");
  assert.equal(store.peekText(RAW), THEIRS, "nothing deleted");
  // No push publishes it while the marker names the version, and no
  // resolution is left to take theirs back.
  const again = await a.pushChanged();
  assert.ok(again.skipped.some((s) => s.path === RAW && s.keepDirty));
  assert.equal(store.peekText(RAW), THEIRS);
  const theirs = await a.resolveConflict(RAW, "theirs").catch((e) => e);
  assert.equal(theirs.code, "not_found");
  assert.equal(await read(a, RAW), undefined);
});
