/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 18; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I9, the checker's (seed 234980077, `--committed-deleted-share 1
 * --shared-conflict-share 1 --marker-race-share 1 --shared-cache-share 1`,
 * shrunk to 5 operations; third-party locks, a v2 index): c1's user edited
 * notes/shared-0.md by hand, never synced here, and c0 pushed an edit of it.
 * c1's sync took its conflict records in (none), and right then a second
 * process over c1's cache resolved `--merged`: finding no conflict, it
 * pulled, met c0's version as a conflict with the copy here (set aside,
 * recorded with c0's version as theirs), and published its merge over that
 * version, which it had seen. The second process's command runs in the own
 * process's place while that one waits, and the checker took the writer's
 * view from the own process's service, whose records and synced files
 * predate that pull: it named c0's edit lost. The writer's view is now the
 * second process's service while its command runs there.
 */
Deno.test("chaos regression: a second process's resolution over a version its own pull recorded as theirs loses nothing (I9, the checker's, seed 234980077)", async () => {
  await clean(
    '{"seed":234980077,"clones":2,"absentOnError":true,"v2":true,"ops":[{"id":57,"kind":"edit","clone":1,"file":3,"how":"hand"},{"id":62,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":63,"kind":"tick","n":2,"pick":868448743},{"id":64,"kind":"resolve","clone":1,"pick":2,"how":"merged","second":true,"aimed":true},{"id":65,"kind":"sync","clone":1}]}',
  );
});

/**
 * I1 (seed 238900189, `--put-back-lost-share 1 --shared-cache-share 1`,
 * shrunk to 19 operations; old clients, ETag versions, a v2 index): c0's
 * run crashed as its index write landed, and c0 deleted that run's version
 * files and pushed. The push took its own committed create back (the
 * entries out first), then its deletes failed (unreachable), and its lock
 * was broken. c0's next sync deleted metadata.yaml again, and before its
 * commit c3's run created version 1 anew at the freed path. That commit,
 * beside old clients, looked at every removal: no entry, a Sluice writer's
 * upload not committed yet there. It took c3's create for a write over its
 * deletion, a conflict kept the deletion here, and the final resolution
 * left c0 without c3's acknowledged metadata.yaml. A removal whose entry is
 * gone now applies with no conflict where a Sluice writer's uncommitted
 * upload of another version stands: a create since, its writer commits it.
 */
Deno.test("chaos regression: a deletion's commit beside old clients meets a peer's run creating the freed version anew, and keeps no conflict with it (I1, seed 238900189)", async () => {
  await clean(
    '{"seed":238900189,"clones":5,"absentOnError":true,"v2":true,"kinds":["api","core-single-phase","api","api","api"],"oldClients":true,"etag":true,"ops":[{"id":65,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":66,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":67,"kind":"tick","n":20,"pick":2088714591},{"id":68,"kind":"delete","clone":0,"file":0,"how":"push","run":66},{"id":69,"kind":"tick","n":31,"pick":1158409312},{"id":70,"kind":"sync","clone":0},{"id":71,"kind":"tick","n":37,"pick":1176766883},{"id":5,"kind":"tick","n":10,"pick":1506620515},{"id":6,"kind":"breakglass","model":0},{"id":7,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":51,"kind":"sibling","clone":1,"how":"dies","workMs":5000},{"id":52,"kind":"sync","clone":1},{"id":53,"kind":"tick","n":70,"pick":2042816757},{"id":17,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":19,"kind":"latency","ms":500},{"id":48,"kind":"sibling","clone":3,"how":"dies","workMs":45000},{"id":28,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":29,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":34,"kind":"tick","n":11,"pick":142296113}]}',
  );
});

/**
 * I23 (seed 236400140, `--old-share 1 --etag-share 1 --old-take-back-share
 * 1`, shrunk to 9 operations): an old client pushed notes/shared-1.md and
 * c0 pulled it; an old client's pull read the index, c0 committed an edit
 * of that file over the old client's version, and the pull wrote back the
 * index it had read, rolling the entry back to the old client's (no object
 * version). c0's user deleted the file by hand, unmarked. c0's next pull
 * took the path for a dropped entry and marked it to be published again,
 * so the next push deleted the file on the datastore, named by no one. A
 * pull now tells it as a rolled-back entry deleted here and marks nothing.
 */
Deno.test("chaos regression: a file deleted here by hand whose entry an old client rolled back to its own version is not deleted on the datastore (I23, seed 236400140)", async () => {
  await clean(
    '{"seed":236400140,"clones":3,"kinds":["api","core","core"],"oldClients":true,"indexFirst":true,"etag":true,"ops":[{"id":94,"kind":"oldpush","clone":1,"file":4,"again":{"op":85,"clone":0}},{"id":83,"kind":"sync","clone":0},{"id":49,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":50,"kind":"tick","n":25,"pick":1147148061},{"id":51,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":52,"kind":"delete","clone":1,"file":1,"how":"push"},{"id":56,"kind":"oldpull","clone":1,"window":2},{"id":57,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":61,"kind":"delete","clone":0,"file":4,"how":"hand"}]}',
  );
});

/**
 * I9 (seed 241600138, `--parallel-share 1 --structural-share 1
 * --shared-cache-share 1`, shrunk to 10 operations): c1 pushed
 * notes/shared-1.md and another tool deleted its object. c0, which never saw
 * it, created the file: its upload landed, its commit failed. c0 deleted the
 * file; its sync found the upload stranded over an entry naming c1's
 * version, recorded the upload as synced and met a brief outage at its
 * delete. The next push took that for a plain deletion of the recorded
 * version, and its commit took out c1's entry with no loss recorded: c1's
 * pull read a deletion. The upload is no longer recorded as synced where the
 * index names another writer's version: the next push takes it back again,
 * and records that version's loss.
 */
Deno.test("chaos regression: a stranded upload over a peer's vanished version, its delete cut off, never takes the peer's entry out unrecorded (I9, seed 241600138)", async () => {
  await clean(
    '{"seed":241600138,"clones":2,"kinds":["core-single-phase","api"],"ops":[{"id":21,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":22,"kind":"tick","n":7,"pick":1594328500},{"id":23,"kind":"vanish","file":4},{"id":50,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":51,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":52,"kind":"delete","clone":0,"file":4,"how":"push"},{"id":69,"kind":"blip","clone":0,"call":"delete"},{"id":55,"kind":"sync","clone":1},{"id":49,"kind":"sync","clone":0},{"id":18,"kind":"tick","n":21,"pick":47518008}]}',
  );
});
