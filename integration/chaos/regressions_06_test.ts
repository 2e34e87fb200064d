/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 6 of the older ones,
 * oldest first; the newest are in `regressions_test.ts`).
 */
import assert from "node:assert/strict";
import { parseHistory } from "./history.ts";
import { runHistory } from "./workload.ts";
import { clean } from "./regressions_kit.ts";

/**
 * I29 (the `answer` crash, at the code before c091424): c0's update's
 * index write landed and c0 crashed before the answer; its user edited the
 * file again, and c0's next pull took the entry naming its own update for
 * a peer's change: a conflict with itself.
 */
Deno.test("chaos regression: a clone's own update whose commit landed before a crash is no conflict with its next edit (I29)", async () => {
  for (const v2 of [false, true]) {
    await clean(
      JSON.stringify({
        seed: 1,
        clones: 2,
        v2,
        ops: [
          { id: 1, kind: "edit", clone: 0, file: 4, how: "push" },
          { id: 9, kind: "tick", n: 60, pick: 1 },
          { id: 2, kind: "crash", clone: 0, at: "answer" },
          { id: 3, kind: "edit", clone: 0, file: 4, how: "push" },
          { id: 8, kind: "tick", n: 60, pick: 2 },
          { id: 4, kind: "edit", clone: 0, file: 4, how: "hand" },
          { id: 5, kind: "sync", clone: 0 },
        ],
      }),
    );
  }
});

/**
 * I29 (seed 112000329, `--checked-delete-share 1`): c1's update was
 * committed and c1 crashed before the answer (its next call), its file
 * already replaced by a directory by hand; its next pull met the entry
 * naming its own update with the file deleted here, and took it for a
 * peer's change: a conflict with itself. A deletion here over this cache's
 * own write is kept for the push too (sync/service/pull_plan.ts).
 */
Deno.test("chaos regression: a deletion here over this clone's own committed update is no conflict with itself (I29, seed 112000329)", async () => {
  await clean(
    '{"seed":112000329,"clones":2,"kinds":["core","api"],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":31,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":5,"kind":"tick","n":38,"pick":272567826},{"id":33,"kind":"sync","clone":0},{"id":29,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":30,"kind":"reshape","clone":1,"file":4,"how":"push"},{"id":7,"kind":"tick","n":12,"pick":583515120},{"id":8,"kind":"crash","clone":1},{"id":9,"kind":"sync","clone":1},{"id":14,"kind":"crash","clone":1}]}',
  );
});

/**
 * I9 (seed 114000494, `--checked-delete-share 1`; found by checked deletes,
 * taught after a trial on MinIO lost an edit so): c1's deletion checked the
 * version it had synced, and c2's edit landed and was committed before the
 * delete, which removed it; c1's commit then took out the entry naming
 * c2's edit as if its delete had removed the version it checked. Such a
 * removal now leaves an entry naming another version, as one found gone
 * does (sync/service/push_delete.ts, `deletesChecked`).
 */
Deno.test("chaos regression: a checked delete that removed a peer's edit landed in its window never takes out the entry naming it (I9, seed 114000494)", async () => {
  await clean(
    '{"seed":114000494,"clones":3,"absentOnError":true,"skewMs":[0,0,106385],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":4,"kind":"adopt","clone":1,"file":5},{"id":7,"kind":"tick","n":8,"pick":1137788778},{"id":16,"kind":"sync","clone":2},{"id":45,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":26,"kind":"adopt","clone":2,"file":5}]}',
  );
});

/**
 * I7, I8 (seed 114000144; the checker's): c0's run uploaded its version
 * and its `latest` marker over the version the index named, an outage cut
 * off its commit, and c0's cache was then replaced by a copy of c2's: that
 * upload waits for an adoption no history makes, and readers skip the
 * marker as uncommitted. Spared as I11 spares such uploads.
 */
Deno.test("chaos regression: an abandoned copy's upload over an indexed version is spared as I11 spares it (I7, I8, seed 114000144)", async () => {
  await clean(
    '{"seed":114000144,"clones":5,"kinds":["core-single-phase","core","core-single-phase","api","api"],"indexFirst":true,"ops":[{"id":3,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":4,"kind":"tick","n":4,"pick":1887209110},{"id":7,"kind":"tick","n":37,"pick":664176173},{"id":9,"kind":"run","clone":0,"model":1,"data":1,"workMs":0,"same":true},{"id":10,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":11,"kind":"run","clone":3,"model":1,"data":1,"workMs":5000},{"id":12,"kind":"resolve","clone":4,"pick":1,"how":"theirs"},{"id":13,"kind":"bulk","clone":1},{"id":16,"kind":"tick","n":32,"pick":1778751015},{"id":17,"kind":"crash","clone":4},{"id":19,"kind":"tick","n":26,"pick":1644436117},{"id":44,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":45,"kind":"reshape","clone":4,"file":4,"how":"push"},{"id":29,"kind":"tick","n":34,"pick":1980086480},{"id":32,"kind":"outage","on":true},{"id":33,"kind":"tick","n":4,"pick":2086795818},{"id":48,"kind":"copy","clone":0,"from":2}]}',
  );
});

/**
 * I2 (seed 114000293, `--checked-delete-share 1`): a second process over
 * c1's cache marked and wrote a version of its run; c1's own sync, a walk
 * of the whole cache, published it while that run was under way; the run's
 * lock read then failed (third-party locks: a failed read looks absent),
 * it was refused, and its version stayed published. A walk now leaves out
 * what another running process over the cache marked
 * (sync/service/push_plan.ts).
 */
Deno.test("chaos regression: a walk push never publishes a version another running process over the cache marked (I2, seed 114000293)", async () => {
  await clean(
    '{"seed":114000293,"clones":3,"absentOnError":true,"kinds":["api","core","api"],"skewMs":[-56888,0,0],"checkedDeletes":true,"ops":[{"id":0,"kind":"delete","clone":1,"file":2,"how":"hand"},{"id":1,"kind":"wait","ms":31000},{"id":2,"kind":"sync","clone":1},{"id":3,"kind":"lockfile","clone":1,"set":"@chaos/ext-3"},{"id":4,"kind":"edit","clone":1,"file":0,"how":"revert"},{"id":5,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":6,"kind":"crash","clone":2},{"id":52,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":53,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":54,"kind":"tick","n":26,"pick":684897075},{"id":7,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":8,"kind":"wait","ms":11000},{"id":9,"kind":"adopt","clone":1,"file":2},{"id":16,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":17,"kind":"tick","n":73,"pick":1168708937},{"id":18,"kind":"vanish","file":5,"run":16,"rewrite":true},{"id":45,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":46,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":47,"kind":"delete","clone":2,"file":5,"how":"push"},{"id":20,"kind":"tick","n":20,"pick":241852004},{"id":21,"kind":"wait","ms":80000},{"id":22,"kind":"tick","n":20,"pick":952091440},{"id":23,"kind":"wait","ms":80000},{"id":24,"kind":"tick","n":20,"pick":1316095698},{"id":25,"kind":"wait","ms":80000},{"id":26,"kind":"tick","n":20,"pick":1345966690},{"id":27,"kind":"wait","ms":80000},{"id":28,"kind":"tick","n":20,"pick":1663102027},{"id":29,"kind":"wait","ms":80000},{"id":30,"kind":"tick","n":20,"pick":105092593},{"id":31,"kind":"wait","ms":80000},{"id":49,"kind":"sibling","clone":2,"how":"dies","workMs":45000},{"id":50,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":51,"kind":"tick","n":31,"pick":236663428},{"id":32,"kind":"tick","n":20,"pick":1958348007},{"id":33,"kind":"wait","ms":80000},{"id":34,"kind":"tick","n":20,"pick":1094198609},{"id":35,"kind":"wait","ms":80000},{"id":36,"kind":"tick","n":20,"pick":1788078169},{"id":37,"kind":"wait","ms":80000},{"id":38,"kind":"tick","n":20,"pick":1474576083},{"id":39,"kind":"wait","ms":80000},{"id":40,"kind":"tick","n":20,"pick":1975656261},{"id":41,"kind":"wait","ms":80000},{"id":42,"kind":"tick","n":20,"pick":1491401225},{"id":43,"kind":"wait","ms":80000},{"id":44,"kind":"sync","clone":2},{"id":48,"kind":"sync","clone":1},{"id":10,"kind":"run","clone":1,"model":1,"data":1,"workMs":5000},{"id":11,"kind":"run","clone":1,"model":1,"data":0,"workMs":1000},{"id":12,"kind":"wait","ms":31000},{"id":13,"kind":"run","clone":2,"model":1,"data":1,"workMs":45000},{"id":14,"kind":"breakglass","model":1},{"id":15,"kind":"breakglass","model":1}]}',
  );
});

/**
 * I13 (seed 105200577, shrunk; `--streamed-share 1`): a streamed run's
 * writer stopped by a crash before finalizing its version 2 (its `raw` here,
 * no `metadata.yaml`); a later run of the same model was refused for its
 * lost lock, and its erasure reset the `latest` marker to the highest
 * version left, the unfinished one. That marker could never be pushed (the
 * version is held), so `resolve --mine` of it stayed refused. A recomputed
 * marker now never names an unfinished version where they are held.
 */
Deno.test("chaos regression: a refused run's erasure never resets the latest marker to an unfinished version (I13, seed 105200577)", async () => {
  await clean(
    '{"seed":105200577,"clones":4,"kinds":["api","core","core","core"],"indexFirst":true,"ops":[{"id":44,"kind":"foreign","what":"version","model":0,"data":1,"version":1,"marker":true},{"id":45,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":0,"kind":"breakglass","model":0},{"id":1,"kind":"tick","n":12,"pick":1713132326},{"id":2,"kind":"crash","clone":2,"at":"commit"},{"id":12,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":13,"kind":"resolve","clone":1,"pick":2,"how":"merged"},{"id":16,"kind":"breakglass","model":0},{"id":19,"kind":"latency","ms":3000},{"id":20,"kind":"tick","n":12,"pick":2025452265},{"id":39,"kind":"tick","n":24,"pick":274298148},{"id":40,"kind":"adopt","clone":3,"file":5},{"id":41,"kind":"tick","n":9,"pick":998091023},{"id":42,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 116000524, shrunk; third-party locks whose failed read looks
 * absent): a second process's run over a clone's cache was refused while
 * the clone's own sync resumed the same erasure; each completed it on its
 * own copy of the journal, one of them left the upload pending (an index
 * read failed) with its bytes kept aside, and the other's journal write
 * forgot them: the refused run's bytes stayed in the state for good. The
 * journal is now changed and completed under a lock every process takes.
 */
Deno.test("chaos regression: two processes completing one erasure never write each other's progress away (I2, seed 116000524)", async () => {
  await clean(
    '{"seed":116000524,"clones":4,"absentOnError":true,"kinds":["api","core","api","api"],"ops":[{"id":4,"kind":"resolve","clone":3,"pick":7,"how":"mine"},{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":10,"kind":"resolve","clone":0,"pick":4,"how":"mine"},{"id":11,"kind":"bulk","clone":3},{"id":12,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":14,"kind":"breakglass","model":0},{"id":15,"kind":"breakglass","model":0},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":41,"kind":"sibling","clone":2,"how":"push","workMs":15000},{"id":42,"kind":"sync","clone":2},{"id":43,"kind":"tick","n":76,"pick":168511372},{"id":22,"kind":"tick","n":27,"pick":1699854319},{"id":23,"kind":"breakglass","model":0},{"id":26,"kind":"flaky","call":"get","count":3,"afterEffect":true},{"id":28,"kind":"tick","n":7,"pick":1750557934}]}',
  );
});

/**
 * I1 (seed 120000111, shrunk; third-party locks whose failed read looks
 * absent): a run refused for its lost lock had uploaded its version; a
 * peer's deterministic run met the upload with equal bytes, took it as its
 * own and committed it. The erasure kept the upload (a peer's commit names
 * it), but the refused run's record of the write stayed: the clone's next
 * push of the model's directory took the committed object, which carries
 * its writer id, for its own committed write deleted here, and deleted it
 * with its entry: the peer's acknowledged version was gone everywhere. The
 * erasure now settles the record of every upload it settles, and a push
 * that resumes it leaves their deletions out.
 */
Deno.test("chaos regression: a refused run's upload a peer committed as its own is never deleted by the refused clone's later push (I1, seed 120000111)", async () => {
  await clean(
    '{"seed":120000111,"clones":5,"absentOnError":true,"kinds":["core-single-phase","core","core-single-phase","core-single-phase","api"],"ops":[{"id":6,"kind":"run","clone":4,"model":0,"data":1,"workMs":45000,"same":true},{"id":8,"kind":"lockfile","clone":1,"set":"@chaos/ext-8"},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":15,"kind":"run","clone":3,"model":1,"data":1,"workMs":45000},{"id":16,"kind":"tick","n":33,"pick":511472717},{"id":17,"kind":"tick","n":15,"pick":1119522725},{"id":19,"kind":"bulk","clone":0},{"id":20,"kind":"breakglass","model":1},{"id":21,"kind":"breakglass","model":1},{"id":22,"kind":"wait","ms":65000},{"id":24,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":26,"kind":"tick","n":24,"pick":641963356},{"id":28,"kind":"outage","on":true},{"id":29,"kind":"tick","n":5,"pick":759395559},{"id":30,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true}]}',
  );
});

/**
 * I9 (seed 119500990, shrunk; found by the marker races): a clone that had
 * never synced a `latest` marker pushed its run's marker, naming a newer
 * version, over a peer's marker moved back by hand: the marker rebase took
 * it for a marker moved further forward. A marker this cache never synced
 * is now a conflict as before.
 */
Deno.test("chaos regression: a marker never synced here is never written over a peer's marker moved back (I9, seed 119500990)", async () => {
  await clean(
    '{"seed":119500990,"clones":5,"kinds":["core-single-phase","core","api","api","api"],"ops":[{"id":1,"kind":"run","clone":4,"model":0,"data":0,"workMs":0,"same":true},{"id":7,"kind":"tick","n":9,"pick":2009556033},{"id":8,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":25,"kind":"tick","n":35,"pick":2103217814},{"id":26,"kind":"marker","clone":4,"model":0,"data":0,"back":true,"how":"push"},{"id":28,"kind":"run","clone":2,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I7, I8 (seed 121000113, shrunk by hand to its cause; the checker's): c0
 * deleted a config file it had synced, its delete landed (conditional on the
 * version it synced), and an outage cut its push off before the index
 * update (at the read of the vanished record the commit makes first). c0's
 * cache was then replaced by a copy of c1's, and with it the deletion its
 * user had not seen through: the index names an object no longer there, as
 * after another tool's deletion, until a pull that has seen the entry so for
 * the dangling-entry grace (15 minutes) removes it (the history with a pull,
 * a wait of 16 minutes and another pull appended passes; without the copy,
 * c0's final push commits its deletion). To be spared by I7 and I8 as an
 * abandoned copy's upload is. The history as the checker printed it follows
 * (there c2's deletion, its cache then replaced by a copy of c3's).
 */
Deno.test("chaos regression: an abandoned copy's deletion whose commit never came is spared by I7 and I8 (seed 121000113)", async () => {
  await clean(
    '{"seed":121000113,"clones":2,"ops":[{"id":0,"kind":"config","clone":0,"file":2},{"id":1,"kind":"tick","n":40,"pick":1},{"id":2,"kind":"delete","clone":0,"file":2,"how":"push"},{"id":3,"kind":"tick","n":1,"pick":2},{"id":4,"kind":"outage","on":true},{"id":5,"kind":"tick","n":40,"pick":3},{"id":6,"kind":"outage","on":false},{"id":7,"kind":"copy","clone":0,"from":1}]}',
    '{"seed":121000113,"clones":5,"ops":[{"id":48,"kind":"foreign","what":"file"},{"id":0,"kind":"sync","clone":4},{"id":1,"kind":"wait","ms":31000},{"id":2,"kind":"run","clone":3,"model":1,"data":0,"workMs":5000},{"id":3,"kind":"crash","clone":3},{"id":4,"kind":"bulk","clone":0},{"id":5,"kind":"resolve","clone":3,"pick":5,"how":"mine"},{"id":6,"kind":"edit","clone":3,"file":2,"how":"revert"},{"id":7,"kind":"adopt","clone":0,"file":5},{"id":8,"kind":"tick","n":14,"pick":1172596590},{"id":9,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":10,"kind":"crash","clone":4},{"id":41,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":40,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":11,"kind":"resolve","clone":0,"pick":1,"how":"theirs"},{"id":12,"kind":"sync","clone":3},{"id":13,"kind":"adopt","clone":0,"file":2},{"id":14,"kind":"tick","n":30,"pick":2146479861},{"id":15,"kind":"tick","n":32,"pick":565378892},{"id":16,"kind":"run","clone":4,"model":1,"data":0,"workMs":5000,"streamed":true},{"id":17,"kind":"resolve","clone":0,"pick":7,"how":"theirs"},{"id":18,"kind":"migrate","clone":0},{"id":44,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":1,"file":3,"how":"hand"},{"id":39,"kind":"migrate","clone":2},{"id":37,"kind":"sync","clone":2},{"id":38,"kind":"delete","clone":2,"file":0,"how":"push"},{"id":36,"kind":"tick","n":43,"pick":378333961},{"id":35,"kind":"stall","clone":1,"on":false},{"id":46,"kind":"sync","clone":3},{"id":47,"kind":"reshape","clone":3,"file":3,"how":"push"},{"id":19,"kind":"edit","clone":0,"file":4,"how":"mark"},{"id":42,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":43,"kind":"reshape","clone":2,"file":5,"how":"hand"},{"id":20,"kind":"outage","on":true},{"id":21,"kind":"run","clone":1,"model":1,"data":0,"workMs":45000,"streamed":true},{"id":22,"kind":"tick","n":10,"pick":678519326},{"id":23,"kind":"outage","on":false},{"id":24,"kind":"tick","n":32,"pick":1702494876},{"id":49,"kind":"copy","clone":2,"from":3},{"id":50,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":51,"kind":"edit","clone":2,"file":5,"how":"hand"},{"id":52,"kind":"sync","clone":2},{"id":53,"kind":"tick","n":65,"pick":1272458504},{"id":25,"kind":"tick","n":25,"pick":2020545384},{"id":26,"kind":"resolve","clone":1,"pick":6,"how":"mine"},{"id":27,"kind":"marker","clone":0,"model":1,"data":1,"back":false,"how":"revert"},{"id":28,"kind":"latency","ms":500},{"id":29,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":30,"kind":"breakglass","model":null},{"id":31,"kind":"delete","clone":2,"file":4,"how":"hand"},{"id":32,"kind":"breakglass","model":1},{"id":33,"kind":"run","clone":2,"model":1,"data":1,"workMs":5000,"streamed":true},{"id":34,"kind":"tick","n":32,"pick":446696155}]}',
  );
});

/**
 * I11 (seed 124100329, trimmed by hand; the checker's): c2 published
 * notes/shared-1.md and another tool deleted its object (the entry left
 * dangling). c3, offline until the end, replaced that name by a directory;
 * its first final push uploaded notes/shared-1.md/part-18.md, and its commit
 * met the dangling file entry as the other shape: left out, kept marked,
 * told (`path_blocked`), the name recorded as blocked. Its pull kept the
 * hold (the entry still within c3's grace), and its second push held the
 * file back. c4's pull, past its grace, removed the entry, and c3's second
 * pull found the way clear and cleared the record, as the hold's reason
 * says ("the next push publishes it"); but the final sync ended there, with
 * c3's upload unnamed and no longer held back. A pull of the second round
 * that finds the way clear for a held-back path now gets the next push (a
 * third round), which names that upload (integration/chaos/workload.ts;
 * the library side: sync/service/shape_hold_test.ts, last test).
 */
Deno.test("chaos regression: an upload left out beside a dangling entry of the other shape is named by the push after the pull that finds the way clear (I11, seed 124100329)", async () => {
  await clean(
    '{"seed":124100329,"clones":5,"kinds":["core-single-phase","core","api","api","api"],"skewMs":[0,57584,0,0,0],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"tick","n":12,"pick":743531433},{"id":1,"kind":"tick","n":40,"pick":657702192},{"id":16,"kind":"stall","clone":3,"on":true},{"id":19,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":20,"kind":"tick","n":39,"pick":6637319},{"id":21,"kind":"vanish","file":4},{"id":22,"kind":"sync","clone":4},{"id":23,"kind":"tick","n":20,"pick":1574323193},{"id":24,"kind":"wait","ms":960000},{"id":45,"kind":"tick","n":20,"pick":506113386},{"id":47,"kind":"sync","clone":4},{"id":3,"kind":"tick","n":6,"pick":14076126},{"id":4,"kind":"outage","on":true},{"id":17,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":18,"kind":"reshape","clone":3,"file":4,"how":"push"},{"id":15,"kind":"stall","clone":3,"on":false},{"id":13,"kind":"tick","n":35,"pick":1621335013},{"id":14,"kind":"tick","n":17,"pick":1275931547}]}',
  );
});

/**
 * I11 (seed 130200227; the checker's): c1's same-output run lost its lock to
 * a breakglass and uploaded version 1 anyway; c2's run of the same output
 * found both files in place, its commit named `raw` and found
 * `metadata.yaml` already erased by c1's refusal, so its second pass wrote
 * it again; a second breakglass then refused that pass, and its version,
 * holding the `raw` the first pass committed, was held (`erasure_refused`),
 * its upload left on the datastore as the library documents, recorded in
 * c2's erasure journal until its user keeps or discards the run. I11 now
 * spares a held run's own upload that its clone's journal records
 * (integration/chaos/index_checks_test.ts).
 */
Deno.test("chaos regression: a held run's upload waits for its user's keep or discard (I11, seed 130200227)", async () => {
  await clean(
    '{"seed":130200227,"clones":5,"absentOnError":true,"v2":true,"kinds":["core","api","core","api","api"],"ops":[{"id":4,"kind":"run","clone":1,"model":0,"data":0,"workMs":1000,"same":true},{"id":5,"kind":"tick","n":7,"pick":1601013714},{"id":9,"kind":"breakglass","model":0},{"id":11,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":12,"kind":"tick","n":31,"pick":883298946},{"id":16,"kind":"tick","n":2,"pick":1304785383},{"id":20,"kind":"breakglass","model":0},{"id":23,"kind":"tick","n":1,"pick":928960255}]}',
  );
});

/**
 * I12 (seed 131100102; the checker's): c1's same-output run of m0 lost its
 * model lock to a breakglass, and c4's run of m0 took that lock at once;
 * the `oldsame` move then wrote c1's bytes of version 1's `metadata.yaml`
 * (a plain put, the same ETag, and its index entry) as c1's erasure was
 * about to delete it, while c4 held m0's lock. The delete took that object,
 * c4's create-only write of its own version 1 filled the path before the
 * erasure's put-back, and c4's commit named its version there. A real old
 * client writes a model's data versions under that model's lock (old and
 * new clients honour each other's locks), so it makes no such write while
 * another writer holds it: the move now waits for a moment the lock is free.
 */
Deno.test("chaos regression: an old client writes no model's data version while another writer holds that model's lock (I12, seed 131100102)", async () => {
  await clean(
    '{"seed":131100102,"clones":5,"kinds":["core","api","core","api","api"],"oldClients":true,"skewMs":[72033,0,0,0,0],"etag":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":2,"kind":"run","clone":4,"model":0,"data":1,"workMs":1000},{"id":3,"kind":"tick","n":1,"pick":1170745261},{"id":4,"kind":"breakglass","model":0},{"id":40,"kind":"oldsame","clone":0,"run":0,"pick":849386151},{"id":5,"kind":"tick","n":9,"pick":673153685}]}',
  );
});

/**
 * I11 (seed 139201324, shrunk; `--copy-share 1`): c0's lockfile transaction
 * put its lockfile, and an outage failed its index update (the bucket's
 * first index, whose discovery met the outage); the change stayed pending in
 * c0's cache, which its user then replaced by a copy of c2's. The object
 * stood unnamed for good, as every upload of a replaced cache whose commit
 * never came does (the next lockfile change of any cache takes it in), but
 * it was the one Sluice write that carried no writer id, so neither I11's
 * exception for such uploads nor index discovery could tell it from another
 * tool's object. The transaction's put now carries the cache's writer id
 * (`sync/locks/lockfile_publish.ts`).
 */
Deno.test("chaos regression: a lockfile transaction's copy cut off before its index update is its cache's upload (I11, seed 139201324)", async () => {
  await clean(
    '{"seed":139201324,"clones":4,"kinds":["core","api","core","core"],"ops":[{"id":2,"kind":"lockfile","clone":0,"set":"@chaos/ext-2"},{"id":3,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":4,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":5,"kind":"flaky","call":"put","count":1,"afterEffect":true},{"id":8,"kind":"adopt","clone":2,"file":2},{"id":9,"kind":"tick","n":20,"pick":87509954},{"id":10,"kind":"outage","on":true},{"id":11,"kind":"tick","n":6,"pick":1162745610},{"id":31,"kind":"copy","clone":0,"from":2}]}',
  );
});

/**
 * I7/I8 (seed 140000226, shrunk): while c0 moved the bucket to v2, c1's
 * first v1 commit of a new file landed with its answer lost (c1 crashed),
 * after the move had read no index object. c1's user made the file a
 * directory of its name; c1's push found its upload named by no index (the
 * v2 meta had landed, the move's catch-up not yet) and deleted it as its own
 * stranded upload, then crashed before its index update. The catch-up had
 * checked the object just before that delete, and its shard write named it
 * after: the index named a deleted object, and held back c1's file under the
 * directory. Fixed in sync/transfer/migrate_index.ts (the catch-up looks at
 * what it set again after its commit, as an adoption does).
 */
Deno.test("chaos regression: a move's catch-up never names a racing v1 commit's object its writer deleted after the check (I7, I8, seed 140000226)", async () => {
  await clean(
    '{"seed":140000226,"clones":4,"kinds":["api","api","core-single-phase","api"],"skewMs":[0,0,0,40533],"ops":[{"id":29,"kind":"migrate","clone":0},{"id":39,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":40,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":41,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":42,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":31,"kind":"tick","n":30,"pick":1603617500}]}',
  );
});

/**
 * I8 (seed 141500553, shrunk; `--old-share 1 --etag-share 1`), the
 * checker's own: an old client's pull read the v1 index naming an earlier
 * old client's edit of config/settings-0.yaml (#29), then another old
 * client's push of that file (#30) put its object and committed it under
 * the global lock, and the pull (no lock, another object missing) wrote back
 * the index it read: the entry named #29's bytes again while the store held
 * #30's, and fresh clones skipped the file as uncommitted. No Sluice client
 * wrote that file; the old clients' design drops such a commit, as the
 * checker spares a push whose entry the pull left out. It now spares one the
 * pull rolled back to other bytes too (the same with versions of their own,
 * not ETags: not the ETag window of I12).
 */
Deno.test("chaos regression: an old client's commit rolled back by another old client's pull is theirs, spared (I8, seed 141500553)", async () => {
  await clean(
    '{"seed":141500553,"clones":2,"absentOnError":true,"kinds":["core","api"],"oldClients":true,"etag":true,"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000,"same":true},{"id":3,"kind":"tick","n":12,"pick":428542662},{"id":29,"kind":"oldpush","clone":0,"file":0},{"id":4,"kind":"tick","n":25,"pick":314319856},{"id":8,"kind":"tick","n":6,"pick":2147131406},{"id":31,"kind":"oldpush","clone":1},{"id":9,"kind":"adopt","clone":0,"file":3},{"id":10,"kind":"breakglass","model":0},{"id":13,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":14,"kind":"tick","n":20,"pick":541289935},{"id":33,"kind":"sibling","clone":0,"how":"push","workMs":15000},{"id":34,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":35,"kind":"tick","n":57,"pick":1712673688},{"id":30,"kind":"oldpush","clone":0,"file":0},{"id":15,"kind":"delete","clone":0,"file":4,"how":"dir"},{"id":32,"kind":"oldpull","clone":1},{"id":16,"kind":"tick","n":25,"pick":1743207589}]}',
  );
});

/**
 * I26 (seed 75000037, shrunk; found by the `parallel` move once it was
 * taught, after a newcomer driving the extension met it: two model runs of
 * one process, one flushing single-phase, the other two-phase): the run
 * committed its push and released its lock while its parallel step, on
 * another model, stood between its preparation and its commit. The step's
 * push had been given every model lock held as it was prepared, the run's
 * among them, and its preparation had cleared the mark that the run's lock
 * was settled by a commit; its commit found that lock released and was
 * refused (`erasure_refused`), its own version held.
 */
Deno.test("chaos regression: a step's commit is not refused for another run's lock released after that run's push (I26, seed 75000037)", async () => {
  await clean(
    '{"seed":75000037,"clones":5,"absentOnError":true,"kinds":["api","core-single-phase","core","core-single-phase","core-single-phase"],"checkedDeletes":true,"ops":[{"id":30,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true}]}',
  );
});

/**
 * I1 (seed 75000034, shrunk; the same move): a run's lock was broken
 * (breakglass) while its parallel step, on another model, held its own;
 * the run's push, given every model lock held as it started, was refused
 * for its own lost lock and erased every version written under those locks,
 * the step's too, whose own push then acknowledged a version that was gone.
 */
Deno.test("chaos regression: a run refused for its own lost lock never erases its parallel step's version (I1, seed 75000034)", async () => {
  await clean(
    '{"seed":75000034,"clones":4,"kinds":["api","core","core-single-phase","core-single-phase"],"ops":[{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":15000,"parallel":true},{"id":11,"kind":"tick","n":1,"pick":2022244139},{"id":17,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 142200997, shrunk; `--copy-share 1`, third-party locks): a run
 * lost its lock (its refresh failed in an outage) and was refused; the
 * store unreachable, the deletion of its uploads stayed pending in its
 * cache's erasure journal (`erasure_pending`), never named by the index.
 * Its user then replaced that cache by a copy of another clone's (a `copy`
 * move), the journal with it: those uploads are left for good, named by
 * no index, held by no clone, as every upload of a replaced cache whose
 * commit never came (I11 spares those). The final I2 scan of the store
 * found their bytes and blamed the library.
 */
Deno.test("chaos regression: a refused run's uploads whose erasure went with a cache replaced by a copy are left for good, unpublished (I2, seed 142200997)", async () => {
  const json =
    '{"seed":142200997,"clones":3,"absentOnError":true,"ops":[{"id":14,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":17,"kind":"delete","clone":2,"file":1,"how":"during","pick":1656216813},{"id":19,"kind":"run","clone":1,"model":1,"data":1,"workMs":45000},{"id":21,"kind":"tick","n":12,"pick":1239878760},{"id":22,"kind":"outage","on":true},{"id":23,"kind":"tick","n":5,"pick":966462544},{"id":64,"kind":"copy","clone":1,"from":0}]}';
  await clean(json);
  // Both of the run's objects are still on the store, spared as such.
  const r = await runHistory(parseHistory(json));
  assert.equal(r.stats.refusedLeftByCopy, 2);
});

/**
 * I13 (seed 143500042, shrunk; `--old-share 1 --etag-share 1`): c1's core
 * run crashed with its version 1's `raw` written and no `metadata.yaml`
 * (held back for good by unfinished-version-holder); after its next run
 * (version 2) c1 moved the marker back one, onto version 1, while c0's run
 * moved it to version 3. `--mine` can never publish that marker (no reader
 * could follow it), and its reason told the user to push the version, which
 * never publishes it: the reason now names the unfinished version and the
 * way out, `--theirs`, which the checker takes.
 */
Deno.test("chaos regression: a marker moved back onto a version its crashed writer never finalized is left by --theirs (I13, seed 143500042)", async () => {
  await clean(
    '{"seed":143500042,"clones":3,"kinds":["api","core","api"],"oldClients":true,"indexFirst":true,"etag":true,"ops":[{"id":13,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":22,"kind":"crash","clone":1,"at":"commit"},{"id":23,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":27,"kind":"marker","clone":1,"model":0,"data":1,"back":true,"how":"push"},{"id":31,"kind":"tick","n":25,"pick":1219823634},{"id":32,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"streamed":true}]}',
  );
});

/**
 * I7/I8 (seed 148001728, shrunk): c1's `resolve --mine` of its conflict on a
 * shared file crashed between its commit's upload and its index update: its
 * copy replaced theirs on the store, the index still naming theirs. c1 then
 * copied theirs into place by hand and ran `resolve --theirs`, which took
 * the copy as theirs without looking at the store and cleared the path's
 * dirty mark: reported resolved, it left the index naming a version the
 * store no longer held, for good (a fresh clone's pull skipped the file as
 * not yet committed).
 */
Deno.test("chaos regression: a --theirs whose copy is theirs already writes theirs back over its own cut-off upload (I7, I8, seed 148001728)", async () => {
  await clean(
    '{"seed":148001728,"clones":2,"absentOnError":true,"ops":[{"id":40,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":41,"kind":"edit","clone":1,"file":5,"how":"hand"},{"id":12,"kind":"resolve","clone":1,"pick":7,"how":"mine"},{"id":13,"kind":"resolve","clone":1,"pick":7,"how":"theirs"},{"id":15,"kind":"breakglass","model":0},{"id":17,"kind":"crash","clone":1,"at":"commit"},{"id":18,"kind":"tick","n":17,"pick":792728085}]}',
  );
});

/**
 * I1 (seed 76000088, shrunk; found by the `structural` move once it was
 * taught): a structural command of the tool (the global lock, a pull and a
 * push naming no model) ran in the process of a core-driven run and its
 * parallel step while both held their model locks, the run's broken by an
 * operator. The structural push was fenced by every held lock, refused for
 * the run's, and erased every version written under those locks, the
 * step's too, whose lock was never lost; the step's own flush then found
 * nothing to push and acknowledged a version that was gone.
 */
Deno.test("chaos regression: a structural command's push beside a run whose lock was broken never erases its parallel step's version (I1, seed 76000088)", async () => {
  await clean(
    '{"seed":76000088,"clones":4,"v2":true,"kinds":["core","api","api","api"],"indexFirst":true,"ops":[{"id":0,"kind":"sync","clone":2},{"id":1,"kind":"lockfile","clone":2,"set":"@chaos/ext-1"},{"id":2,"kind":"sync","clone":1},{"id":9,"kind":"run","clone":0,"model":0,"data":0,"workMs":45000,"parallel":true,"structural":true},{"id":11,"kind":"tick","n":21,"pick":451301517},{"id":13,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 76000364, shrunk; the `structural` move): the structural push of
 * the process of a core-driven run and its parallel step, fenced by every
 * held lock, published the run's version under the run's lock, which an
 * operator broke right after; the run's own flush was then refused for it,
 * its version already committed for every clone to pull.
 */
Deno.test("chaos regression: a structural command's push never publishes a run's version under that run's lock, broken before the run's flush (I2, seed 76000364)", async () => {
  await clean(
    '{"seed":76000364,"clones":5,"kinds":["core-single-phase","core","core","api","api"],"ops":[{"id":31,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"parallel":true,"structural":true},{"id":35,"kind":"tick","n":39,"pick":1069419965},{"id":18,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I19, the checker's own gap (seed 148300278, shrunk; `--checked-delete-share
 * 1`): c4 pushed its edit of a shared file, and crashed after the commit
 * landed, before recording the file synced; back up, its user replaced the
 * file by a directory and pushed. c0 pulled the edit meanwhile, and another
 * tool deleted its object between c4's look at its own upload and c4's
 * commit. c4's push withdrew its own write (a file this cache never synced,
 * its upload named by the index, removed here since), entry with it, and
 * c0's pull then removed its copy: a user's deletion, made before the
 * object went and pushed after it. I19 now spares a path whose clone's own
 * write of the bytes deleted its user had removed (here: replaced by a
 * directory) and not pushed yet when the object went, as it spares a
 * synced file deleted so.
 */
Deno.test("chaos regression: a clone's own write, committed with its answer lost and removed by its user before another tool's deletion, is a user's deletion (I19, seed 148300278)", async () => {
  await clean(
    '{"seed":148300278,"clones":5,"kinds":["api","core-single-phase","api","core-single-phase","core-single-phase"],"checkedDeletes":true,"ops":[{"id":78,"kind":"migrate","clone":2},{"id":79,"kind":"tick","n":16,"pick":297645408},{"id":0,"kind":"bulk","clone":4},{"id":5,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":44,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":4,"file":3,"how":"push"},{"id":11,"kind":"crash","clone":4,"at":"commit"},{"id":12,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000,"streamed":true},{"id":14,"kind":"tick","n":38,"pick":1630577545},{"id":15,"kind":"tick","n":2,"pick":1854241640},{"id":16,"kind":"wait","ms":11000},{"id":17,"kind":"wait","ms":31000},{"id":18,"kind":"tick","n":15,"pick":1853183462},{"id":25,"kind":"resolve","clone":0,"pick":2,"how":"mine"},{"id":47,"kind":"tick","n":16,"pick":263556529},{"id":48,"kind":"vanish","file":3}]}',
  );
});

/**
 * I12 (seed 149100103, shrunk; `--old-share 1 --etag-share 1`), the
 * checker's own: c3's old client pull (#39) read the v1 index, met an object
 * missing (c0's file made a directory of its name, its deletion on its way
 * to the index) and wrote back the index it read, while c4's old client push
 * (#38) committed its log in between: their design drops that commit. The
 * pull's write landed with its answer lost (a flaky put after effect), so
 * the pull failed and the checker never learned what its write dropped, and
 * blamed the library for the missing entry. A pull's write whose answer is
 * lost is now taken as landed (not the ETag window of I12: no erasure). The
 * second history is the same with c3 armed to crash as its pull's write
 * lands (`at: "answer"`) in place of the flaky put: an old client's pull is
 * now spared that crash (a crash there is its return).
 */
Deno.test("chaos regression: an old client's commit dropped by another old client's pull whose write's answer was lost is theirs, spared (I12, seed 149100103)", async () => {
  await clean(
    '{"seed":149100103,"clones":5,"kinds":["core","api","api","core","api"],"oldClients":true,"etag":true,"ops":[{"id":37,"kind":"oldpush","clone":3},{"id":8,"kind":"tick","n":5,"pick":324786824},{"id":10,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":11,"kind":"lockfile","clone":0,"set":"@chaos/ext-11"},{"id":13,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":15,"kind":"flaky","call":"delete","count":1,"afterEffect":true},{"id":16,"kind":"crash","clone":3},{"id":41,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":42,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":45,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":20,"kind":"wait","ms":5000},{"id":38,"kind":"oldpush","clone":4},{"id":43,"kind":"sync","clone":1},{"id":21,"kind":"tick","n":2,"pick":1473928274},{"id":23,"kind":"latency","ms":500},{"id":24,"kind":"tick","n":30,"pick":856547655},{"id":25,"kind":"tick","n":32,"pick":136718617},{"id":47,"kind":"sibling","clone":4,"how":"dies","workMs":15000},{"id":49,"kind":"tick","n":48,"pick":2126576185},{"id":26,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true},{"id":39,"kind":"oldpull","clone":3},{"id":28,"kind":"tick","n":24,"pick":537275659},{"id":29,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":30,"kind":"tick","n":2,"pick":1845818108}]}',
    '{"seed":149100103,"clones":5,"kinds":["core","api","api","core","api"],"oldClients":true,"etag":true,"ops":[{"id":37,"kind":"oldpush","clone":3},{"id":8,"kind":"tick","n":5,"pick":324786824},{"id":10,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":11,"kind":"lockfile","clone":0,"set":"@chaos/ext-11"},{"id":13,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":15,"kind":"flaky","call":"delete","count":1,"afterEffect":true},{"id":16,"kind":"crash","clone":3},{"id":41,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":42,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":45,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":20,"kind":"wait","ms":5000},{"id":38,"kind":"oldpush","clone":4},{"id":43,"kind":"sync","clone":1},{"id":21,"kind":"tick","n":2,"pick":1473928274},{"id":23,"kind":"latency","ms":500},{"id":24,"kind":"tick","n":30,"pick":856547655},{"id":25,"kind":"tick","n":32,"pick":136718617},{"id":47,"kind":"sibling","clone":4,"how":"dies","workMs":15000},{"id":49,"kind":"tick","n":48,"pick":2126576185},{"id":26,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true},{"id":29,"kind":"crash","clone":3,"at":"answer"},{"id":39,"kind":"oldpull","clone":3},{"id":28,"kind":"tick","n":24,"pick":537275659},{"id":30,"kind":"tick","n":2,"pick":1845818108}]}',
  );
});
