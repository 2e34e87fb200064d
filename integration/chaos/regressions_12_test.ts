/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 12: the
 * committed-deleted move's, `moves_committed_deleted.ts`, found with the
 * fixes of three reviews taken back; the newest are in `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I7, I8 (seed 226400039, `--committed-deleted-share 1`, shrunk to 5
 * operations, with c2dc84c, 27987a8 and 0242bd4 taken back): c1's run
 * committed m0's `out` version 1 and its marker; its next run's commit of
 * version 2 and the marker naming it landed, its answer lost. c1's user
 * deleted both versions here and pushed: the push took version 2's uploads
 * back, held the marker (naming a version no longer anywhere) and deleted
 * version 1, the version the committed marker named; the put-back of the
 * committed marker found no version here to recover its bytes from, so
 * the index named one marker and the store held another. The deletion of
 * the committed marker's version is now held where the push cannot
 * publish the marker here in its place.
 */
Deno.test("chaos regression: the deletion of the committed marker's version beside a lost run's is held, the marker never left naming nothing (I7, I8, seed 226400039)", async () => {
  await clean(
    '{"seed":226400039,"clones":3,"absentOnError":true,"v2":true,"kinds":["core-single-phase","core","core-single-phase"],"checkedDeletes":true,"ops":[{"id":52,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":56,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":57,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":59,"kind":"delete","clone":1,"file":0,"how":"push","run":57,"synced":52},{"id":60,"kind":"tick","n":45,"pick":1898854290}]}',
  );
});

/**
 * I39 (seed 226400002, `--committed-deleted-share 1`, shrunk to 4
 * operations, with 20a8b66 taken back): c3's run committed m0's `log`
 * version 1, its marker naming it; c3's user deleted that version here
 * and pushed (held: the marker here names it); another client of the
 * layout published its `raw` again with other bytes, and c3's pull met
 * that as a conflict with the deletion. Its `--mine` dropped the conflict
 * while no push would ever publish the deletion: after the final sync the
 * deletion stayed marked, the index naming the path, and nothing said the
 * path was in conflict. Such a `--mine` is now refused
 * (`version_under_marker`), and the user takes theirs, as it says.
 */
Deno.test("chaos regression: resolve --mine of a deletion here of a version its marker names is refused, the conflict never dropped for good (I39, seed 226400002)", async () => {
  await clean(
    '{"seed":226400002,"clones":4,"kinds":["api","core","api","api"],"ops":[{"id":46,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":48,"kind":"delete","clone":3,"file":0,"how":"push","run":46,"committed":true},{"id":50,"kind":"vanish","file":0,"run":46,"rewrite":true,"idle":3},{"id":54,"kind":"resolve","clone":3,"pick":0,"how":"mine"}]}',
  );
});

/**
 * I39 (seed 226400008, `--committed-deleted-share 1`, shrunk to 6
 * operations, with a48b959 taken back): c1's run committed m0's `out`
 * version 1; its next run's commit of version 2 and the marker naming it
 * landed, its answer lost. c1's user deleted both versions here and
 * pushed: version 2's uploads were taken back, and the deletion of
 * version 1, which the committed marker names, was held (the marker here,
 * naming version 2, cannot be published in its place). Another client of
 * the layout published version 1's `raw` again with other bytes, and c1's
 * pull met that as a conflict with the deletion; its `--mine` dropped the
 * conflict while the push held the deletion for good. Such a `--mine` is
 * now refused (`version_under_marker`), and the user takes theirs.
 */
Deno.test("chaos regression: resolve --mine of a deletion of the committed marker's version, the marker here not publishable in its place, is refused (I39, seed 226400008)", async () => {
  await clean(
    '{"seed":226400008,"clones":2,"absentOnError":true,"v2":true,"kinds":["core","api"],"oldClients":true,"skewMs":[0,63125],"indexFirst":true,"etag":true,"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":75,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":79,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":80,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":82,"kind":"delete","clone":1,"file":0,"how":"push","run":80,"synced":75},{"id":84,"kind":"vanish","file":0,"run":75,"rewrite":true,"idle":1},{"id":88,"kind":"resolve","clone":1,"pick":0,"how":"mine"}]}',
  );
});

/**
 * I7, I8 (seed 226400214, `--committed-deleted-share 1`, shrunk to 9
 * operations, failing the same with c2dc84c, 27987a8, 0242bd4, 20a8b66 and
 * a48b959 taken back): c0's runs committed m1's `log` versions 1 and 2, the
 * marker naming 2; c0's user deleted version 2 here and pushed (held: the
 * marker here names it). The user moved the marker back onto 1 and pushed:
 * that push wrote the marker and deleted version 2's files, and c0 crashed
 * before the index update. Its restarted process moved the marker onto 2
 * again (the empty directory left) and pushed: version-under-marker held
 * the deletions, finished on the store, for good, so the index named
 * version 2's files, gone, and the marker naming 2 was published, version
 * 2's dangling entries counting as listing it. A deletion whose file the
 * store no longer holds where the index names the version synced here now
 * goes (its commit made), and the marker here is held, the stranded upload
 * naming 1 published. Kept as printed and with its last tick two decisions
 * longer (23): the look at those files adds two HEADs to the first push's
 * deletion, and with them the printed history no longer crashes there; the
 * longer tick crashes it where it did (and fails the same without the fix).
 */
Deno.test("chaos regression: a deletion under the marker here that landed, its commit cut off, is committed, and the marker moved onto its version again is held (I7, I8, seed 226400214)", async () => {
  await clean(
    '{"seed":226400214,"clones":2,"kinds":["core","core"],"indexFirst":true,"ops":[{"id":66,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":70,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":71,"kind":"tick","n":32,"pick":1105478801},{"id":72,"kind":"delete","clone":0,"file":0,"how":"push","run":70,"committed":true},{"id":73,"kind":"tick","n":21,"pick":47873506},{"id":0,"kind":"crash","clone":0,"at":"commit"},{"id":9,"kind":"marker","clone":0,"model":1,"data":1,"back":true,"how":"push"},{"id":11,"kind":"tick","n":21,"pick":1848523982},{"id":34,"kind":"marker","clone":0,"model":1,"data":1,"back":false,"how":"push"}]}',
    '{"seed":226400214,"clones":2,"kinds":["core","core"],"indexFirst":true,"ops":[{"id":66,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":70,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":71,"kind":"tick","n":32,"pick":1105478801},{"id":72,"kind":"delete","clone":0,"file":0,"how":"push","run":70,"committed":true},{"id":73,"kind":"tick","n":21,"pick":47873506},{"id":0,"kind":"crash","clone":0,"at":"commit"},{"id":9,"kind":"marker","clone":0,"model":1,"data":1,"back":true,"how":"push"},{"id":11,"kind":"tick","n":23,"pick":1848523982},{"id":34,"kind":"marker","clone":0,"model":1,"data":1,"back":false,"how":"push"}]}',
  );
});
